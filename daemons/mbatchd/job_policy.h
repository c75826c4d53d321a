// How the configuration applies to one job: its application profile, run limit,
// rerunnable flag, -m hosts and the state of its dependency. Pure functions of the
// configuration and the state, shared by the scheduling view, the job service and
// host tracking, so each reads a job's limits by the same rule.
//
// Owns: nothing. Thread: the state thread (they read ClusterState).
#pragma once

#include <cstdint>
#include <memory>

#include "daemons/mbatchd/cluster_state.h"
#include "libconfig/cluster_config.h"
#include "libsched/dependency.h"
#include "libsched/model/cluster_view.h"

namespace lsf::mbd {

// A queue's RUNLIMIT as jobs without -W get it (its default, else its maximum); 0: none.
std::int64_t default_run_limit_s(const config::Queue& queue);
// The job's -app profile; null without -app or when a reconfig removed it.
const config::Application* application(const config::ClusterConfig& config, const Job& job);
// -W, else the profile's RUNLIMIT (within `queue`'s hard limit), else `queue_default_s`
// (the queue's default_run_limit_s, given so a view works it out once per queue).
std::int64_t run_limit_s(const Job& job, const config::Application* app, const config::Queue* queue,
                         std::int64_t queue_default_s);
// The same, everything looked up; 0: none.
std::int64_t effective_run_limit(const config::ClusterConfig& config, const Job& job);
// bsub -r (or -rn), else the profile's RERUNNABLE, else the queue's.
bool rerunnable(const config::ClusterConfig& config, const Job& job);
// -m resolved to host names with their +preference levels; `hostA@provider` kept by
// name (what providers offer decides whether it runs).
std::shared_ptr<const sched::AskedHosts> resolve_asked_hosts(const config::ClusterConfig& config,
                                                             const wire::JobSpec& spec);
// Whether the job's -w condition holds now (kNone without one).
sched::DependencyState dependency_state(const config::ClusterConfig& config, const ClusterState& state, const Job& job);
// A -w condition against the jobs as `state` holds them (JOB_DEP_LAST_SUB for names).
sched::DependencyState evaluate_dependency(const config::ClusterConfig& config, const ClusterState& state,
                                           const sched::DependencyExpr& dep);

}  // namespace lsf::mbd
