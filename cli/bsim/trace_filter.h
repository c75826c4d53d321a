// bsim --filter standard: a trace cleaned as the archived backfilling studies cleaned
// theirs before simulating, so that their published figures can be reproduced (see
// docs/simulation.md). In this order, for each job line:
//   - a processor count missing or <= 0 takes the other one (requested, allocated);
//     with neither, the job is dropped;
//   - a job asking more processors than the header's MaxProcs is dropped;
//   - a job with runtime <= 0, requested time <= 0 or submit time < 0 is dropped;
//   - a runtime longer than the requested time is cut to it (the scheduler would have
//     killed the job there).
#pragma once

#include <cstddef>

#include "cli/bsim/swf_trace.h"

namespace lsf::bsim {

struct FilterReport {
  std::size_t read = 0, kept = 0;
  std::size_t no_procs = 0, too_wide = 0, no_runtime = 0, no_request = 0, before_start = 0;
  std::size_t capped = 0;  // kept, with the runtime cut to the requested time
};

FilterReport filter_standard(SwfTrace& trace);

}  // namespace lsf::bsim
