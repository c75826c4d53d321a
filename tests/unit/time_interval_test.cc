// bhist / bacct -C, -D, -S intervals: LSF's "time interval format", read in the local
// time zone, with `now` fixed at Wednesday 2024-03-13 15:30:20.
#include <gtest/gtest.h>

#include <ctime>

#include "cli/time_interval.h"

using lsf::cli::parse_time_interval;

namespace {

std::int64_t at(int year, int month, int day, int hour, int minute, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;
  return static_cast<std::int64_t>(std::mktime(&tm));
}

const std::int64_t kNow = at(2024, 3, 13, 15, 30, 20);

TEST(TimeInterval, BothEnds) {
  auto i = parse_time_interval("2024/3/1/8:00,2024/3/2/17:45", kNow);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->begin, at(2024, 3, 1, 8, 0));
  EXPECT_EQ(i->end, at(2024, 3, 2, 17, 45, 59));  // the end minute is included
}

TEST(TimeInterval, OmittedFieldsAreTheCurrentOnes) {
  // A day alone: from its start; an end day: to its last second.
  auto i = parse_time_interval("5,12", kNow);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->begin, at(2024, 3, 5, 0, 0));
  EXPECT_EQ(i->end, at(2024, 3, 12, 23, 59, 59));
  auto hours = parse_time_interval("9:,11:30", kNow);
  ASSERT_TRUE(hours);
  EXPECT_EQ(hours->begin, at(2024, 3, 13, 9, 0));
  EXPECT_EQ(hours->end, at(2024, 3, 13, 11, 30, 59));
  auto month = parse_time_interval("2/28,3/1", kNow);
  ASSERT_TRUE(month);
  EXPECT_EQ(month->begin, at(2024, 2, 28, 0, 0));
}

TEST(TimeInterval, OpenEndsAndNow) {
  auto since = parse_time_interval("2024/3/10,", kNow);
  ASSERT_TRUE(since);
  EXPECT_EQ(since->begin, at(2024, 3, 10, 0, 0));
  EXPECT_EQ(since->end, kNow);
  auto until = parse_time_interval(",.", kNow);
  ASSERT_TRUE(until);
  EXPECT_EQ(until->begin, 0);
  EXPECT_EQ(until->end, kNow);
  auto days_ago = parse_time_interval(".-2,", kNow);
  ASSERT_TRUE(days_ago);
  EXPECT_EQ(days_ago->begin, kNow - 2 * 86400);
}

TEST(TimeInterval, OneTimeCoversItsDayOrMinute) {
  auto day = parse_time_interval("2024/3/1", kNow);
  ASSERT_TRUE(day);
  EXPECT_TRUE(day->contains(at(2024, 3, 1, 23, 0)));
  EXPECT_FALSE(day->contains(at(2024, 3, 2, 0, 0)));
  auto minute = parse_time_interval("3/1/8:15", kNow);
  ASSERT_TRUE(minute);
  EXPECT_EQ(minute->end - minute->begin, 59);
}

TEST(TimeInterval, Malformed) {
  for (const char* bad :
       {"", ",", "13/1,", "2024/3/32", "25:00", "1/2/3/4,", "8:61", "x", "1969/1/1,", ".-x", "2024/3/2,2024/3/1"})
    EXPECT_FALSE(parse_time_interval(bad, kNow)) << bad;
}

}  // namespace
