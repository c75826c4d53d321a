// The scheduling pass on a virtual clock: jobs are submitted at their trace times, run
// for their real runtime (or until their run limit kills them), and the unchanged pass
// runs after each batch of events at one instant, as mbatchd would run it. Pure like the
// rest of libsched: the caller reads traces and writes results.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libsched/pass.h"

namespace lsf::sched::sim {

struct Job {
  std::int64_t id = 0;
  std::int64_t submit = 0;
  std::int64_t runtime = 0;    // how long it really runs
  std::int64_t run_limit = 0;  // what the scheduler is told (-W); 0: none
  int procs = 1;               // -n
  int queue = 0;               // index into the policy's queues
  std::string user = "user";
  std::string project = "default";
  std::string sla;  // -sla: its service class
};

struct Outcome {
  std::int64_t id = 0;
  std::int64_t submit = 0;
  std::int64_t start = -1;  // -1: never started (no host could ever take it)
  std::int64_t end = -1;
  int procs = 1;
  bool killed = false;  // reached its run limit
  // Where it ran: its first host and its slots. A trace's jobs are kept to the end, and
  // a list of names per slot for each would make the heap the simulation's main cost.
  std::string first_host;
  int slots = 0;
};

struct Result {
  std::vector<Outcome> jobs;  // in trace order
  std::int64_t passes = 0;
};

// A look inside after every pass (the invariant tests use it): the time and the view the
// next pass will see, with the result of the pass just run.
using Observer = std::function<void(std::int64_t now, const ClusterView& view, const PassResult& pass)>;

// `cluster` gives the policy, hosts and queue states; its job lists must be empty. Jobs
// must be sorted by submit time. `progress` is told the fraction of jobs submitted.
Result simulate(ClusterView cluster, const std::vector<Job>& jobs, const Observer& observe = {},
                const std::function<void(double)>& progress = {});

}  // namespace lsf::sched::sim
