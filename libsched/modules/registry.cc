// lsb.modules names -> the pipeline. LSF always runs schmod_default and schmod_fcfs,
// whatever lsb.modules says, and schmod_aps after schmod_fcfs (it reorders within the
// queues FCFS has ordered); the rest run in the file's order. schmod_slotpool and
// schmod_guarantee always run too: LSF names no module for queue-based fairshare
// (SLOT_POOL) or for guarantee pools; schmod_throttle (Maui's throttles in Limit
// sections) runs after the configured modules, so only jobs every other limit admits
// count as idle. schmod_guarantee runs last, so what it counts after a placement
// includes what every other module took (rusage[] memory). schmod_jobgroup (job group
// limits, which LSF keeps outside lsb.modules) runs after schmod_slotpool.
#include <functional>
#include <map>

#include "libsched/modules/modules.h"

namespace lsf::sched {

std::vector<std::unique_ptr<Module>> make_pipeline(const std::vector<std::string>& names,
                                                   std::vector<std::string>* unknown) {
  static const std::map<std::string, std::unique_ptr<Module> (*)(), std::less<>> kKnown = {
      {"schmod_default", make_schmod_default},
      {"schmod_fcfs", make_schmod_fcfs},
      {"schmod_limit", make_schmod_limit},
      {"schmod_parallel", make_schmod_parallel},
      {"schmod_reserve", make_schmod_reserve},
      {"schmod_preemption", make_schmod_preemption},
      {"schmod_fairshare", make_schmod_fairshare},
      {"schmod_slotpool", make_schmod_slotpool},
      {"schmod_guarantee", make_schmod_guarantee},
      {"schmod_throttle", make_schmod_throttle},
      {"schmod_aps", make_schmod_aps},
      {"schmod_jobgroup", make_schmod_jobgroup},
  };
  std::vector<std::unique_ptr<Module>> out;
  std::vector<std::string> order;
  for (const char* always : {"schmod_default", "schmod_fcfs", "schmod_aps", "schmod_slotpool", "schmod_jobgroup"})
    order.push_back(always);
  for (const auto& n : names)
    if (n != "schmod_default" && n != "schmod_fcfs" && n != "schmod_aps" && n != "schmod_slotpool" &&
        n != "schmod_jobgroup" && n != "schmod_guarantee" && n != "schmod_throttle")
      order.push_back(n);
  order.push_back("schmod_throttle");
  order.push_back("schmod_guarantee");
  for (const auto& n : order) {
    auto it = kKnown.find(n);
    if (it == kKnown.end()) {
      if (unknown) unknown->push_back(n);
      continue;
    }
    bool dup = false;
    for (const auto& m : out) dup |= m->name() == n;
    if (!dup) out.push_back(it->second());
  }
  return out;
}

}  // namespace lsf::sched
