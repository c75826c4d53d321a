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

DaemonAuth daemon_auth(const std::filesystem::path& envdir, const config::LsfConf& conf) {
  DaemonAuth a;
  auto loaded = load_cluster_key(envdir);
  auto mode = conf.get("LSF_AUTH");
  a.trust_unsigned = mode && *mode == "none";
  const std::string file = (envdir / "lsf.sudoers").string();
  if (!loaded.error.empty()) {
    a.error = loaded.error;
  } else if (loaded.unreadable) {
    a.error = "cannot read " + file + " (the daemon must run as root or as its owner)";
  } else if (loaded.key) {
    a.key = loaded.key;
    a.pair_keys = loaded.pair_keys;
  } else if (!a.trust_unsigned) {
    a.error = "no cluster key: set LSF_EAUTH_KEY in " + file +
              " (mode 600, the same on every host), or LSF_AUTH=none in lsf.conf on a network you trust";
  }
  return a;
}

}  // namespace lsf::net
