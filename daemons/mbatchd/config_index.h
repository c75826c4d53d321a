// What the scheduling view and submission checks need from a configuration, worked
// out once per configuration (start and reconfig) instead of on every pass or request.
//
// Owns: its maps and the policy (shared with the views built from it).
// Thread: made and replaced on the state thread; a view shares the policy with the
// pass thread, read only.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "libconfig/cluster_config.h"
#include "libsched/model/policy.h"
#include "libsched/model/resource_map.h"

namespace lsf::mbd {

struct ConfigIndex {
  // Each host's static resources (hname, type, model, cpuf, server, ndisks and its
  // RESOURCES), what select[] reads before a host reports load.
  std::map<std::string, sched::ResourceMap> host_static;
  std::shared_ptr<const sched::SchedPolicy> policy;
};
ConfigIndex index_config(const config::ClusterConfig& config);

}  // namespace lsf::mbd
