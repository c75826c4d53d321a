#include "libconfig/time_window.h"

#include "libconfig/input_limits.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

constexpr int kMinutesPerDay = 24 * 60;

struct Point {
  bool has_day = false;
  int day = 0, hour = 0, minute = 0;
};

Result<Point> parse_point(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    fields.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (fields.size() > 3) return fail("too many ':' fields in \"" + std::string(text) + "\"");
  std::vector<int> values;
  for (auto f : fields) {
    auto v = parse_int(f);
    // Checked before narrowing to int: 4294967305 must not read as hour 9.
    if (!v || f.empty() || f.front() == '-' || f.front() == '+' || *v > 9999)
      return fail("\"" + std::string(text) + "\" is not [day:]hour[:minute]");
    values.push_back(static_cast<int>(*v));
  }
  Point p;
  // One field is an hour, two are hour:minute, three are day:hour:minute.
  if (values.size() == 1) {
    p.hour = values[0];
  } else if (values.size() == 2) {
    p.hour = values[0];
    p.minute = values[1];
  } else {
    p.has_day = true;
    p.day = values[0];
    p.hour = values[1];
    p.minute = values[2];
  }
  if (p.day > 6) return fail("day " + std::to_string(p.day) + " is not 0-6 (0 is Sunday)");
  if (p.hour > 23) return fail("hour " + std::to_string(p.hour) + " is not 0-23");
  if (p.minute > 59) return fail("minute " + std::to_string(p.minute) + " is not 0-59");
  return p;
}

std::string format_point(bool weekly, int m) {
  std::string out;
  if (weekly) {
    out = std::to_string(m / kMinutesPerDay) + ":";
    m %= kMinutesPerDay;
  }
  int minute = m % 60;
  out += std::to_string(m / 60) + ":" + (minute < 10 ? "0" : "") + std::to_string(minute);
  return out;
}

bool in_range(int at, int start, int end) {
  if (start == end) return true;  // a window that ends where it starts covers the whole cycle
  if (start < end) return at >= start && at < end;
  return at >= start || at < end;  // wraps midnight or the end of the week
}

}  // namespace

bool TimeWindow::is_open(const WeekInstant& at) const {
  if (weekly) return in_range(at.minute_of_week(), start, end);
  return in_range(at.hour * 60 + at.minute, start, end);
}

std::string TimeWindow::to_string() const { return format_point(weekly, start) + "-" + format_point(weekly, end); }

Result<TimeWindowSet> TimeWindowSet::parse(std::string_view text) {
  TimeWindowSet set;
  if (text.size() > kMaxExpressionBytes) return fail(too_long("time window list"));
  std::string inner = strip_parens(text);
  for (const auto& word : split_words(inner)) {
    size_t dash = word.find('-');
    if (dash == std::string::npos) return fail("time window \"" + word + "\" has no '-' between start and end");
    auto a = parse_point(std::string_view(word).substr(0, dash));
    if (!a) return fail("time window \"" + word + "\": " + a.error());
    auto b = parse_point(std::string_view(word).substr(dash + 1));
    if (!b) return fail("time window \"" + word + "\": " + b.error());
    if (a->has_day != b->has_day) return fail("time window \"" + word + "\": give a day on both ends or on neither");
    TimeWindow w;
    w.weekly = a->has_day;
    auto minute_of = [&](const Point& p) { return (w.weekly ? p.day * kMinutesPerDay : 0) + p.hour * 60 + p.minute; };
    w.start = minute_of(*a);
    w.end = minute_of(*b);
    set.windows_.push_back(w);
  }
  return set;
}

bool TimeWindowSet::is_open(const WeekInstant& at) const {
  if (windows_.empty()) return true;
  for (const auto& w : windows_)
    if (w.is_open(at)) return true;
  return false;
}

std::string TimeWindowSet::to_string() const {
  std::string out;
  for (const auto& w : windows_) {
    if (!out.empty()) out += ' ';
    out += w.to_string();
  }
  return out;
}

}  // namespace lsf::config
