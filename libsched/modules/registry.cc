// lsb.modules names -> the pipeline. LSF always runs schmod_default and schmod_fcfs,
// whatever lsb.modules says, and schmod_aps after schmod_fcfs (it reorders within the
// queues FCFS has ordered); the rest run in the file's order. schmod_slotpool and
// schmod_guarantee always run too: LSF names no module for queue-based fairshare
// (SLOT_POOL) or for guarantee pools; schmod_throttle (Maui's throttles in Limit
// sections) runs after the configured modules, so only jobs every other limit admits
// count as idle. schmod_guarantee runs last, so what it counts after a placement
// includes what every other module took (rusage[] memory). schmod_jobgroup (job group
// limits, which LSF keeps outside lsb.modules) runs after schmod_slotpool.
#include <array>
#include <string_view>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

struct Known {
  std::string_view name;
  std::unique_ptr<Module> (*make)();
};
constexpr std::array<Known, 12> kKnown = {{
    {"schmod_default", make_schmod_default},
    {"schmod_fcfs", make_schmod_fcfs},
    {"schmod_aps", make_schmod_aps},
    {"schmod_slotpool", make_schmod_slotpool},
    {"schmod_jobgroup", make_schmod_jobgroup},
    {"schmod_throttle", make_schmod_throttle},
    {"schmod_guarantee", make_schmod_guarantee},
    {"schmod_limit", make_schmod_limit},
    {"schmod_parallel", make_schmod_parallel},
    {"schmod_reserve", make_schmod_reserve},
    {"schmod_preemption", make_schmod_preemption},
    {"schmod_fairshare", make_schmod_fairshare},
}};
// kKnown's first five always lead, its next two always close the pipeline.
constexpr size_t kLeading = 5, kClosing = 2;

int known(std::string_view name) {
  for (size_t i = 0; i < kKnown.size(); ++i)
    if (kKnown[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

// Runs before every pass (the simulator's hundreds of thousands of them): no strings
// are built, and each module is made at most once.
std::vector<std::unique_ptr<Module>> make_pipeline(const std::vector<std::string>& names,
                                                   std::vector<std::string>* unknown) {
  std::vector<std::unique_ptr<Module>> out;
  out.reserve(kKnown.size());
  unsigned made = 0;
  auto add = [&](size_t i) {
    if (made & (1u << i)) return;
    made |= 1u << i;
    out.push_back(kKnown[i].make());
  };
  for (size_t i = 0; i < kLeading; ++i) add(i);
  for (const auto& n : names) {
    const int i = known(n);
    if (i < 0) {
      if (unknown) unknown->push_back(n);
    } else if (static_cast<size_t>(i) >= kLeading + kClosing) {
      add(static_cast<size_t>(i));
    }
  }
  for (size_t i = kLeading; i < kLeading + kClosing; ++i) add(i);
  return out;
}

}  // namespace lsf::sched
