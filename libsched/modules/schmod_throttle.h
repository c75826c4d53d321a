// schmod_throttle's report, which the pass hands back in PassResult::throttles (every
// throttled consumer with something counted): what blimits shows of throttles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lsf::sched {

// What a throttling Limit section (IDLE_JOBS, TOTAL_JOBS, PROC_SECONDS, soft values)
// counts for one consumer as the pass leaves it, for blimits. The member names are
// set for PER_* consumers and empty for a section's consumers together.
struct ThrottleUse {
  size_t limit = 0;  // index into SchedPolicy::limits
  std::string user, queue, project;
  int running = 0;
  int idle = 0;  // pending jobs eligible under it (Maui's IDLE)
  std::int64_t slots = 0;
  std::int64_t proc_seconds = 0;  // running jobs' remaining run limit x slots
};

}  // namespace lsf::sched
