// How a daemon reads the cluster configuration at start: LSF_ENVDIR (or --envdir), the
// whole tree through libconfig, every error printed; a configuration with errors is
// never used.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "daemons/common/cluster_key.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"

#include "libconfig/config_loader.h"

namespace lsf::net {

// The directory of --envdir when given, else LSF_ENVDIR or /etc.
std::filesystem::path daemon_envdir(const std::string& envdir_option);

// Loads the configuration; on errors prints them with `daemon` named and returns a
// result whose usable() is false.
config::LoadResult load_daemon_config(const std::string& daemon, const std::filesystem::path& envdir);

// How a daemon tells its peers from strangers: the cluster key, or, when lsf.conf says
// LSF_AUTH=none, trust in the network. `error` (naming the file) when it has neither or
// the key file is unsafe: the daemon must not start then.
struct DaemonAuth {
  std::optional<ClusterKey> key;
  std::map<std::string, ClusterKey> pair_keys;  // MultiCluster, by remote cluster
  bool trust_unsigned = false;
  std::string error;
};
DaemonAuth daemon_auth(const std::filesystem::path& envdir, const config::LsfConf& conf);

// The connection limits lsf.conf sets (LSB_CONN_IDLE_TIMEOUT, LSB_CONN_AUTH_TIMEOUT,
// LSB_MAX_CONNECTIONS, LSB_MAX_CONNECTIONS_PER_PEER); what it leaves out keeps the
// defaults. Fails, naming the parameter, for a value that is not a positive number.
daemon::Status apply_connection_limits(const config::LsfConf& conf, ServerOptions& options);

// Raises the soft limit on open descriptors to the hard limit, so a daemon serving
// many hosts and commands does not run out early. Returns the limit now in force.
std::size_t raise_descriptor_limit();

}  // namespace lsf::net
