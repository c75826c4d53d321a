// The scheduling pass: cluster view + now -> decisions. Deterministic: the same view
// gives the same decisions, whoever calls it (mbatchd, the simulator, tests).
//
// This is the simplest pass that works: queues by PRIORITY (then configuration
// order), FCFS within a queue, a job starts when enough slots are free on hosts its
// queue, -m and select[] allow (span[hosts=1] and span[ptile=n] respected, exclusive
// jobs alone on a host). The module pipeline of DESIGN.md replaces its insides; the
// call stays the same.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libsched/model/cluster_view.h"

namespace lsf::sched {

struct Dispatch {
  JobKey job;
  std::vector<std::string> hosts;  // one entry per slot, grouped by host
};

struct PendingReason {
  JobKey job;
  std::string text;  // without LSF's leading space and trailing ';'
};

struct PassStats {
  int jobs_considered = 0;
  int dispatched = 0;
};

struct PassResult {
  std::vector<Dispatch> dispatches;
  std::vector<PendingReason> reasons;
  PassStats stats;
};

PassResult schedule(const ClusterView& view, std::int64_t now);

}  // namespace lsf::sched
