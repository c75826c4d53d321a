#include "cli/bsim/trace_jobs.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace lsf::bsim {

TraceJobs trace_jobs(const SwfTrace& trace, const std::function<void(const SwfJob&, sched::sim::Job&)>& fill) {
  std::vector<sched::sim::Job> jobs;
  std::vector<const SwfJob*> source;
  TraceJobs out;
  std::unordered_map<std::int64_t, const SwfJob*> first;  // by trace id
  for (const auto& s : trace.jobs) {
    std::int64_t procs = s.req_procs > 0 ? s.req_procs : s.alloc_procs;
    if (s.run < 0 || procs <= 0) {
      ++out.skipped;
      continue;
    }
    if (auto [it, fresh] = first.try_emplace(s.id, &s); !fresh) out.duplicates.emplace_back(&s, it->second);
    sched::sim::Job j;
    j.submit = s.submit;
    j.runtime = s.run;
    j.procs = static_cast<int>(procs);
    j.user = "user" + std::to_string(s.user);
    j.project = "group" + std::to_string(s.group);
    fill(s, j);
    jobs.push_back(std::move(j));
    source.push_back(&s);
  }
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].submit < jobs[b].submit; });
  out.jobs.reserve(jobs.size());
  out.source.reserve(jobs.size());
  for (size_t i : order) {
    out.jobs.push_back(std::move(jobs[i]));
    out.jobs.back().id = static_cast<std::int64_t>(out.jobs.size());
    out.source.push_back(source[i]);
  }
  return out;
}

}  // namespace lsf::bsim
