#include "libsched/runtime_estimate.h"

#include <algorithm>

namespace lsf::sched {

void RuntimeHistory::finished(std::string_view user, std::int64_t runtime_s) {
  auto it = users_.find(user);
  if (it == users_.end()) it = users_.emplace(std::string(user), Last{}).first;
  it->second.older = it->second.newest;
  it->second.newest = std::max<std::int64_t>(0, runtime_s);
}

std::optional<std::int64_t> RuntimeHistory::predicted(std::string_view user) const {
  auto it = users_.find(user);
  if (it == users_.end() || it->second.newest < 0) return std::nullopt;
  const Last& l = it->second;
  return l.older < 0 ? l.newest : (l.newest + l.older + 1) / 2;
}

std::vector<RuntimeHistory::Entry> RuntimeHistory::entries() const {
  std::vector<Entry> out;
  out.reserve(users_.size());
  for (const auto& [user, last] : users_) out.push_back({user, last.newest, last.older});
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.user < b.user; });
  return out;
}

void RuntimeHistory::restore(const Entry& e) { users_[e.user] = Last{e.newest, e.older}; }

std::int64_t predicted_estimate(const RuntimeHistory& history, std::string_view user, std::int64_t run_limit_s) {
  auto p = history.predicted(user);
  if (!p) return run_limit_s;
  std::int64_t e = std::max<std::int64_t>(1, *p);
  return run_limit_s > 0 ? std::min(e, run_limit_s) : e;
}

std::int64_t extended_estimate(std::int64_t estimate_s, std::int64_t elapsed_s, std::int64_t run_limit_s) {
  if (estimate_s <= 0 || elapsed_s < estimate_s) return estimate_s;
  return run_limit_s;
}

}  // namespace lsf::sched
