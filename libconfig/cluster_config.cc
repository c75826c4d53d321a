#include "libconfig/cluster_config.h"

#include <algorithm>

namespace lsf::config {
namespace {

template <typename T>
const T* find_named(const std::vector<T>& items, std::string_view name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == name; });
  return it == items.end() ? nullptr : &*it;
}

}  // namespace

std::optional<std::string> LsfConf::get(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

const Queue* ClusterConfig::find_queue(std::string_view name) const { return find_named(queues, name); }
const ClusterHost* ClusterConfig::find_host(std::string_view name) const { return find_named(hosts, name); }
const HostGroup* ClusterConfig::find_host_group(std::string_view name) const { return find_named(host_groups, name); }
const UserGroup* ClusterConfig::find_user_group(std::string_view name) const { return find_named(user_groups, name); }
const ServiceClass* ClusterConfig::find_service_class(std::string_view name) const {
  return find_named(service_classes, name);
}
const Application* ClusterConfig::find_application(std::string_view name) const {
  return find_named(applications, name);
}
const HostModel* ClusterConfig::find_host_model(std::string_view name) const { return find_named(host_models, name); }
const ResourceDef* ClusterConfig::find_resource(std::string_view name) const { return find_named(resources, name); }
bool ClusterConfig::is_host_type(std::string_view name) const {
  return std::find(host_types.begin(), host_types.end(), name) != host_types.end();
}
bool ClusterConfig::is_peer_cluster(std::string_view name) const {
  if (name == cluster_name) return false;
  if (std::none_of(clusters.begin(), clusters.end(), [&](const ClusterDef& c) { return c.name == name; })) return false;
  return remote_clusters.empty() || std::any_of(remote_clusters.begin(), remote_clusters.end(),
                                                [&](const RemoteCluster& r) { return r.name == name; });
}

bool ClusterConfig::takes_spanning_jobs_from(std::string_view name) const {
  for (const auto& r : remote_clusters)
    if (r.name == name) return r.recv_from;
  return true;
}

bool ClusterConfig::is_known_cluster(std::string_view name) const {
  if (name == cluster_name) return true;
  for (const auto& c : clusters)
    if (c.name == name) return true;
  for (const auto& r : remote_clusters)
    if (r.name == name) return true;
  return false;
}

}  // namespace lsf::config
