// JobQueries: what bjobs and bwait see of jobs. bjobs shows each job as the state
// holds it, with what only the rest of mbatchd knows: a started job whose host cannot
// be reached shows UNKWN (host tracking), a pending job its reservation (the last
// pass), and jobs this cluster runs for another cluster's users (MultiCluster).
//
// Owns: nothing; it reads the state, the configuration and its index.
// Thread: the state thread (the io_context), as the request table calls it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/host_status.h"
#include "libconfig/resreq.h"
#include "libsched/pass.h"
#include "lsf.pb.h"

namespace lsf::mbd {

struct JobQueriesHooks {
  // Host tracking: whether a started job's first host is reachable.
  std::function<HostStatus(const std::string& host)> status_of;
  // The last pass: pending jobs' reservations.
  std::function<const std::map<sched::JobKey, sched::Reservation>&()> reservations;
  // MultiCluster: ids of jobs run here for a consumer cluster (not "not found"), and
  // adding those the query asks for to the reply.
  std::function<bool(const sched::JobKey& ref)> is_leased_job;
  std::function<void(const wire::JobsRequest& q, const std::string& user, wire::JobsReply& out)> add_leased_jobs;
  std::function<std::int64_t()> now;
};

// The job's requirement merged with its application's and queue's (what the pass uses).
std::optional<config::ResourceRequirement> merged_requirement(const config::ClusterConfig& config, const Job& job);
// The job's GPU requirement from every level (config::effective_gpu_request); nullopt:
// it asks for no GPU.
std::optional<config::GpuRequest> effective_gpu_request(const config::ClusterConfig& config, const Job& job);

class JobQueries {
 public:
  JobQueries(ComponentContext ctx, const ConfigIndex& index, JobQueriesHooks hooks);

  // bjobs: the caller's jobs (or -u's, or those named), filtered as asked, in pages
  // when asked. A job named by id is shown whoever owns it.
  wire::ReplyEnvelope jobs(const wire::RequestEnvelope& request) const;
  // bwait: whether the condition holds, never will, or may yet; refused when it does
  // not parse or names a job that does not exist, as bsub -w.
  wire::ReplyEnvelope wait_condition(const wire::RequestEnvelope& request) const;

  wire::JobInfo job_info(const Job& job) const;
  // bjobs -l's "Combined" requirement: job, application and queue merged, with the
  // pass's defaults shown where none is given.
  std::string combined_requirement(const Job& job) const;

 private:
  ComponentContext ctx_;
  const ConfigIndex& index_;
  JobQueriesHooks hooks_;
};

}  // namespace lsf::mbd
