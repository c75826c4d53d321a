#include "libsched/slot_profile.h"

#include <algorithm>

namespace lsf::sched {

SlotProfile::SlotProfile(std::int64_t now, std::int64_t free_now,
                         std::vector<std::pair<std::int64_t, std::int64_t>> ends) {
  std::sort(ends.begin(), ends.end());
  steps_.emplace_back(now, free_now);
  for (const auto& [at, slots] : ends) {
    std::int64_t t = std::max(at, now);
    if (t == steps_.back().first)
      steps_.back().second += slots;
    else
      steps_.emplace_back(t, steps_.back().second + slots);
  }
}

size_t SlotProfile::step_at(std::int64_t t) const {
  auto it =
      std::upper_bound(steps_.begin(), steps_.end(), t, [](std::int64_t v, const auto& s) { return v < s.first; });
  return it == steps_.begin() ? 0 : static_cast<size_t>(it - steps_.begin()) - 1;
}

size_t SlotProfile::split(std::int64_t t) {
  size_t i = step_at(t);
  if (steps_[i].first == t) return i;
  steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(i) + 1, {t, steps_[i].second});
  return i + 1;
}

void SlotProfile::add(std::int64_t from, std::int64_t to, std::int64_t slots) {
  from = std::max(from, steps_.front().first);
  if (to <= from) return;
  size_t i = split(from);
  size_t end = to == kForever ? steps_.size() : split(to);
  for (; i < end; ++i) steps_[i].second += slots;
}

std::int64_t SlotProfile::min_free(std::int64_t from, std::int64_t to) const {
  from = std::max(from, steps_.front().first);
  std::int64_t least = kForever;
  for (size_t i = step_at(from); i < steps_.size() && steps_[i].first < to; ++i)
    least = std::min(least, steps_[i].second);
  return least;
}

std::int64_t SlotProfile::earliest(std::int64_t slots, std::int64_t length) const {
  // A start that fails fails for a step too short of slots: the next start worth trying
  // is the step after it, so each step is looked at about once.
  size_t i = 0;
  while (i < steps_.size()) {
    std::int64_t start = steps_[i].first;
    std::int64_t end = end_of(start, length);
    size_t j = i;
    while (j < steps_.size() && steps_[j].first < end && steps_[j].second >= slots) ++j;
    if (j == steps_.size() || steps_[j].first >= end) return start;
    i = j + 1;
  }
  return kForever;
}

}  // namespace lsf::sched
