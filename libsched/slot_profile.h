// Free slots of a set of hosts over time, as a step function: what the run limits of
// the jobs there say will come free, less what placements and planned starts take.
// RESERVATION_MODEL = PLAN books each reserving job's start on it, and lets a later
// job start now only where it leaves every booked start whole (conservative backfill).
//
// Slots of the set are taken as interchangeable, as the backfill literature counts
// processors: the profile says how many are free, not which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace lsf::sched {

class SlotProfile {
 public:
  static constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

  // `free_now` slots at `now`; each (time, slots) of `ends` comes free at that time.
  SlotProfile(std::int64_t now, std::int64_t free_now, std::vector<std::pair<std::int64_t, std::int64_t>> ends);

  // Adds `slots` (negative: takes them) over [from, to); `to` may be kForever.
  void add(std::int64_t from, std::int64_t to, std::int64_t slots);
  // The fewest slots free at any time in [from, to).
  std::int64_t min_free(std::int64_t from, std::int64_t to) const;
  // The earliest start, not before now, from which `slots` stay free for `length`
  // seconds (kForever: for good); kForever when there is none.
  std::int64_t earliest(std::int64_t slots, std::int64_t length) const;

 private:
  // (from this time, this many slots free), times ascending; the first is now.
  std::vector<std::pair<std::int64_t, std::int64_t>> steps_;
  size_t step_at(std::int64_t t) const;  // the step that holds time t (t >= now)
  size_t split(std::int64_t t);          // a step starting exactly at t
};

// from + length without passing kForever.
inline std::int64_t end_of(std::int64_t from, std::int64_t length) {
  return length >= SlotProfile::kForever - from ? SlotProfile::kForever : from + length;
}

}  // namespace lsf::sched
