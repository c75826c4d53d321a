// DashboardHistory: see dashboard_history.h.
#include "daemons/mbatchd/dashboard_history.h"

namespace lsf::mbd {

void DashboardHistory::sample(std::int64_t now, const ClusterState& state, const PassCounters& passes) {
  HistorySample s;
  s.time = now;
  for (const auto& [name, q] : state.queues()) s.run_slots.emplace_back(name, q.tally.slots[StateTally::kRun]);
  s.pending_jobs = state.tally().jobs[StateTally::kPend];
  const std::uint64_t ran = passes.passes - last_passes_;
  if (ran > 0)
    s.pass_ms =
        std::chrono::duration<double, std::milli>(passes.total_took - last_total_).count() / static_cast<double>(ran);
  last_passes_ = passes.passes;
  last_total_ = passes.total_took;
  samples_.push_back(std::move(s));
  if (samples_.size() > kSamples) samples_.pop_front();
}

}  // namespace lsf::mbd
