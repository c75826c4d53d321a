#include "libconfig/summary.h"

#include <algorithm>
#include <map>

#include "libconfig/host_resolution.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

std::string opt(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

std::string render_config_summary(const ClusterConfig& c) {
  std::string out;
  out += "Cluster: " + c.cluster_name + "\n";
  out += "Administrators: " + (c.cluster_admins.empty() ? std::string("-") : join(c.cluster_admins, " ")) + "\n";

  out += "Hosts (" + std::to_string(c.hosts.size()) + "):\n";
  for (const auto& h : c.hosts) {
    out += "  " + h.name + "  model=" + (h.model.empty() ? "-" : h.model) + " type=" + (h.type.empty() ? "-" : h.type) +
           " server=" + (h.server ? "yes" : "no");
    if (!h.resources.empty()) out += " resources=(" + join(h.resources, " ") + ")";
    out += "\n";
  }
  if (!c.host_groups.empty()) {
    out += "Host groups:\n";
    for (const auto& g : c.host_groups) {
      auto members = resolve_host_list(c, g.members);
      out += "  " + g.name + ": " + (g.external ? "(egroup)" : join({members.begin(), members.end()}, " ")) + "\n";
    }
  }

  std::vector<const Queue*> queues;
  for (const auto& q : c.queues) queues.push_back(&q);
  std::stable_sort(queues.begin(), queues.end(),
                   [](const Queue* a, const Queue* b) { return a->priority > b->priority; });
  out += "Queues (" + std::to_string(queues.size()) + ", by priority):\n";
  for (const Queue* q : queues) {
    out += "  " + q->name + "  priority=" + std::to_string(q->priority);
    if (!q->hosts.empty()) out += " hosts=(" + format_host_list(q->hosts) + ")";
    if (q->qjob_limit) out += " QJOB_LIMIT=" + std::to_string(*q->qjob_limit);
    if (q->ujob_limit) out += " UJOB_LIMIT=" + std::to_string(*q->ujob_limit);
    if (!q->run_window.always_open()) out += " RUN_WINDOW=(" + q->run_window.to_string() + ")";
    if (!q->dispatch_window.always_open()) out += " DISPATCH_WINDOW=(" + q->dispatch_window.to_string() + ")";
    if (q->fairshare) out += " FAIRSHARE=USER_SHARES[" + format_shares(*q->fairshare) + "]";
    if (!q->slot_pool.empty()) out += " SLOT_POOL=" + q->slot_pool;
    if (q->slot_share) out += " SLOT_SHARE=" + format_number(*q->slot_share);
    if (q->backfill) out += " BACKFILL";
    if (q->exclusive) out += " EXCLUSIVE";
    if (q->res_req) out += " RES_REQ=\"" + q->res_req->to_string() + "\"";
    if (q->gpu_req) out += " GPU_REQ=\"" + q->gpu_req->to_string() + "\"";
    out += "\n";
  }
  if (!c.params.default_queues.empty()) out += "Default queue: " + join(c.params.default_queues, " ") + "\n";

  std::map<std::string, std::vector<const Queue*>> slot_pools;
  for (const auto& q : c.queues)
    if (!q.slot_pool.empty()) slot_pools[q.slot_pool].push_back(&q);
  if (!slot_pools.empty()) {
    out += "Slot pools:\n";
    for (const auto& [name, members] : slot_pools) {
      out += "  " + name + ":";
      for (const Queue* q : members)
        out += " " + q->name + "=" + (q->slot_share ? format_number(*q->slot_share) : "?") + "%";
      out += "\n";
    }
  }
  if (!c.guarantee_pools.empty()) {
    out += "Guarantee pools:\n";
    for (const auto& p : c.guarantee_pools) {
      auto hosts = resolve_host_list(c, p.hosts.empty() ? parse_host_list("all").value() : p.hosts);
      out += "  " + p.name + "  type=" + p.type.to_string() + " hosts=" + std::to_string(hosts.size()) +
             " distribution=" + format_shares(p.distribution);
      if (p.loan_policies) out += " loans=" + p.loan_policies->to_string();
      out += "\n";
    }
  }
  if (!c.limits.empty()) {
    out += "Limits (" + std::to_string(c.limits.size()) + "):\n";
    for (const auto& l : c.limits) {
      out += "  " + (l.name.empty() ? std::string("(unnamed)") : l.name) + ":";
      if (!l.users.empty()) out += std::string(l.per_user ? " PER_USER=" : " USERS=") + format_user_list(l.users);
      if (!l.queues.empty()) out += std::string(l.per_queue ? " PER_QUEUE=" : " QUEUES=") + join(l.queues, " ");
      if (!l.hosts.empty()) out += std::string(l.per_host ? " PER_HOST=" : " HOSTS=") + format_host_list(l.hosts);
      if (!l.projects.empty())
        out += std::string(l.per_project ? " PER_PROJECT=" : " PROJECTS=") + join(l.projects, " ");
      if (l.slots) out += " SLOTS=" + std::to_string(*l.slots);
      if (l.jobs) out += " JOBS=" + std::to_string(*l.jobs);
      if (l.mem) out += " MEM=" + format_number(*l.mem) + (l.mem_percent ? "%" : "");
      if (!l.resources.empty()) out += " RESOURCE=" + format_shares(l.resources);
      out += "\n";
    }
  }
  if (!c.host_exports.empty() || !c.shared_resource_exports.empty()) {
    out += "Exports:\n";
    for (const auto& e : c.host_exports) {
      out += std::string("  hosts ") + (e.shared ? "shared" : "exclusive") + ": ";
      out += e.per_host.empty() ? "RES_SELECT[" + e.res_select->select.to_string() + "] NHOSTS=" + opt(e.nhosts)
                                : "PER_HOST=" + format_host_list(e.per_host);
      if (e.slots) out += " SLOTS=" + std::to_string(*e.slots);
      out += " DISTRIBUTION=" + format_shares(e.distribution) + "\n";
    }
    for (const auto& e : c.shared_resource_exports)
      out += "  resource " + e.name + ": NINSTANCES=" + opt(e.ninstances) +
             " DISTRIBUTION=" + format_shares(e.distribution) + "\n";
  }
  if (!c.service_classes.empty()) {
    out += "Service classes:\n";
    for (const auto& sc : c.service_classes)
      out += "  " + sc.name + "  goals=" + join(sc.goals, " ") + (sc.auto_attach ? " AUTO_ATTACH" : "") + "\n";
  }
  out += "Scheduler modules: ";
  if (c.modules.empty()) {
    out += "schmod_default schmod_fcfs (LSF's default set)\n";
  } else {
    std::vector<std::string> names;
    for (const auto& m : c.modules) names.push_back(m.name);
    out += join(names, " ") + "\n";
  }
  return out;
}

}  // namespace lsf::config
