// render_metrics: see metrics.h. The names follow Prometheus' conventions: a unit
// suffix (_seconds, _bytes), _total on counters, one family per quantity with its
// breakdown in labels.
#include "daemons/mbatchd/metrics.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>

#include "daemons/mbatchd/metrics_text.h"

namespace lsf::mbd {
namespace {

void write_jobs(MetricsText& out, const MetricsInput& in) {
  const ClusterState& state = *in.state;
  out.family("lsf_jobs", "gauge", "Jobs mbatchd holds, by state (array elements one by one, as bjobs lists them)");
  for (int i = 0; i < StateTally::kStates; ++i)
    out.sample("lsf_jobs", {{"state", kTallyStates[i]}}, state.tally().jobs[i]);
  out.family("lsf_job_slots", "gauge", "Slots of the jobs mbatchd holds, by state");
  for (int i = 0; i < StateTally::kStates; ++i)
    out.sample("lsf_job_slots", {{"state", kTallyStates[i]}}, state.tally().slots[i]);
}

void write_queues(MetricsText& out, const MetricsInput& in) {
  const auto& queues = in.state->queues();
  out.family("lsf_queue_jobs", "gauge", "Jobs by queue and state");
  for (const auto& [name, q] : queues)
    for (int i = 0; i < StateTally::kStates; ++i)
      out.sample("lsf_queue_jobs", {{"queue", name}, {"state", kTallyStates[i]}}, q.tally.jobs[i]);
  out.family("lsf_queue_slots", "gauge", "Slots of the jobs by queue and state");
  for (const auto& [name, q] : queues)
    for (int i = 0; i < StateTally::kStates; ++i)
      out.sample("lsf_queue_slots", {{"queue", name}, {"state", kTallyStates[i]}}, q.tally.slots[i]);
  out.family("lsf_queue_open", "gauge", "1 when the queue accepts jobs (badmin qopen), 0 when closed");
  for (const auto& [name, q] : queues) out.sample("lsf_queue_open", {{"queue", name}}, q.open ? 1 : 0);
  out.family("lsf_queue_active", "gauge", "1 when the queue dispatches jobs (badmin qact), 0 when inactive");
  for (const auto& [name, q] : queues) out.sample("lsf_queue_active", {{"queue", name}}, q.active ? 1 : 0);
}

void write_users(MetricsText& out, const MetricsInput& in) {
  // The busiest users by jobs not yet finished (name breaks ties, so the set is stable
  // between scrapes); the others summed.
  std::vector<std::pair<const std::string*, const StateTally*>> users;
  for (const auto& [name, t] : in.state->user_tallies()) users.emplace_back(&name, &t);
  std::sort(users.begin(), users.end(), [](const auto& a, const auto& b) {
    const int x = a.second->active_jobs(), y = b.second->active_jobs();
    return x != y ? x > y : *a.first < *b.first;
  });
  out.family("lsf_user_jobs", "gauge",
             "Jobs by user and state: the users with most unfinished jobs, the rest as user=\"other\"");
  StateTally other;
  bool any_other = false;
  for (std::size_t k = 0; k < users.size(); ++k) {
    const StateTally& t = *users[k].second;
    if (k < in.top_users) {
      for (int i = 0; i < StateTally::kStates; ++i)
        out.sample("lsf_user_jobs", {{"user", *users[k].first}, {"state", kTallyStates[i]}}, t.jobs[i]);
      continue;
    }
    any_other = true;
    for (int i = 0; i < StateTally::kStates; ++i) {
      other.jobs[i] += t.jobs[i];
      other.slots[i] += t.slots[i];
    }
  }
  if (any_other)
    for (int i = 0; i < StateTally::kStates; ++i)
      out.sample("lsf_user_jobs", {{"user", "other"}, {"state", kTallyStates[i]}}, other.jobs[i]);
  out.family("lsf_users_with_jobs", "gauge", "Users who have jobs mbatchd holds");
  out.sample("lsf_users_with_jobs", static_cast<double>(users.size()));
}

void write_hosts(MetricsText& out, const MetricsInput& in) {
  const HostTotals totals = total_hosts(in.hosts);
  std::unordered_map<std::string_view, const HostMetrics*> by_name;
  for (const auto& h : in.hosts) by_name.emplace(h.name, &h);
  out.family("lsf_hosts", "gauge", "Server hosts by status, as bhosts shows it");
  for (const auto& [status, n] : totals.by_status) out.sample("lsf_hosts", {{"status", status}}, n);
  out.family("lsf_slots", "gauge", "Job slots of the cluster's hosts: total (MXJ, or CPUs where unlimited) and used");
  out.sample("lsf_slots", {{"state", "total"}}, totals.slots);
  out.sample("lsf_slots", {{"state", "used"}}, totals.used_slots);
  out.family("lsf_gpus", "gauge", "GPUs the hosts report, and those allocated to started jobs");
  out.sample("lsf_gpus", {{"state", "total"}}, totals.gpus);
  out.sample("lsf_gpus", {{"state", "used"}}, totals.gpus_used);
  if (in.host_groups.empty()) return;
  out.family("lsf_host_group_slots", "gauge", "Job slots per host group (lsb.hosts): total and used");
  std::vector<std::pair<int, int>> gpu_rows;
  for (const auto& [group, members] : in.host_groups) {
    int s = 0, u = 0, g = 0, gu = 0;
    for (const auto& m : members) {
      auto it = by_name.find(m);
      if (it == by_name.end()) continue;
      s += it->second->slots;
      u += it->second->used_slots;
      g += it->second->gpus;
      gu += it->second->gpus_used;
    }
    out.sample("lsf_host_group_slots", {{"group", group}, {"state", "total"}}, s);
    out.sample("lsf_host_group_slots", {{"group", group}, {"state", "used"}}, u);
    gpu_rows.emplace_back(g, gu);
  }
  out.family("lsf_host_group_gpus", "gauge", "GPUs per host group: total and allocated");
  for (std::size_t k = 0; k < in.host_groups.size(); ++k) {
    out.sample("lsf_host_group_gpus", {{"group", in.host_groups[k].first}, {"state", "total"}}, gpu_rows[k].first);
    out.sample("lsf_host_group_gpus", {{"group", in.host_groups[k].first}, {"state", "used"}}, gpu_rows[k].second);
  }
}

void write_guarantees(MetricsText& out, const MetricsInput& in) {
  if (!in.guarantees || in.guarantees->empty()) return;
  out.family("lsf_guarantee_pool_resources", "gauge",
             "Guarantee pools (lsb.resources): what they hold on their available hosts (slots, hosts or packages)");
  for (const auto& g : *in.guarantees) {
    out.sample("lsf_guarantee_pool_resources", {{"pool", g.pool}, {"type", g.type}, {"state", "total"}}, g.total);
    out.sample("lsf_guarantee_pool_resources", {{"pool", g.pool}, {"type", g.type}, {"state", "free"}}, g.free);
  }
  out.family("lsf_guarantee_pool_slots", "gauge",
             "Slots in use on a guarantee pool's hosts: by its owners, on loan to other jobs, and the rest");
  for (const auto& g : *in.guarantees) {
    out.sample("lsf_guarantee_pool_slots", {{"pool", g.pool}, {"use", "owner"}}, g.owner_use.slots);
    out.sample("lsf_guarantee_pool_slots", {{"pool", g.pool}, {"use", "loan"}}, g.loan_use.slots);
    out.sample("lsf_guarantee_pool_slots", {{"pool", g.pool}, {"use", "other"}}, g.other_use.slots);
  }
  out.family("lsf_guarantee_owner", "gauge", "Per service class of a guarantee pool: guaranteed and used");
  for (const auto& g : *in.guarantees)
    for (const auto& o : g.owners) {
      out.sample("lsf_guarantee_owner", {{"pool", g.pool}, {"service_class", o.service_class}, {"what", "guaranteed"}},
                 o.guaranteed);
      out.sample("lsf_guarantee_owner", {{"pool", g.pool}, {"service_class", o.service_class}, {"what", "used"}},
                 o.used);
    }
}

void write_throttles(MetricsText& out, const MetricsInput& in) {
  if (!in.throttles || in.throttles->empty() || !in.policy) return;
  auto limit_name = [&](std::size_t k) -> std::string {
    return k < in.policy->limits.size() ? in.policy->limits[k].name : std::to_string(k);
  };
  out.family("lsf_throttle_jobs", "gauge",
             "Jobs under each throttling limit (lsb.resources soft limits, Maui-style): running, and idle (pending and "
             "eligible)");
  for (const auto& t : *in.throttles) {
    const std::string name = limit_name(t.limit);
    out.sample("lsf_throttle_jobs",
               {{"limit", name}, {"user", t.user}, {"queue", t.queue}, {"project", t.project}, {"state", "running"}},
               t.running);
    out.sample("lsf_throttle_jobs",
               {{"limit", name}, {"user", t.user}, {"queue", t.queue}, {"project", t.project}, {"state", "idle"}},
               t.idle);
  }
  out.family("lsf_throttle_proc_seconds", "gauge",
             "Processor-seconds under each throttling limit: running jobs' remaining run limit times their slots");
  for (const auto& t : *in.throttles)
    out.sample("lsf_throttle_proc_seconds",
               {{"limit", limit_name(t.limit)}, {"user", t.user}, {"queue", t.queue}, {"project", t.project}},
               static_cast<double>(t.proc_seconds));
}

void write_limits(MetricsText& out, const MetricsInput& in) {
  if (!in.policy || in.policy->limits.empty()) return;
  const auto& limits = in.policy->limits;
  out.family("lsf_limit_max", "gauge", "Each lsb.resources Limit's hard caps on slots and jobs (absent: none)");
  for (const auto& l : limits) {
    if (l.slots) out.sample("lsf_limit_max", {{"limit", l.name}, {"what", "slots"}}, *l.slots);
    if (l.jobs) out.sample("lsf_limit_max", {{"limit", l.name}, {"what", "jobs"}}, *l.jobs);
  }
  if (!in.view_reports) return;
  out.family("lsf_limit_use", "gauge",
             "What each Limit counts now, per consumer for PER_ consumers (blimits), from a view at most 15 s old");
  for (const auto& u : in.view_reports->limits) {
    if (u.limit >= limits.size()) continue;  // a view from before a reconfig
    const std::string& name = limits[u.limit].name;
    out.sample("lsf_limit_use",
               {{"limit", name},
                {"user", u.user},
                {"queue", u.queue},
                {"project", u.project},
                {"host", u.host},
                {"what", "slots"}},
               u.slots);
    out.sample("lsf_limit_use",
               {{"limit", name},
                {"user", u.user},
                {"queue", u.queue},
                {"project", u.project},
                {"host", u.host},
                {"what", "jobs"}},
               u.jobs);
  }
}

void write_shares(MetricsText& out, const MetricsInput& in) {
  if (!in.view_reports) return;
  const ViewReports& v = *in.view_reports;
  if (!v.shares.empty()) {
    out.family("lsf_fairshare_priority", "gauge",
               "Fairshare queues' dynamic priority per share account (bqueues -l), from a view at most 15 s old");
    std::vector<std::pair<const std::string*, const sched::ShareRow*>> rows;
    for (const auto& [queue, accounts] : v.shares) {
      std::vector<const sched::ShareRow*> sorted;
      for (const auto& r : accounts) sorted.push_back(&r);
      std::stable_sort(sorted.begin(), sorted.end(),
                       [](const sched::ShareRow* a, const sched::ShareRow* b) { return a->started > b->started; });
      if (sorted.size() > in.top_accounts) sorted.resize(in.top_accounts);
      for (const auto* r : sorted) rows.emplace_back(&queue, r);
    }
    for (const auto& [queue, r] : rows)
      out.sample("lsf_fairshare_priority", {{"queue", *queue}, {"account", r->name}}, r->priority);
    out.family("lsf_fairshare_started", "gauge", "Slots of started jobs per fairshare queue and share account");
    for (const auto& [queue, r] : rows)
      out.sample("lsf_fairshare_started", {{"queue", *queue}, {"account", r->name}}, r->started);
  }
  if (!v.pools.empty() && in.policy) {
    out.family("lsf_slot_pool", "gauge",
               "SLOT_POOL queues: SLOT_SHARE (percent), the slots the queue is entitled to now, uses, and the pool's");
    for (const auto& p : v.pools) {
      if (p.queue < 0 || static_cast<std::size_t>(p.queue) >= in.policy->queues.size()) continue;
      const std::string& queue = in.policy->queues[static_cast<std::size_t>(p.queue)].name;
      out.sample("lsf_slot_pool", {{"pool", p.pool}, {"queue", queue}, {"what", "share"}}, p.share);
      out.sample("lsf_slot_pool", {{"pool", p.pool}, {"queue", queue}, {"what", "entitled"}}, p.entitled);
      out.sample("lsf_slot_pool", {{"pool", p.pool}, {"queue", queue}, {"what", "used"}}, p.used);
      out.sample("lsf_slot_pool", {{"pool", p.pool}, {"queue", queue}, {"what", "total"}}, p.total);
    }
  }
}

void write_leases(MetricsText& out, const MetricsInput& in) {
  if (in.leases.empty()) return;
  out.family("lsf_mc_lease_slots", "gauge",
             "MultiCluster leases (bclusters): slots offered, by remote cluster, flow (EXPORT, IMPORT) and status");
  for (const auto& l : in.leases)
    out.sample("lsf_mc_lease_slots", {{"remote_cluster", l.remote_cluster}, {"flow", l.flow}, {"status", l.status}},
               l.slots);
  out.family("lsf_mc_lease_hosts", "gauge", "MultiCluster leases: hosts offered");
  for (const auto& l : in.leases)
    out.sample("lsf_mc_lease_hosts", {{"remote_cluster", l.remote_cluster}, {"flow", l.flow}, {"status", l.status}},
               l.hosts);
}

void write_health(MetricsText& out, const MetricsInput& in) {
  const HealthMetrics& h = in.health;
  out.family("lsf_mbatchd_uptime_seconds", "gauge", "Seconds since this mbatchd started");
  out.sample("lsf_mbatchd_uptime_seconds", h.uptime_s);
  out.family("lsf_mbatchd_submissions_total", "counter", "Jobs submitted since this mbatchd started");
  out.sample("lsf_mbatchd_submissions_total", static_cast<double>(h.submissions_total));
  out.family("lsf_mbatchd_sbatchds", "gauge", "Hosts whose sbatchd has registered with this mbatchd and is not lost");
  out.sample("lsf_mbatchd_sbatchds", h.sbatchds);
  out.family("lsf_mbatchd_connections", "gauge", "Client and daemon connections open to mbatchd's request port");
  out.sample("lsf_mbatchd_connections", static_cast<double>(h.connections));
  out.family("process_resident_memory_bytes", "gauge", "mbatchd's resident memory");
  out.sample("process_resident_memory_bytes", static_cast<double>(h.resident_bytes));
  if (!h.requests.empty()) {
    out.family("lsf_mbatchd_request_duration_seconds", "histogram",
               "Time from a request read to its reply, by request type (the field name in lsf.proto)");
    for (const auto& row : h.requests)
      out.histogram("lsf_mbatchd_request_duration_seconds", {{"type", row.name}}, row.seconds);
  }
  if (h.passes) {
    const PassCounters& p = *h.passes;
    out.family("lsf_sched_passes_total", "counter", "Scheduling passes since mbatchd started");
    out.sample("lsf_sched_passes_total", static_cast<double>(p.passes));
    out.family("lsf_sched_pass_duration_seconds", "histogram", "Time of each scheduling pass (the pass alone)");
    out.histogram("lsf_sched_pass_duration_seconds", {}, p.took_seconds);
    out.family("lsf_sched_jobs_dispatched_total", "counter", "Jobs the passes have started");
    out.sample("lsf_sched_jobs_dispatched_total", static_cast<double>(p.dispatched_total));
    out.family("lsf_sched_jobs_considered_total", "counter",
               "Jobs the passes have considered, summed (per pass: its rate over lsf_sched_passes_total's)");
    out.sample("lsf_sched_jobs_considered_total", static_cast<double>(p.considered_total));
    out.family("lsf_sched_last_pass_jobs", "gauge",
               "The last pass: jobs pending, considered, dispatched, reserved, preempted");
    out.sample("lsf_sched_last_pass_jobs", {{"what", "pending"}}, p.last_stats.jobs_pending);
    out.sample("lsf_sched_last_pass_jobs", {{"what", "considered"}}, p.last_stats.jobs_considered);
    out.sample("lsf_sched_last_pass_jobs", {{"what", "dispatched"}}, p.last_stats.dispatched);
    out.sample("lsf_sched_last_pass_jobs", {{"what", "reserved"}}, p.last_stats.reserved);
    out.sample("lsf_sched_last_pass_jobs", {{"what", "preempted"}}, p.last_stats.preempted);
  }
  const EventLogStats& log = h.event_log;
  out.family("lsf_event_log_records_total", "counter", "Records written to lsb.events since mbatchd started");
  out.sample("lsf_event_log_records_total", static_cast<double>(log.records));
  out.family("lsf_event_log_written_bytes_total", "counter", "Bytes written to lsb.events since mbatchd started");
  out.sample("lsf_event_log_written_bytes_total", static_cast<double>(log.bytes_written));
  out.family("lsf_event_log_bytes", "gauge", "Size of the current lsb.events");
  out.sample("lsf_event_log_bytes", static_cast<double>(log.bytes));
  out.family("lsf_event_log_rotations_total", "counter", "Snapshots written (lsb.events started afresh)");
  out.sample("lsf_event_log_rotations_total", static_cast<double>(log.rotations));
  out.family("lsf_event_log_sync_duration_seconds", "histogram", "Time of each group commit's fdatasync");
  out.histogram("lsf_event_log_sync_duration_seconds", {}, log.sync_seconds);
  if (h.snapshot_age_s >= 0) {
    out.family("lsf_event_log_snapshot_age_seconds", "gauge", "Seconds since the last snapshot was written");
    out.sample("lsf_event_log_snapshot_age_seconds", h.snapshot_age_s);
  }
}

}  // namespace

HostTotals total_hosts(const std::vector<HostMetrics>& hosts) {
  HostTotals t;
  for (const auto& h : hosts) {
    ++t.by_status[h.status];
    t.slots += h.slots;
    t.used_slots += h.used_slots;
    t.gpus += h.gpus;
    t.gpus_used += h.gpus_used;
  }
  return t;
}

std::string render_metrics(const MetricsInput& in) {
  MetricsText out;
  out.family("lsf_cluster_info", "gauge", "The cluster mbatchd serves (value always 1)");
  out.sample("lsf_cluster_info", {{"cluster", in.cluster}}, 1);
  write_jobs(out, in);
  write_queues(out, in);
  write_users(out, in);
  write_hosts(out, in);
  write_guarantees(out, in);
  write_throttles(out, in);
  write_limits(out, in);
  write_shares(out, in);
  write_leases(out, in);
  write_health(out, in);
  return out.take();
}

std::int64_t resident_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace lsf::mbd
