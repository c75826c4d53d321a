#include "daemons/common/daemon_config.h"

#include <sys/resource.h>

#include <iostream>

#include "daemons/common/cluster_endpoint.h"
#include "libconfig/text.h"

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

daemon::Status apply_connection_limits(const config::LsfConf& conf, ServerOptions& options) {
  auto positive = [&](const char* name, auto apply) -> daemon::Status {
    auto text = conf.get(name);
    if (!text) return {};
    auto v = config::parse_int(*text);
    if (!v || *v <= 0 || *v > 100000000)
      return daemon::fail(std::string("lsf.conf: ") + name + "=" + *text + " is not a positive number");
    apply(*v);
    return {};
  };
  for (auto applied :
       {positive("LSB_CONN_IDLE_TIMEOUT", [&](long long v) { options.idle_timeout = std::chrono::seconds(v); }),
        positive("LSB_CONN_AUTH_TIMEOUT",
                 [&](long long v) { options.unauthenticated_timeout = std::chrono::seconds(v); }),
        positive("LSB_MAX_CONNECTIONS", [&](long long v) { options.max_connections = static_cast<std::size_t>(v); }),
        positive("LSB_MAX_CONNECTIONS_PER_PEER",
                 [&](long long v) { options.max_connections_per_peer = static_cast<std::size_t>(v); })})
    if (!applied) return applied;
  return {};
}

std::size_t raise_descriptor_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return static_cast<std::size_t>(rl.rlim_cur);
}

}  // namespace lsf::net
