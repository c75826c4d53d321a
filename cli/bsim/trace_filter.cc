#include "cli/bsim/trace_filter.h"

#include <algorithm>

namespace lsf::bsim {

FilterReport filter_standard(SwfTrace& trace) {
  FilterReport r;
  r.read = trace.jobs.size();
  const std::int64_t max_procs = trace.max_procs.value_or(0);
  auto drop = [&](SwfJob& j) {
    if (j.req_procs <= 0) j.req_procs = j.alloc_procs;
    if (j.alloc_procs <= 0) j.alloc_procs = j.req_procs;
    if (j.req_procs <= 0) return ++r.no_procs, true;
    if (max_procs > 0 && j.req_procs > max_procs) return ++r.too_wide, true;
    if (j.run <= 0) return ++r.no_runtime, true;
    if (j.req_time <= 0) return ++r.no_request, true;
    if (j.submit < 0) return ++r.before_start, true;
    if (j.run > j.req_time) {
      j.run = j.req_time;
      ++r.capped;
    }
    return false;
  };
  std::erase_if(trace.jobs, drop);
  r.kept = trace.jobs.size();
  return r;
}

}  // namespace lsf::bsim
