// What each SLOT_POOL queue may run now and runs, for bqueues -l: the parts
// schmod_slotpool works out at the start of a pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libsched/model/cluster_view.h"

namespace lsf::sched {

struct PoolShare {
  int queue = 0;  // index into SchedPolicy::queues
  std::string pool;
  double share = 0;  // SLOT_SHARE, percent
  int entitled = 0;  // its part of the pool now
  int used = 0;      // slots its started jobs hold
  int total = 0;     // the pool's slots
};

// `pending`: pending jobs per queue (the view may be made without its pending jobs).
std::vector<PoolShare> slot_pool_usage(const ClusterView& view, std::int64_t now, const std::vector<int>& pending);

}  // namespace lsf::sched
