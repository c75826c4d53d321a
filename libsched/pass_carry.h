// What a caller keeps from one pass to the next (ClusterView::accel.carry), so that a pass
// works out again only what changed since the last one: mbatchd and the simulator run
// pass after pass over nearly the same cluster. Each module keeps its own part, found
// by the module's name, and checks itself that the part still applies (same policy,
// same hosts); a pass's decisions are the same with a carry as without.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace lsf::sched {

struct PassCarry {
  // The module's part, made empty the first time.
  template <typename Part>
  Part& part(std::string_view module) {
    auto it = parts.find(module);
    if (it == parts.end()) it = parts.emplace(std::string(module), std::make_shared<Part>()).first;
    return *static_cast<Part*>(it->second.get());
  }
  std::map<std::string, std::shared_ptr<void>, std::less<>> parts;
};

}  // namespace lsf::sched
