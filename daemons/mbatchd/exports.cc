// The MultiCluster provider's exports: what lsb.resources gives each consumer
// (HostExport, SharedResourceExport), worked out from the hosts as they are now, for
// bhosts -e and the offers of cluster_links.cc. A consumer not reached gets nothing
// ("disc"); a reached one is offered its part ("conn"). Hosts that already run a
// consumer's jobs stay with it when hosts are chosen again (lease_jobs.cc).
#include <algorithm>
#include <set>

#include "daemons/mbatchd/cluster_links.h"
#include "libconfig/host_resolution.h"
#include "libconfig/text.h"
#include "libsched/limit_usage.h"

namespace lsf::mbd {

sched::mc::ExportPlan ClusterLinks::export_plan() const {
  std::set<std::string, std::less<>> reached;
  for (const auto& [name, link] : links_)
    if (link.reached) reached.insert(name);
  return export_plan(reached);
}

sched::mc::ExportPlan ClusterLinks::export_plan(const std::set<std::string, std::less<>>& reached) const {
  sched::mc::ExportInput in;
  in.reachable = reached;
  const sched::ClusterView view = hooks_.view();
  std::map<std::string, std::map<std::string, int, std::less<>>> consumer_slots;  // by host
  for (const auto& h : holdings()) consumer_slots[h.host][h.consumer] += h.slots;
  for (const auto& h : view.hosts) {
    if (!h.cluster.empty()) continue;  // borrowed: not this cluster's to export
    sched::mc::ProviderHost p;
    if (auto it = consumer_slots.find(h.name); it != consumer_slots.end()) p.consumer_slots = it->second;
    p.view = h;
    const int mxj = hooks_.max_slots(h.name);
    p.slots = mxj >= 0 ? mxj : std::max(h.ncpus, 1);
    in.hosts.push_back(std::move(p));
  }
  for (const auto& e : conf().host_exports) {
    const auto names = config::resolve_host_list(conf(), e.per_host);
    in.per_host.emplace_back(names.begin(), names.end());
  }
  const auto reserved = sched::shared_resource_usage(view, ctx_.sink.now());
  const auto policy = hooks_.policy();
  for (const auto& [name, total] : policy->shared_resources) {
    auto it = reserved.find(name);
    in.available_instances[name] = std::max(0.0, total - (it == reserved.end() ? 0.0 : it->second));
  }
  // `4@[hostB hostC]`: instances that only those hosts reach. The pass does not count
  // their use yet, so all of them are available to export.
  for (const auto& entry : conf().resource_map) {
    if (in.available_instances.count(entry.resource)) continue;
    double total = 0;
    for (const auto& loc : entry.locations) {
      if (loc.value.empty()) continue;
      const auto value = config::parse_double(loc.value);
      if (!value) continue;
      total += *value;
      const auto names = config::resolve_host_list(conf(), loc.hosts);
      in.resource_hosts[entry.resource].insert(names.begin(), names.end());
    }
    if (total > 0) in.available_instances[entry.resource] = total;
  }
  return sched::mc::plan_exports(conf().host_exports, conf().shared_resource_exports, in);
}

void ClusterLinks::on_exports(const wire::RequestEnvelope&, const net::Responder& respond) {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_exports();
  const auto plan = export_plan();
  for (const auto& g : plan.hosts) {
    auto* h = out->add_hosts();
    h->set_host(g.host);
    h->set_consumer(g.cluster);
    h->set_slots(g.slots);
    h->set_whole_host(g.whole_host);
    h->set_shared(g.shared);
    h->set_mem_mb(g.mem_mb);
    h->set_swp_mb(g.swp_mb);
    h->set_status(g.reachable ? "conn" : "disc");
  }
  for (const auto& r : plan.resources) {
    auto* e = out->add_resources();
    e->set_name(r.resource);
    e->set_consumer(r.cluster);
    e->set_instances(r.instances);
    e->set_status(r.reachable ? "conn" : "disc");
  }
  respond(reply);
}

}  // namespace lsf::mbd
