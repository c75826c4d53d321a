// RequestStats: see request_stats.h.
#include "daemons/mbatchd/request_stats.h"

#include <algorithm>

#include "lsf.pb.h"

namespace lsf::mbd {

void RequestStats::observe(int request_case, std::chrono::steady_clock::duration took) {
  std::lock_guard lock(mu_);
  by_case_[request_case].observe(took);
}

std::vector<RequestStats::Row> RequestStats::rows() const {
  std::vector<Row> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [kind, h] : by_case_) {
      const auto* field = wire::RequestEnvelope::descriptor()->FindFieldByNumber(kind);
      out.push_back({field ? field->name() : "unknown_" + std::to_string(kind), h});
    }
  }
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  return out;
}

}  // namespace lsf::mbd
