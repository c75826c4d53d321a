// SlotProfile: the step function RESERVATION_MODEL = PLAN books starts on.
#include "libsched/slot_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using lsf::sched::SlotProfile;

namespace {

constexpr auto kForever = SlotProfile::kForever;

// Four slots; one is free at 100, two more at 110 (a job ends), the last at 130.
SlotProfile four_slots() { return SlotProfile(100, 1, {{130, 1}, {110, 2}}); }

TEST(SlotProfile, FreeSlotsFollowTheEnds) {
  SlotProfile p = four_slots();
  EXPECT_EQ(p.min_free(100, 110), 1);
  EXPECT_EQ(p.min_free(110, 130), 3);
  EXPECT_EQ(p.min_free(130, kForever), 4);
  EXPECT_EQ(p.min_free(105, 115), 1);
}

TEST(SlotProfile, EarliestStartKeepsTheSlotsForTheWholeLength) {
  SlotProfile p = four_slots();
  EXPECT_EQ(p.earliest(1, 1000), 100);
  EXPECT_EQ(p.earliest(3, 10), 110);
  EXPECT_EQ(p.earliest(4, kForever), 130);
  EXPECT_EQ(p.earliest(5, 1), kForever);
  // A booking of two slots over [110, 120) leaves one there: three slots for 10 s start
  // only after it, and the same for good only at 130.
  p.add(110, 120, -2);
  EXPECT_EQ(p.min_free(110, 120), 1);
  EXPECT_EQ(p.earliest(3, 10), 120);
  EXPECT_EQ(p.earliest(2, 15), 120);
  EXPECT_EQ(p.earliest(1, 30), 100);
  // A start before the booking that runs into it does not fit.
  EXPECT_EQ(p.earliest(2, 5), 120);
}

TEST(SlotProfile, TakingForGoodAndEndsBeforeNow) {
  // An end already past (a job over its run limit) counts as free now.
  SlotProfile p(100, 0, {{90, 1}, {200, 1}});
  EXPECT_EQ(p.min_free(100, 101), 1);
  p.add(100, kForever, -1);
  EXPECT_EQ(p.earliest(1, 10), 200);
  EXPECT_EQ(p.min_free(0, kForever), 0);
}

// Against a plain array of free slots per second over [100, 400) and one count for
// every later second: many steps, so the blocks the searches skip by their
// least and most matter, with random bookings and releases as a pass makes them.
TEST(SlotProfile, MatchesSecondBySecondCounting) {
  constexpr std::int64_t kNow = 100, kEnd = 400;
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ends;
    std::vector<std::int64_t> free(kEnd - kNow, 3);
    std::int64_t tail = 3;  // from kEnd on
    for (int e = 0; e < 120; ++e) {
      std::int64_t at = kNow + static_cast<std::int64_t>(rng() % 290) - 5;
      std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 3);
      ends.emplace_back(at, n);
      for (std::int64_t t = std::max(at, kNow); t < kEnd; ++t) free[static_cast<size_t>(t - kNow)] += n;
      tail += n;
    }
    SlotProfile p(kNow, 3, ends);
    auto least = [&](std::int64_t from, std::int64_t to) {
      std::int64_t l = kForever;
      for (std::int64_t t = std::max(from, kNow); t < std::min(to, kEnd); ++t)
        l = std::min(l, free[static_cast<size_t>(t - kNow)]);
      if (to > kEnd) l = std::min(l, tail);
      return l;
    };
    for (int op = 0; op < 300; ++op) {
      std::int64_t from = kNow + static_cast<std::int64_t>(rng() % 280);
      // Only takings for good reach past the array.
      std::int64_t to = rng() % 5 == 0 ? kForever : std::min(kEnd, from + 1 + static_cast<std::int64_t>(rng() % 60));
      std::int64_t n = static_cast<std::int64_t>(rng() % 7) - 4;
      p.add(from, to, n);
      for (std::int64_t t = from; t < std::min(to, kEnd); ++t) free[static_cast<size_t>(t - kNow)] += n;
      if (to == kForever) tail += n;
      if (to == kForever) {
        ASSERT_EQ(p.min_free(kEnd - 1, kForever), least(kEnd - 1, kForever));
      }
      std::int64_t a = kNow + static_cast<std::int64_t>(rng() % 300), b = a + static_cast<std::int64_t>(rng() % 80);
      ASSERT_EQ(p.min_free(a, b + 1), least(a, b + 1)) << "round " << round << " op " << op;
      std::int64_t slots = static_cast<std::int64_t>(rng() % 12), length = 1 + static_cast<std::int64_t>(rng() % 50);
      std::int64_t want = kForever;
      for (std::int64_t s = kNow; s <= kEnd && want == kForever; ++s)
        if (least(s, s + length) >= slots) want = s;
      ASSERT_EQ(p.earliest(slots, length), want) << "round " << round << " op " << op << " slots " << slots;
    }
  }
}

}  // namespace
