#include "libsched/mc/export_plan.h"

#include <algorithm>
#include <string_view>
#include <variant>

namespace lsf::sched::mc {
namespace {

bool reported(const HostView& h) { return !unreachable(h.status); }

bool is_dlinux(const HostView& h) {
  auto it = h.resources.find("type");
  if (it == h.resources.end()) return false;
  const auto* type = std::get_if<std::string>(&it->second);
  return type && *type == "DLINUX";
}

bool selects(const config::HostExport& e, const HostView& h) {
  if (!e.res_select || e.res_select->select.empty()) return true;
  auto lookup = [&h](std::string_view name) -> config::ResourceValue {
    auto it = h.resources.find(name);
    return it == h.resources.end() ? config::ResourceValue{} : it->second;
  };
  return e.res_select->select.matches(lookup);
}

std::vector<double> shares_of(const std::vector<config::ShareAssignment>& distribution) {
  std::vector<double> shares;
  for (const auto& d : distribution) shares.push_back(d.amount > 0 ? d.amount : 0);
  return shares;
}

// PER_HOST + SLOTS: each named host's slots dealt among the consumers.
void plan_per_host(int index, const config::HostExport& e, const ExportInput& in, std::vector<bool>& taken,
                   ExportPlan& plan) {
  const auto shares = shares_of(e.distribution);
  for (size_t h = 0; h < in.hosts.size(); ++h) {
    const ProviderHost& host = in.hosts[h];
    if (taken[h] || !in.per_host[static_cast<size_t>(index)].count(host.view.name)) continue;
    if (!reported(host.view) || (is_dlinux(host.view) && !e.swp_mb)) continue;
    taken[h] = true;
    const int slots = std::min(e.slots.value_or(host.slots), host.slots);
    const auto dealt = deal(slots, shares);
    for (size_t c = 0; c < dealt.size(); ++c) {
      if (dealt[c] == 0) continue;
      HostGrant g;
      g.export_index = index;
      g.host = host.view.name;
      g.cluster = e.distribution[c].name;
      g.slots = dealt[c];
      g.shared = e.shared;
      // MEM and SWP follow the slots: a consumer with half the slots has half of them.
      g.mem_mb = e.mem_mb.value_or(0) * dealt[c] / std::max(slots, 1);
      g.swp_mb = e.swp_mb.value_or(0) * dealt[c] / std::max(slots, 1);
      plan.hosts.push_back(g);
    }
  }
}

// RES_SELECT + NHOSTS: whole hosts, each to one consumer; hosts that run a consumer's
// jobs are kept for it first, so choosing again does not move running work.
void plan_res_select(int index, const config::HostExport& e, const ExportInput& in, std::vector<bool>& taken,
                     ExportPlan& plan) {
  std::vector<size_t> matching;
  for (size_t h = 0; h < in.hosts.size(); ++h) {
    const HostView& v = in.hosts[h].view;
    if (taken[h] || !reported(v) || (is_dlinux(v) && !e.swp_mb) || !selects(e, v)) continue;
    matching.push_back(h);
  }
  const int count = std::min(e.nhosts.value_or(0), static_cast<int>(matching.size()));
  const auto shares = shares_of(e.distribution);
  const auto target = deal(count, shares);
  std::vector<int> given(target.size(), 0);
  std::vector<int> owner(in.hosts.size(), -1);
  for (size_t h : matching)
    for (size_t c = 0; c < e.distribution.size(); ++c) {
      auto it = in.hosts[h].consumer_slots.find(e.distribution[c].name);
      if (it == in.hosts[h].consumer_slots.end() || it->second <= 0 || given[c] >= target[c]) continue;
      owner[h] = static_cast<int>(c);
      ++given[c];
      break;
    }
  for (size_t h : matching) {
    if (owner[h] >= 0) continue;
    // The consumer furthest below its part takes the next host.
    int best = -1;
    for (size_t c = 0; c < target.size(); ++c)
      if (given[c] < target[c] && (best < 0 || shares[c] * (given[static_cast<size_t>(best)] + 1) >
                                                   shares[static_cast<size_t>(best)] * (given[c] + 1)))
        best = static_cast<int>(c);
    if (best < 0) break;
    owner[h] = best;
    ++given[static_cast<size_t>(best)];
  }
  for (size_t h : matching) {
    if (owner[h] < 0) continue;
    taken[h] = true;
    HostGrant g;
    g.export_index = index;
    g.host = in.hosts[h].view.name;
    g.cluster = e.distribution[static_cast<size_t>(owner[h])].name;
    g.slots = in.hosts[h].slots;
    g.whole_host = true;
    g.shared = e.shared;
    g.mem_mb = e.mem_mb.value_or(0);
    g.swp_mb = e.swp_mb.value_or(0);
    plan.hosts.push_back(g);
  }
}

void plan_resource(const config::SharedResourceExport& e, const ExportInput& in, ExportPlan& plan) {
  auto avail = in.available_instances.find(e.name);
  if (avail == in.available_instances.end()) return;
  const double ninstances = e.ninstances ? *e.ninstances : avail->second;
  const int amount = static_cast<int>(std::max(0.0, std::min(ninstances, avail->second)));
  auto located = in.resource_hosts.find(e.name);
  // Only consumers that receive a host holding the resource can use it.
  auto holds = [&](const std::string& cluster) {
    for (const auto& g : plan.hosts)
      if (g.cluster == cluster &&
          (located == in.resource_hosts.end() || located->second.empty() || located->second.count(g.host)))
        return true;
    return false;
  };
  std::vector<double> shares;
  for (const auto& d : e.distribution) shares.push_back(holds(d.name) && d.amount > 0 ? d.amount : 0);
  const auto dealt = deal(amount, shares);
  for (size_t c = 0; c < dealt.size(); ++c)
    if (dealt[c] > 0) plan.resources.push_back({e.name, e.distribution[c].name, static_cast<double>(dealt[c]), true});
}

}  // namespace

std::vector<int> deal(int amount, const std::vector<double>& shares) {
  std::vector<int> given(shares.size(), 0);
  for (int unit = 0; unit < amount; ++unit) {
    int best = -1;
    for (size_t c = 0; c < shares.size(); ++c)
      if (shares[c] > 0 && (best < 0 || shares[c] * (given[static_cast<size_t>(best)] + 1) >
                                            shares[static_cast<size_t>(best)] * (given[c] + 1)))
        best = static_cast<int>(c);
    if (best < 0) break;
    ++given[static_cast<size_t>(best)];
  }
  return given;
}

int ExportPlan::exported_slots(std::string_view host) const {
  int slots = 0;
  for (const auto& g : hosts)
    if (g.host == host && g.reachable) slots += g.slots;
  return slots;
}

ExportPlan plan_exports(const std::vector<config::HostExport>& host_exports,
                        const std::vector<config::SharedResourceExport>& resource_exports, const ExportInput& in) {
  ExportPlan plan;
  std::vector<bool> taken(in.hosts.size(), false);
  for (size_t i = 0; i < host_exports.size(); ++i) {
    const auto& e = host_exports[i];
    if (e.res_select)
      plan_res_select(static_cast<int>(i), e, in, taken, plan);
    else if (i < in.per_host.size())
      plan_per_host(static_cast<int>(i), e, in, taken, plan);
  }
  for (const auto& e : resource_exports) plan_resource(e, in, plan);
  for (auto& g : plan.hosts) g.reachable = in.reachable.count(g.cluster) > 0;
  for (auto& r : plan.resources) r.reachable = in.reachable.count(r.cluster) > 0;
  return plan;
}

}  // namespace lsf::sched::mc
