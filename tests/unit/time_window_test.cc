// Time windows, with the worked example of reference/policies.md section 1.
#include <gtest/gtest.h>

#include "libconfig/time_window.h"

using namespace lsf::config;

namespace {
constexpr int kSun = 0, kMon = 1, kWed = 3, kFri = 5, kSat = 6;

struct Case {
  const char* windows;
  WeekInstant at;
  bool open;
};

class TimeWindowTable : public ::testing::TestWithParam<Case> {};

TEST_P(TimeWindowTable, OpenOrClosed) {
  const Case& c = GetParam();
  auto set = TimeWindowSet::parse(c.windows);
  ASSERT_TRUE(set) << set.error();
  EXPECT_EQ(set->is_open(c.at), c.open) << c.windows << " at day " << c.at.weekday << " " << c.at.hour << ":"
                                        << c.at.minute;
}

INSTANTIATE_TEST_SUITE_P(Policies, TimeWindowTable,
                         ::testing::Values(
                             // `5:19:00-1:8:30 20:00-8:30`: Friday 19:00 to Monday 08:30, and every night.
                             Case{"5:19:00-1:8:30 20:00-8:30", {kWed, 12, 0}, false},  // closed Wednesday noon
                             Case{"5:19:00-1:8:30 20:00-8:30", {kWed, 23, 0}, true},   // open Wednesday 23:00
                             Case{"5:19:00-1:8:30 20:00-8:30", {kSat, 12, 0}, true},   // the weekend
                             Case{"5:19:00-1:8:30 20:00-8:30", {kSun, 15, 30}, true},
                             Case{"5:19:00-1:8:30 20:00-8:30", {kMon, 8, 29}, true},
                             Case{"5:19:00-1:8:30 20:00-8:30", {kMon, 8, 30}, false},  // the end minute is outside
                             Case{"5:19:00-1:8:30 20:00-8:30", {kFri, 18, 59}, false},
                             Case{"5:19:00-1:8:30 20:00-8:30", {kFri, 19, 0}, true},
                             // Daily windows, wrapping midnight or not; one field is an hour.
                             Case{"20:00-8:30", {kWed, 0, 0}, true}, Case{"20:00-8:30", {kWed, 19, 59}, false},
                             Case{"9-17", {kWed, 9, 0}, true}, Case{"9-17", {kWed, 17, 0}, false},
                             Case{"8:00-12:00 13:00-17:00", {kWed, 12, 30}, false},
                             Case{"8:00-12:00 13:00-17:00", {kWed, 13, 0}, true},
                             // Weekly windows wrapping the end of the week.
                             Case{"6:22:00-0:6:00", {kSun, 5, 59}, true}, Case{"6:22:00-0:6:00", {kSun, 6, 0}, false},
                             // Parenthesised, as in lsb.hosts DISPATCH_WINDOW.
                             Case{"(5:19:00-1:8:30 20:00-8:30)", {kWed, 12, 0}, false},
                             // No window: always open.
                             Case{"", {kWed, 12, 0}, true}, Case{"()", {kWed, 3, 0}, true}));

TEST(TimeWindow, CanonicalForm) {
  auto set = TimeWindowSet::parse("5:19:00-1:8:30 20-8:30");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->to_string(), "5:19:00-1:8:30 20:00-8:30");
}

TEST(TimeWindow, Errors) {
  EXPECT_EQ(TimeWindowSet::parse("25:00-8:00").error(), "time window \"25:00-8:00\": hour 25 is not 0-23");
  EXPECT_EQ(TimeWindowSet::parse("8:61-9").error(), "time window \"8:61-9\": minute 61 is not 0-59");
  EXPECT_EQ(TimeWindowSet::parse("7:8:00-1:9:00").error(),
            "time window \"7:8:00-1:9:00\": day 7 is not 0-6 (0 is Sunday)");
  EXPECT_EQ(TimeWindowSet::parse("5:19:00-8:30").error(),
            "time window \"5:19:00-8:30\": give a day on both ends or on neither");
  EXPECT_EQ(TimeWindowSet::parse("19:00").error(), "time window \"19:00\" has no '-' between start and end");
  EXPECT_FALSE(TimeWindowSet::parse("a-b"));
}

TEST(TimeWindow, NumbersPastIntAreNotWrappedIntoRange) {
  // 4294967305 is 2^32 + 9: narrowed before the range check, it read as hour 9.
  EXPECT_EQ(TimeWindowSet::parse("3:4294967305-8:30").error(),
            "time window \"3:4294967305-8:30\": \"3:4294967305\" is not [day:]hour[:minute]");
}

}  // namespace
