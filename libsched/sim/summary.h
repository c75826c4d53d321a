// What a simulated schedule comes to: the figures the scheduling literature compares
// (utilization, wait, bounded slowdown), for all jobs and per user and per queue.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "libsched/sim/simulator.h"

namespace lsf::sched::sim {

// Bounded slowdown: (wait + run) / max(run, threshold), at least 1.
inline constexpr double kSlowdownThreshold = 10.0;

struct Figures {
  std::int64_t jobs = 0;      // that started
  std::int64_t never = 0;     // that could never start
  std::int64_t killed = 0;    // ended by their run limit
  std::int64_t makespan = 0;  // first submit to last end
  double utilization = 0;     // slot-seconds used / slot-seconds there were in the makespan
  double avg_wait = 0, median_wait = 0, p95_wait = 0, max_wait = 0;
  double avg_bounded_slowdown = 0;
};

struct Summary {
  Figures all;
  std::map<std::string, Figures> by_user;
  std::map<std::string, Figures> by_queue;
};

// `slots`: the cluster's total; `queue_names` names the queues for the per-queue rows.
Summary summarize(const Result& result, const std::vector<Job>& jobs, std::int64_t slots,
                  const std::vector<std::string>& queue_names);

}  // namespace lsf::sched::sim
