// A trace's jobs as the simulator replays them: the ones the log saw run (a runtime and
// a processor count), with -n their requested processors (allocated ones when no request
// is recorded), user<N> and project group<N>, in submit order (ties in trace order).
//
// The simulator knows jobs by id and takes ids for their order in a queue, as mbatchd
// does; a trace's ids need be neither in submit order nor unique (some archived traces
// reuse them). So jobs are numbered 1, 2, ... in submit order here, and `source` keeps
// each one's trace line, id included, for what bsim writes out.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cli/bsim/swf_trace.h"
#include "libsched/sim/simulator.h"

namespace lsf::bsim {

struct TraceJobs {
  std::vector<sched::sim::Job> jobs;  // ids: their place in submit order, from 1
  std::vector<const SwfJob*> source;  // the trace line each job came from
  std::size_t skipped = 0;            // lines without a runtime (cancelled) or processors
  // Jobs whose trace id an earlier line already had: (the line, the earlier one's).
  std::vector<std::pair<const SwfJob*, const SwfJob*>> duplicates;
};

// `fill` sets what depends on the run: the job's queue and its run limit.
TraceJobs trace_jobs(const SwfTrace& trace, const std::function<void(const SwfJob&, sched::sim::Job&)>& fill);

}  // namespace lsf::bsim
