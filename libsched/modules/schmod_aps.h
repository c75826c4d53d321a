// schmod_aps's report, which the pass hands back in PassResult::aps (every pending job of
// a queue with APS_PRIORITY): what bjobs -aps and -prio show.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "libsched/model/cluster_view.h"

namespace lsf::sched {

// A pending job's APS value in a queue with APS_PRIORITY, for bjobs -aps and -prio:
// the weighted sum and each weighted factor's or subfactor's value (after its limit and
// grace period; ADMIN: what bmod -aps "admin=v" adds), as the pass began.
struct ApsScore {
  JobKey job;
  double value = 0;
  bool system = false;  // `value` is what bmod -aps "system=v" set: ahead of every calculated one
  std::vector<std::pair<std::string_view, double>> factors;  // names of static storage
};

}  // namespace lsf::sched
