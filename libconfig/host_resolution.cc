#include "libconfig/host_resolution.h"

#include <functional>
#include <map>

namespace lsf::config {
namespace {

// One resolve_host_list call's state. `visiting` holds the groups and compute units
// being expanded, from the outermost list down: one met again is a cycle (reported by
// the checks) and adds nothing. `hosts_of` keeps each one's hosts once expanded, so
// groups nested as a lattice expand in time linear in their number, not their paths.
struct Expansion {
  std::set<std::string> visiting;
  std::map<std::string, std::set<std::string>> hosts_of;
};

std::set<std::string> resolve(const ClusterConfig& config, const std::vector<HostListItem>& items, Expansion& x);

void add_members(const ClusterConfig& config, const std::string& name, const std::vector<HostListItem>& members,
                 std::set<std::string>& out, Expansion& x) {
  auto known = x.hosts_of.find(name);
  if (known == x.hosts_of.end()) {
    if (!x.visiting.insert(name).second) return;
    auto hosts = resolve(config, members, x);
    x.visiting.erase(name);
    known = x.hosts_of.emplace(name, std::move(hosts)).first;
  }
  out.insert(known->second.begin(), known->second.end());
}

void add_name(const ClusterConfig& config, const std::string& name, std::set<std::string>& out, Expansion& x) {
  if (const HostGroup* g = config.find_host_group(name)) return add_members(config, name, g->members, out, x);
  if (config.find_host(name)) {
    out.insert(name);
    return;
  }
  for (const auto& cu : config.compute_units)
    if (cu.name == name) return add_members(config, name, cu.members, out, x);
  for (const auto& h : config.hosts)
    if (h.model == name || h.type == name) out.insert(h.name);
}

std::set<std::string> resolve(const ClusterConfig& config, const std::vector<HostListItem>& items, Expansion& x) {
  std::set<std::string> in, out, named;
  bool others = false;
  for (const auto& item : items) {
    if (!item.cluster.empty()) continue;  // borrowed hosts are not this cluster's
    std::set<std::string> these;
    switch (item.kind) {
      case HostListItem::Kind::kAll:
        for (const auto& h : config.hosts) these.insert(h.name);
        break;
      case HostListItem::Kind::kName:
        add_name(config, item.name, these, x);
        break;
      case HostListItem::Kind::kOthers:
        others = true;
        break;
      case HostListItem::Kind::kNone:
      case HostListItem::Kind::kAllRemote:
        break;
    }
    if (item.exclude) {
      out.insert(these.begin(), these.end());
    } else {
      named.insert(these.begin(), these.end());
      in.insert(these.begin(), these.end());
    }
  }
  if (others)
    for (const auto& h : config.hosts)
      if (!named.count(h.name)) in.insert(h.name);
  for (const auto& h : out) in.erase(h);
  return in;
}

}  // namespace

std::set<std::string> resolve_host_list(const ClusterConfig& config, const std::vector<HostListItem>& items) {
  Expansion x;
  return resolve(config, items, x);
}

ResourceValue static_host_resource(const ClusterConfig& config, const ClusterHost& host, std::string_view name) {
  if (name == "hname") return host.name;
  if (name == "type") return host.type.empty() ? ResourceValue{} : ResourceValue{host.type};
  if (name == "model") return host.model.empty() ? ResourceValue{} : ResourceValue{host.model};
  if (name == "server") return host.server ? 1.0 : 0.0;
  if (name == "ndisks" && host.nd) return static_cast<double>(*host.nd);
  if (name == "cpuf") {
    if (const HostModel* m = config.find_host_model(host.model)) return m->cpu_factor;
    return ResourceValue{};
  }
  for (const auto& r : host.resources) {
    std::string_view res = r;
    if (!res.empty() && res.front() == '!') res.remove_prefix(1);
    size_t eq = res.find('=');
    if (eq == std::string_view::npos) {
      if (res == name) return 1.0;
    } else if (res.substr(0, eq) == name) {
      return std::string(res.substr(eq + 1));
    }
  }
  if (const ResourceDef* def = config.find_resource(name); def && def->type == ResourceDef::Type::kBoolean)
    return 0.0;  // a Boolean the host does not have
  return ResourceValue{};
}

bool statically_decidable(const ClusterConfig& config, const SelectExpr& expr) {
  bool decidable = true;
  expr.for_each_name([&](const std::string& name) {
    if (name == "hname" || name == "type" || name == "model" || name == "server" || name == "cpuf" ||
        name == "ndisks" || name == "any" || name == "local")
      return;
    const ResourceDef* def = config.find_resource(name);
    if (def && def->type != ResourceDef::Type::kNumeric && !def->interval) return;
    // Model and type names used as values (`type==LINUX`) are literals, not resources.
    if (config.find_host_model(name) || config.is_host_type(name)) return;
    decidable = false;
  });
  return decidable;
}

}  // namespace lsf::config
