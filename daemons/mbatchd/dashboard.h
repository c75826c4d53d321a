// The dashboard's data (served at /api/state and /api/hosts on the metrics listener,
// read by the page in daemons/mbatchd/dashboard/): the cluster summary, queues,
// pending reasons grouped with their counts, guarantee pools, slot pools (from the
// metrics' ViewReports, at most 15 s old), the last passes and the
// history the plots draw, as JSON. Built from the same inputs as /metrics (metrics.h).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "daemons/mbatchd/dashboard_history.h"
#include "daemons/mbatchd/metrics.h"

namespace lsf::mbd {

struct DashboardInput {
  const MetricsInput* metrics = nullptr;  // cluster, state, hosts, pools, health
  std::string master;
  std::int64_t now = 0;
  std::vector<std::pair<std::string, int>> queue_priorities;  // as bqueues orders them
  std::vector<std::pair<std::string, int>> pending_reasons;   // reason, jobs; most first
  const std::deque<HistorySample>* history = nullptr;
};

std::string dashboard_state_json(const DashboardInput& in);

// Each server host: status, slots, load (r1m, ut, free memory) and GPUs.
struct HostLoad {
  double r1m = 0, ut = 0, mem_mb = 0, maxmem_mb = 0;
};
std::string dashboard_hosts_json(const std::vector<HostMetrics>& hosts, const std::vector<HostLoad>& loads);

// Pending jobs grouped by reason, most first, at most `limit` reasons. Jobs of one
// pass mostly share one reason object, so the walk compares pointers before text.
std::vector<std::pair<std::string, int>> group_pending_reasons(const ClusterState& state, std::size_t limit);

}  // namespace lsf::mbd
