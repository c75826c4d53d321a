#include "cli/time_interval.h"

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <vector>

#include "libconfig/text.h"

namespace lsf::cli {
namespace {

// One time of the interval as its first and last second.
struct Span {
  std::int64_t first = 0, last = 0;
};

std::optional<int> number(const std::string& s, int lo, int hi) {
  auto n = config::parse_int(s);
  if (!n || *n < lo || *n > hi) return std::nullopt;
  return static_cast<int>(*n);
}

std::optional<Span> parse_time(const std::string& text, std::int64_t now) {
  if (text == ".") return Span{now, now};
  if (text.rfind(".-", 0) == 0) {
    auto days = number(text.substr(2), 0, 100000);
    if (!days) return std::nullopt;
    std::int64_t t = now - std::int64_t{*days} * 86400;
    return Span{t, t};
  }
  std::vector<std::string> parts;
  std::string::size_type from = 0;
  for (;;) {
    auto slash = text.find('/', from);
    parts.push_back(text.substr(from, slash - from));
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  // The time of day, when given, is the last part and the only one with a colon.
  std::optional<int> hour, minute;
  if (auto colon = parts.back().find(':'); colon != std::string::npos) {
    const std::string t = parts.back();
    parts.pop_back();
    hour = number(t.substr(0, colon), 0, 23);
    if (!hour) return std::nullopt;
    if (colon + 1 < t.size()) {
      minute = number(t.substr(colon + 1), 0, 59);
      if (!minute) return std::nullopt;
    }
  }
  if (parts.size() > 3 || (parts.empty() && !hour)) return std::nullopt;
  const std::time_t now_t = static_cast<std::time_t>(now);
  std::tm tm{};
  localtime_r(&now_t, &tm);
  const size_t n = parts.size();
  if (n == 3) {
    auto year = number(parts[0], 1970, 9999);
    if (!year) return std::nullopt;
    tm.tm_year = *year - 1900;
  }
  if (n >= 2) {
    auto month = number(parts[n - 2], 1, 12);
    if (!month) return std::nullopt;
    tm.tm_mon = *month - 1;
  }
  if (n >= 1) {
    auto day = number(parts[n - 1], 1, 31);
    if (!day) return std::nullopt;
    tm.tm_mday = *day;
  }
  tm.tm_isdst = -1;
  tm.tm_sec = 0;
  std::tm last = tm;
  tm.tm_hour = hour.value_or(0);
  tm.tm_min = minute.value_or(0);
  last.tm_hour = hour.value_or(23);
  last.tm_min = minute.value_or(59);
  last.tm_sec = 59;
  std::time_t a = std::mktime(&tm), b = std::mktime(&last);
  if (a == -1 || b == -1) return std::nullopt;
  return Span{static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)};
}

}  // namespace

std::optional<TimeInterval> parse_time_interval(const std::string& text, std::int64_t now) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) {
    auto t = parse_time(text, now);
    if (!t) return std::nullopt;
    return TimeInterval{t->first, t->last};
  }
  const std::string a = text.substr(0, comma), b = text.substr(comma + 1);
  if (a.empty() && b.empty()) return std::nullopt;
  TimeInterval out;
  if (!a.empty()) {
    auto t = parse_time(a, now);
    if (!t) return std::nullopt;
    out.begin = t->first;
  }
  if (b.empty()) {
    out.end = now;
  } else {
    auto t = parse_time(b, now);
    if (!t) return std::nullopt;
    out.end = t->last;
  }
  if (out.begin > out.end) return std::nullopt;
  return out;
}

TimeInterval time_interval_option(const char* command, const char* option, const std::string& text) {
  auto i = parse_time_interval(text, static_cast<std::int64_t>(std::time(nullptr)));
  if (!i) {
    std::cerr << command << ": -" << option << " " << text
              << ": bad time interval (time0,time1 with times [year/][month/][day][/hour:minute])\n";
    std::exit(255);
  }
  return *i;
}

}  // namespace lsf::cli
