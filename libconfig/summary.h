// A plain-text summary of a configuration, as `badmin ckconfig -v` prints it: the
// cluster, its hosts, queues by priority, pools, limits and exports.
#pragma once

#include <string>

#include "libconfig/cluster_config.h"

namespace lsf::config {

std::string render_config_summary(const ClusterConfig& config);

}  // namespace lsf::config
