// Time windows as LSF writes them in RUN_WINDOW, DISPATCH_WINDOW, RUNWINDOW and
// `#if time(...)`: `[day:]hour[:minute]-[day:]hour[:minute]`, several separated by
// spaces; the set is open when any window is open.
//
// Without days a window repeats daily and may wrap midnight (`20:00-8:30`); with days
// (0 = Sunday) it repeats weekly and may wrap the week (`5:19:00-1:8:30` is open from
// Friday 19:00 to Monday 08:30). A window includes its start minute and excludes its end
// minute. An empty set means "always open", as an absent window does in LSF.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::config {

// A moment within the week, in local time: what windows are evaluated against.
struct WeekInstant {
  int weekday = 0;  // 0 = Sunday .. 6 = Saturday
  int hour = 0;     // 0..23
  int minute = 0;   // 0..59

  int minute_of_week() const { return (weekday * 24 + hour) * 60 + minute; }
  bool operator==(const WeekInstant&) const = default;
};

struct TimeWindow {
  bool weekly = false;  // written with days
  int start = 0;        // minute of day (daily) or minute of week (weekly)
  int end = 0;

  bool is_open(const WeekInstant& at) const;
  std::string to_string() const;  // canonical form, e.g. `5:19:00-1:8:30`
  bool operator==(const TimeWindow&) const = default;
};

class TimeWindowSet {
 public:
  TimeWindowSet() = default;
  static Result<TimeWindowSet> parse(std::string_view text);

  bool always_open() const { return windows_.empty(); }
  bool is_open(const WeekInstant& at) const;
  const std::vector<TimeWindow>& windows() const { return windows_; }
  std::string to_string() const;  // windows separated by one space
  bool operator==(const TimeWindowSet&) const = default;

 private:
  std::vector<TimeWindow> windows_;
};

}  // namespace lsf::config
