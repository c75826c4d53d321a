#include "libsched/sim/summary.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace lsf::sched::sim {
namespace {

// The figures of some of the jobs (indexes into the result).
Figures figures(const Result& result, const std::vector<size_t>& which, std::int64_t slots) {
  Figures f;
  std::vector<double> waits;
  double slowdown = 0, used = 0;
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  for (size_t i : which) {
    const Outcome& o = result.jobs[i];
    first = std::min(first, o.submit);
    if (o.start < 0) {
      ++f.never;
      continue;
    }
    ++f.jobs;
    if (o.killed) ++f.killed;
    last = std::max(last, o.end);
    double wait = static_cast<double>(o.start - o.submit);
    double run = static_cast<double>(o.end - o.start);
    waits.push_back(wait);
    slowdown += std::max(1.0, (wait + run) / std::max(run, kSlowdownThreshold));
    used += run * o.procs;
  }
  if (waits.empty()) return f;
  f.makespan = last - first;
  if (f.makespan > 0 && slots > 0)
    f.utilization = used / (static_cast<double>(slots) * static_cast<double>(f.makespan));
  std::sort(waits.begin(), waits.end());
  double total = 0;
  for (double w : waits) total += w;
  const size_t n = waits.size();
  f.avg_wait = total / static_cast<double>(n);
  f.median_wait = n % 2 ? waits[n / 2] : (waits[n / 2 - 1] + waits[n / 2]) / 2;
  // Nearest rank: the smallest wait at least 95 % of the jobs do not exceed.
  size_t rank = (95 * n + 99) / 100;
  f.p95_wait = waits[std::max<size_t>(rank, 1) - 1];
  f.max_wait = waits.back();
  f.avg_bounded_slowdown = slowdown / static_cast<double>(n);
  return f;
}

}  // namespace

Summary summarize(const Result& result, const std::vector<Job>& jobs, std::int64_t slots,
                  const std::vector<std::string>& queue_names) {
  Summary s;
  std::vector<size_t> all(result.jobs.size());
  std::map<std::string, std::vector<size_t>> users, queues;
  for (size_t i = 0; i < result.jobs.size(); ++i) {
    all[i] = i;
    users[jobs[i].user].push_back(i);
    const int q = jobs[i].queue;
    queues[q >= 0 && static_cast<size_t>(q) < queue_names.size() ? queue_names[q] : std::to_string(q)].push_back(i);
  }
  s.all = figures(result, all, slots);
  for (const auto& [name, which] : users) s.by_user[name] = figures(result, which, slots);
  for (const auto& [name, which] : queues) s.by_queue[name] = figures(result, which, slots);
  return s;
}

}  // namespace lsf::sched::sim
