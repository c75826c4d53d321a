// The MultiCluster provider's side as far as it goes today: what lsb.resources exports to
// each consumer (HostExport, SharedResourceExport), worked out from the hosts as they are
// now, for bhosts -e. No consumer is reached yet (there is no cluster-to-cluster link),
// so every export shows "disc" and the provider keeps the resources, as a provider that
// cannot reach a consumer does.
#include <algorithm>

#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/host_resolution.h"
#include "libsched/limit_usage.h"

namespace lsf::mbd {

sched::mc::ExportPlan Mbatchd::export_plan() const {
  sched::mc::ExportInput in;
  const sched::ClusterView view = build_view(false);
  for (const auto& h : view.hosts) {
    sched::mc::ProviderHost p;
    p.view = h;
    const int mxj = host_max_slots(h.name);
    p.slots = mxj >= 0 ? mxj : std::max(h.ncpus, 1);
    in.hosts.push_back(std::move(p));
  }
  for (const auto& e : config_->host_exports) {
    const auto names = config::resolve_host_list(*config_, e.per_host);
    in.per_host.emplace_back(names.begin(), names.end());
  }
  const auto reserved = sched::shared_resource_usage(view, now());
  for (const auto& [name, total] : config_index_.policy->shared_resources) {
    auto it = reserved.find(name);
    in.available_instances[name] = std::max(0.0, total - (it == reserved.end() ? 0.0 : it->second));
  }
  return sched::mc::plan_exports(config_->host_exports, config_->shared_resource_exports, in);
}

void Mbatchd::on_exports(const wire::RequestEnvelope&, const net::Responder& respond) {
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
    h->set_status(g.reachable ? "ok" : "disc");
  }
  for (const auto& r : plan.resources) {
    auto* e = out->add_resources();
    e->set_name(r.resource);
    e->set_consumer(r.cluster);
    e->set_instances(r.instances);
    e->set_status(r.reachable ? "ok" : "disc");
  }
  respond(reply);
}

}  // namespace lsf::mbd
