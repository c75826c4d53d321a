// The dashboard's JSON: see dashboard.h.
#include "daemons/mbatchd/dashboard.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "daemons/mbatchd/json_text.h"

namespace lsf::mbd {
namespace {

std::string tally_json(const std::array<int, StateTally::kStates>& counts) {
  std::string out = "{";
  for (int i = 0; i < StateTally::kStates; ++i)
    out += std::string(i ? "," : "") + json_string(kTallyStates[i]) + ":" + std::to_string(counts[i]);
  return out + "}";
}

std::string queues_json(const DashboardInput& in) {
  const auto& queues = in.metrics->state->queues();
  std::string out = "[";
  bool first = true;
  for (const auto& [name, priority] : in.queue_priorities) {
    auto it = queues.find(name);
    if (it == queues.end()) continue;
    const QueueState& q = it->second;
    out += std::string(first ? "" : ",") + "{\"name\":" + json_string(name) +
           ",\"priority\":" + std::to_string(priority) + ",\"open\":" + (q.open ? "true" : "false") +
           ",\"active\":" + (q.active ? "true" : "false") + ",\"jobs\":" + tally_json(q.tally.jobs) +
           ",\"slots\":" + tally_json(q.tally.slots) + "}";
    first = false;
  }
  return out + "]";
}

std::string pools_json(const MetricsInput& m) {
  std::string out = "[";
  if (m.guarantees)
    for (std::size_t k = 0; k < m.guarantees->size(); ++k) {
      const auto& g = (*m.guarantees)[k];
      std::string owners = "[";
      for (std::size_t o = 0; o < g.owners.size(); ++o)
        owners += std::string(o ? "," : "") + "{\"service_class\":" + json_string(g.owners[o].service_class) +
                  ",\"guaranteed\":" + std::to_string(g.owners[o].guaranteed) +
                  ",\"used\":" + std::to_string(g.owners[o].used) + "}";
      out += std::string(k ? "," : "") + "{\"pool\":" + json_string(g.pool) + ",\"type\":" + json_string(g.type) +
             ",\"total\":" + std::to_string(g.total) + ",\"free\":" + std::to_string(g.free) +
             ",\"owner_slots\":" + std::to_string(g.owner_use.slots) +
             ",\"loan_slots\":" + std::to_string(g.loan_use.slots) +
             ",\"other_slots\":" + std::to_string(g.other_use.slots) + ",\"owners\":" + owners + "]}";
    }
  return out + "]";
}

std::string slot_pools_json(const MetricsInput& m) {
  std::string out = "[";
  if (m.view_reports && m.policy)
    for (const auto& p : m.view_reports->pools) {
      if (p.queue < 0 || static_cast<std::size_t>(p.queue) >= m.policy->queues.size()) continue;
      out += std::string(out.size() > 1 ? "," : "") + "{\"pool\":" + json_string(p.pool) +
             ",\"queue\":" + json_string(m.policy->queues[static_cast<std::size_t>(p.queue)].name) +
             ",\"share\":" + json_number(p.share) + ",\"entitled\":" + std::to_string(p.entitled) +
             ",\"used\":" + std::to_string(p.used) + ",\"total\":" + std::to_string(p.total) + "}";
    }
  return out + "]";
}

std::string passes_json(const MetricsInput& m) {
  const PassCounters* p = m.health.passes;
  if (!p) return "{\"total\":0,\"recent\":[]}";
  std::string out = "{\"total\":" + std::to_string(p->passes) +
                    ",\"p50_ms\":" + json_number(p->took_seconds.quantile(0.5) * 1000) +
                    ",\"p99_ms\":" + json_number(p->took_seconds.quantile(0.99) * 1000) + ",\"recent\":[";
  bool first = true;
  for (auto it = p->recent.rbegin(); it != p->recent.rend(); ++it) {  // newest first
    out += std::string(first ? "" : ",") + "{\"time\":" + std::to_string(it->time) + ",\"ms\":" + json_number(it->ms) +
           ",\"pending\":" + std::to_string(it->pending) + ",\"considered\":" + std::to_string(it->considered) +
           ",\"dispatched\":" + std::to_string(it->dispatched) + "}";
    first = false;
  }
  return out + "]}";
}

std::string history_json(const DashboardInput& in) {
  std::string out = "[";
  if (in.history)
    for (std::size_t k = 0; k < in.history->size(); ++k) {
      const HistorySample& s = (*in.history)[k];
      std::string run = "{";
      for (std::size_t q = 0; q < s.run_slots.size(); ++q)
        run +=
            std::string(q ? "," : "") + json_string(s.run_slots[q].first) + ":" + std::to_string(s.run_slots[q].second);
      out += std::string(k ? "," : "") + "{\"time\":" + std::to_string(s.time) +
             ",\"pending\":" + std::to_string(s.pending_jobs) + ",\"pass_ms\":" + json_number(s.pass_ms) +
             ",\"run\":" + run + "}}";
    }
  return out + "]";
}

}  // namespace

std::vector<std::pair<std::string, int>> group_pending_reasons(const ClusterState& state, std::size_t limit) {
  std::unordered_map<const std::string*, int> by_object;
  int none = 0;
  for (const auto& [key, job] : state.pending()) {
    if (job->pending_reason)
      ++by_object[job->pending_reason.get()];
    else
      ++none;
  }
  std::map<std::string, int> by_text;
  for (const auto& [reason, n] : by_object) by_text[*reason] += n;
  if (none > 0) by_text["(no reason yet)"] += none;
  std::vector<std::pair<std::string, int>> out(by_text.begin(), by_text.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::string dashboard_state_json(const DashboardInput& in) {
  const MetricsInput& m = *in.metrics;
  const ClusterState& state = *m.state;
  const HostTotals totals = total_hosts(m.hosts);
  std::string hosts = "{";
  for (const auto& [status, n] : totals.by_status)
    hosts += std::string(hosts.size() > 1 ? "," : "") + json_string(status) + ":" + std::to_string(n);
  hosts += "}";
  std::string reasons = "[";
  for (std::size_t k = 0; k < in.pending_reasons.size(); ++k)
    reasons += std::string(k ? "," : "") + "{\"reason\":" + json_string(in.pending_reasons[k].first) +
               ",\"jobs\":" + std::to_string(in.pending_reasons[k].second) + "}";
  reasons += "]";
  const HealthMetrics& h = m.health;
  return "{\"cluster\":" + json_string(m.cluster) + ",\"master\":" + json_string(in.master) +
         ",\"time\":" + std::to_string(in.now) + ",\"jobs\":" + tally_json(state.tally().jobs) +
         ",\"job_slots\":" + tally_json(state.tally().slots) + ",\"hosts\":" + hosts +
         ",\"slots\":{\"total\":" + std::to_string(totals.slots) + ",\"used\":" + std::to_string(totals.used_slots) +
         "},\"gpus\":{\"total\":" + std::to_string(totals.gpus) + ",\"used\":" + std::to_string(totals.gpus_used) +
         "},\"queues\":" + queues_json(in) + ",\"pending_reasons\":" + reasons + ",\"pools\":" + pools_json(m) +
         ",\"slot_pools\":" + slot_pools_json(m) + ",\"passes\":" + passes_json(m) +
         ",\"history\":" + history_json(in) + ",\"health\":{\"uptime_s\":" + json_number(h.uptime_s) +
         ",\"submissions\":" + std::to_string(h.submissions_total) + ",\"sbatchds\":" + std::to_string(h.sbatchds) +
         ",\"connections\":" + std::to_string(h.connections) +
         ",\"resident_bytes\":" + std::to_string(h.resident_bytes) +
         ",\"log_records\":" + std::to_string(h.event_log.records) +
         ",\"log_bytes\":" + std::to_string(h.event_log.bytes) + "}}";
}

std::string dashboard_hosts_json(const std::vector<HostMetrics>& hosts, const std::vector<HostLoad>& loads) {
  std::string out = "[";
  for (std::size_t k = 0; k < hosts.size(); ++k) {
    const HostMetrics& h = hosts[k];
    const HostLoad load = k < loads.size() ? loads[k] : HostLoad{};
    out += std::string(k ? "," : "") + "{\"name\":" + json_string(h.name) + ",\"status\":" + json_string(h.status) +
           ",\"slots\":" + std::to_string(h.slots) + ",\"used\":" + std::to_string(h.used_slots) +
           ",\"gpus\":" + std::to_string(h.gpus) + ",\"gpus_used\":" + std::to_string(h.gpus_used) +
           ",\"r1m\":" + json_number(load.r1m) + ",\"ut\":" + json_number(load.ut) +
           ",\"mem_mb\":" + json_number(load.mem_mb) + ",\"maxmem_mb\":" + json_number(load.maxmem_mb) + "}";
  }
  return out + "]";
}

}  // namespace lsf::mbd
