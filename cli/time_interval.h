// The time intervals of bhist and bacct -C, -D, -S (and LSF's other history commands):
//
//   start,end   start,   ,end   time
//
// where a time is `[year/][month/][day][/hour:minute | /hour:]`, `.` (now) or `.-N`
// (N days before now). Omitted date fields are the current ones; a start without a time
// of day is that day's 00:00, an end without one that day's 23:59:59; a single time
// covers its day (or its minute, when it has one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lsf::cli {

struct TimeInterval {
  std::int64_t begin = 0;        // epoch seconds, inclusive
  std::int64_t end = INT64_MAX;  // inclusive
  bool contains(std::int64_t t) const { return t >= begin && t <= end; }
};

// nullopt when the text is not in that format; `now` is the current time (local time zone).
std::optional<TimeInterval> parse_time_interval(const std::string& text, std::int64_t now);

// The interval given to `command`'s option (-C, -D, -S) as of now; a bad one is a usage
// error that names the option and exits 255.
TimeInterval time_interval_option(const char* command, const char* option, const std::string& text);

}  // namespace lsf::cli
