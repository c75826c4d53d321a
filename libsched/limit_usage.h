// What each lsb.resources Limit section counts now, for blimits: one row per
// combination of consumers that has something in use, counted exactly as schmod_limit
// counts at the start of a pass (running and suspended jobs).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libsched/model/cluster_view.h"

namespace lsf::sched {

struct LimitUsage {
  size_t limit = 0;  // index into SchedPolicy::limits
  // The member for PER_* consumers; empty for the section's consumers as a whole.
  std::string user, queue, project, host;
  int slots = 0;
  int jobs = 0;
  std::map<std::string, double, std::less<>> resources;  // mem, swp, tmp (MB), RESOURCE[...]
};

std::vector<LimitUsage> limit_usage(const ClusterView& view, std::int64_t now);

// bhosts -s: what running jobs hold of each cluster-wide shared resource (rusage[] of a
// `licA 5@[all]` ResourceMap entry), taken as schmod_reserve takes it for a pass.
std::map<std::string, double, std::less<>> shared_resource_usage(const ClusterView& view, std::int64_t now);

}  // namespace lsf::sched
