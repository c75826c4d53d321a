// Free slots of a set of hosts over time, as a step function: what the run limits of
// the jobs there say will come free, less what placements and planned starts take.
// RESERVATION_MODEL = PLAN books each reserving job's start on it, and lets a later
// job start now only where it leaves every booked start whole (conservative backfill).
//
// Slots of the set are taken as interchangeable, as the backfill literature counts
// processors: the profile says how many are free, not which.
//
// Conservative backfill asks for an earliest start for every waiting job on every
// event, on profiles of hundreds of steps, so the steps are kept in blocks with their
// least and most free slots: a search skips a block that has no step with enough slots
// (no start there) or only such steps (no obstacle there) without reading its steps.
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
  // Steps in blocks of at most kCap, each with its least and most free slots and an
  // amount added to all of it: a booking over many blocks touches only the two it cuts.
  static constexpr int kCap = 32;
  struct Block {
    int n = 0;
    std::int64_t add = 0;  // added to every step's free slots
    std::int64_t least = 0, most = 0;
    std::int64_t at[kCap];    // step k is from at[k] (ascending) on
    std::int64_t free[kCap];  // less `add`
    std::int64_t value(int k) const { return free[k] + add; }
    void summarize();
  };
  struct Pos {
    size_t block;
    int step;
  };
  std::vector<Block> blocks_;        // in time order; the first step of the first is now
  std::vector<std::int64_t> heads_;  // each block's first time, for searching

  Pos locate(std::int64_t t) const;  // the step that holds time t (t >= now)
  Pos split(std::int64_t t);         // makes a step start exactly at t
  // The first step from `p` on with fewer than `slots` free (below) or at least that
  // many (!below); the end (block == blocks_.size()) when there is none.
  Pos first(Pos p, std::int64_t slots, bool below) const;
  Pos next(Pos p) const;
};

// from + length without passing kForever.
inline std::int64_t end_of(std::int64_t from, std::int64_t length) {
  return length >= SlotProfile::kForever - from ? SlotProfile::kForever : from + length;
}

}  // namespace lsf::sched
