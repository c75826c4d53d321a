// What mbatchd's /metrics endpoint says (Prometheus text, metrics_text.h): jobs and
// slots by state for the cluster, each queue and the busiest users; hosts by status;
// slots and GPUs per host group; guarantee pools and their loans and Maui-style
// throttles as the last pass saw them; lsb.resources limits' use against their caps,
// fairshare priorities and slot-pool shares from a view kept a few seconds
// (ViewReports); MultiCluster leases; and mbatchd's own health: the passes, the requests it
// answered, the event log, its connections and memory.
//
// Everything comes from counts kept as jobs change (ClusterState's tallies) and from
// what mbatchd already holds per host, queue and user: a scrape costs time in the number
// of hosts, queues and users, never in the number of jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "daemons/common/histogram.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "daemons/mbatchd/request_stats.h"
#include "daemons/mbatchd/scheduling_driver.h"
#include "libsched/limit_usage.h"
#include "libsched/model/policy.h"
#include "libsched/modules/schmod_guarantee.h"
#include "libsched/modules/schmod_throttle.h"
#include "libsched/pool_usage.h"
#include "libsched/share_accounts.h"

namespace lsf::mbd {

struct HostMetrics {
  std::string name;
  std::string status;  // as bhosts writes it: ok, closed_Adm, unavail, ...
  int slots = 0;       // MXJ, or the CPUs it reports where MXJ is unlimited
  int used_slots = 0;  // of started jobs (RUN, SSUSP, USUSP)
  int gpus = 0;        // devices its sbatchd reports
  int gpus_used = 0;
};

// The cluster's hosts summed: how many in each status, slots and GPUs.
struct HostTotals {
  std::map<std::string, int> by_status;
  int slots = 0, used_slots = 0, gpus = 0, gpus_used = 0;
};
HostTotals total_hosts(const std::vector<HostMetrics>& hosts);

struct HealthMetrics {
  double uptime_s = 0;
  std::uint64_t submissions_total = 0;
  const PassCounters* passes = nullptr;
  EventLogStats event_log;
  double snapshot_age_s = -1;  // -1: no snapshot since mbatchd started
  int sbatchds = 0;            // hosts whose sbatchd is registered and not lost
  std::size_t connections = 0;
  std::int64_t resident_bytes = 0;
  std::vector<RequestStats::Row> requests;
};

// What only a view of the running jobs tells (blimits' use, fairshare priorities,
// slot-pool shares): made at most every kPeriod and kept between scrapes, so that a
// scrape never walks the jobs and a cluster scraped every second makes one view per
// period.
struct ViewReports {
  static constexpr std::int64_t kPeriod = 15;  // seconds
  std::int64_t made_at = 0;                    // 0: never
  std::vector<sched::LimitUsage> limits;
  // Each fairshare queue's share accounts, as bqueues -l lists them.
  std::vector<std::pair<std::string, std::vector<sched::ShareRow>>> shares;
  std::vector<sched::PoolShare> pools;
};

// A MultiCluster lease as bclusters shows it.
struct LeaseMetrics {
  std::string remote_cluster, flow, status;  // flow: EXPORT or IMPORT; status: ok, conn, disc
  int hosts = 0, slots = 0;
};

struct MetricsInput {
  std::string cluster;
  const ClusterState* state = nullptr;
  std::vector<HostMetrics> hosts;
  // Each host group with its member hosts (resolved).
  std::vector<std::pair<std::string, std::vector<std::string>>> host_groups;
  // The last pass's guarantee pools (bresources -g) and throttles (blimits' Maui
  // columns), with the policy their limits index into; null: none.
  const sched::SchedPolicy* policy = nullptr;
  const std::vector<sched::GuaranteeReport>* guarantees = nullptr;
  const std::vector<sched::ThrottleUse>* throttles = nullptr;
  const ViewReports* view_reports = nullptr;
  std::vector<LeaseMetrics> leases;
  // Share accounts named per fairshare queue, most started first; the rest are left out
  // (a `default` share gives every user an account).
  std::size_t top_accounts = 50;
  HealthMetrics health;
  // Users named in per-user series; the rest are summed under user="other", so that
  // a cluster of many users does not make Prometheus keep a series per user.
  std::size_t top_users = 20;
};

std::string render_metrics(const MetricsInput& input);

// mbatchd's resident memory from /proc/self/statm; 0 where it cannot be read.
std::int64_t resident_memory_bytes();

}  // namespace lsf::mbd
