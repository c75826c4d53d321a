// The pass engine in named steps over one PassState. Internal to libsched: callers use
// schedule() (pass.h), which runs the pass's steps in this order:
//
//   prepare       the modules prepare; those this configuration gives nothing to do
//                 leave; what they say of each queue's jobs as a whole is asked once
//   order_jobs    the pending jobs in the order hooks' order
//   walk          each job considered once: a queue's jobs in order, or the next jobs
//                 through a module's picker (fairshare) where one takes them over
//   second_round  the jobs a module deferred (USE_PRIORITY_IN_POOL), considered again
//   finish        passed-over counts, the modules' finish hooks (suspend, resume)
//
// Each job is considered in the steps (pass_steps.cc)
//
//   admit     every module may refuse it for now (it pends, or is deferred)
//   match     its host match: candidates the hosts hooks made for its key (pass_caches.h)
//   classify  its requirement class; a class already known to fail gives its outcome
//   place     cannot_start, allocate (else first fit), verify
//   reserve / preempt  a job that cannot start may free room by preemption, else hold
//             or plan what the first willing module gives it
//   record    a start as a dispatch, or a pending reason the job's class keeps
//
// Requirement classes keep the pass proportional to classes x hosts rather than
// jobs x hosts: see pass_caches.h for what jobs share and why that holds for a pass.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "libsched/model/cluster_view.h"
#include "libsched/module.h"
#include "libsched/pass_caches.h"
#include "libsched/pass_context.h"

namespace lsf::sched {

// What the modules say of a queue's jobs as a whole, asked once per queue rather than
// three times per module for each of 100,000 jobs.
struct QueueTraits {
  bool plans = false, acts_when_full = false, by_user = false;
};

// Everything one pass works with, shared by its steps.
struct PassState {
  PassState(const ClusterView& view, std::int64_t now);

  const ClusterView& view;
  std::vector<std::unique_ptr<Module>> modules;  // the pipeline; inactive ones leave in prepare
  PassContext ctx;                               // refers to `modules`: made after it
  std::vector<QueueTraits> traits;               // by queue, after prepare
  std::vector<const JobView*> jobs;              // in the order hooks' order
  const bool given_ids;                          // jobs' ids mean names in the view's tables
  // Where each match's candidates start, before the hosts hooks filter and rank them.
  std::vector<int> every_host;
  PassCaches caches;
  // Jobs a module refused for now but lets try again after everyone's first turn
  // (USE_PRIORITY_IN_POOL: slots a pool's queues left unused).
  std::vector<const JobView*> deferred;
  bool second_round = false;
  // A job that got as far as host matching and pends: every job started after it
  // passes it over. Kept as (its reason, the starts so far) until the pass ends; the
  // starts so far only grow along the list, so only the reasons before the last start
  // are written again, not 100,000 of them long since out of the cache.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> passed_over;
};

namespace steps {

void prepare(PassState& pass);
void order_jobs(PassState& pass);
void walk(PassState& pass);
void second_round(PassState& pass);
void finish(PassState& pass);

}  // namespace steps
}  // namespace lsf::sched
