// Checks that need more than one file: every reference names something that exists
// (hosts, host groups, queues, user groups, service classes, clusters, resources,
// models), and the cross-record rules of guarantee pools, slot pools and exports.
// Each finding names the file and line of the reference that is wrong.
#pragma once

#include <functional>
#include <string>

#include "libconfig/cluster_config.h"
#include "libconfig/diagnostics.h"

namespace lsf::config {

struct CheckOptions {
  // When set, user names that are neither a user group nor a known account draw a
  // warning (LSF accepts them: the account may appear later).
  std::function<bool(const std::string&)> user_exists;
};

void check_cluster_config(const ClusterConfig& config, const CheckOptions& options, Diagnostics& diags);

}  // namespace lsf::config
