#include "daemons/mbatchd/config_index.h"

#include <variant>

#include "libconfig/host_resolution.h"

namespace lsf::mbd {

ConfigIndex index_config(const config::ClusterConfig& cfg) {
  ConfigIndex index;
  for (const auto& h : cfg.hosts) {
    auto& res = index.host_static[h.name];
    for (const char* name : {"hname", "type", "model", "cpuf", "server", "ndisks"}) {
      auto v = config::static_host_resource(cfg, h, name);
      if (!std::holds_alternative<std::monostate>(v)) res[name] = v;
    }
    for (const auto& r : h.resources) {
      auto eq = r.find('=');
      if (eq == std::string::npos)
        res[r.substr(r[0] == '!' ? 1 : 0)] = 1.0;
      else
        res[r.substr(0, eq)] = r.substr(eq + 1);
    }
  }
  index.policy = sched::build_policy(cfg);
  return index;
}

}  // namespace lsf::mbd
