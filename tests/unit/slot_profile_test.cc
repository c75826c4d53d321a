// SlotProfile: the step function RESERVATION_MODEL = PLAN books starts on.
#include "libsched/slot_profile.h"

#include <gtest/gtest.h>

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

}  // namespace
