// What the dashboard plots over time: every kInterval, the slots each queue runs, the
// jobs pending and the passes' mean time since the last sample, kept for kSamples
// samples (an hour) in a ring. Sampled on the state thread from counts mbatchd keeps
// anyway, so a sample costs time in the number of queues.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/scheduling_driver.h"

namespace lsf::mbd {

struct HistorySample {
  std::int64_t time = 0;
  std::vector<std::pair<std::string, int>> run_slots;  // per queue, by name
  int pending_jobs = 0;
  double pass_ms = 0;  // mean of the passes since the previous sample; 0: none ran
};

class DashboardHistory {
 public:
  static constexpr std::chrono::seconds kInterval{5};
  static constexpr std::size_t kSamples = 720;

  void sample(std::int64_t now, const ClusterState& state, const PassCounters& passes);
  const std::deque<HistorySample>& samples() const { return samples_; }

 private:
  std::deque<HistorySample> samples_;
  std::uint64_t last_passes_ = 0;
  std::chrono::microseconds last_total_{0};
};

}  // namespace lsf::mbd
