// A trace's jobs as the simulator replays them: the ones the log saw run (a runtime and
// a processor count), with -n their requested processors (allocated ones when no request
// is recorded), user<N> and project group<N>, in submit order (ties in trace order).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "cli/bsim/swf_trace.h"
#include "libsched/sim/simulator.h"

namespace lsf::bsim {

struct TraceJobs {
  std::vector<sched::sim::Job> jobs;
  std::vector<const SwfJob*> source;  // the trace line each job came from
  std::size_t skipped = 0;            // lines without a runtime (cancelled) or processors
};

// `fill` sets what depends on the run: the job's queue and its run limit.
TraceJobs trace_jobs(const SwfTrace& trace, const std::function<void(const SwfJob&, sched::sim::Job&)>& fill);

}  // namespace lsf::bsim
