#include "daemons/common/daemon_config.h"

#include <iostream>

#include "daemons/common/cluster_endpoint.h"

namespace lsf::net {

std::filesystem::path daemon_envdir(const std::string& envdir_option) {
  return envdir_option.empty() ? envdir_from_environment() : std::filesystem::path(envdir_option);
}

config::LoadResult load_daemon_config(const std::string& daemon, const std::filesystem::path& envdir) {
  config::LoadOptions lo;
  lo.envdir = envdir;
  lo.now = config::local_week_instant();
  auto loaded = config::load_cluster_config(lo);
  if (!loaded.usable())
    std::cerr << loaded.diagnostics.to_string() << daemon
              << ": there are fatal errors in the configuration; not started\n";
  return loaded;
}

}  // namespace lsf::net
