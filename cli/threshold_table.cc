#include "cli/threshold_table.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace lsf::cli {
namespace {

// A built-in index's column: how its value is printed (what goes before, the width and
// precision, what goes after) and what stands for no value, as wide as the header's.
struct BuiltinColumn {
  const char* name;
  const char* before;
  int width;
  int precision;
  const char* after;
  const char* none;
};

constexpr std::array<BuiltinColumn, 11> kBuiltins = {{
    {"r15s", "", 5, 1, " ", "   -  "},
    {"r1m", "", 5, 1, " ", "   -  "},
    {"r15m", "", 5, 1, " ", "   -  "},
    {"ut", " ", 3, 1, " ", "   - "},
    {"pg", "", 7, 1, " ", "      - "},
    {"io", "", 5, 0, " ", "    - "},
    {"ls", " ", 3, 0, " ", "   - "},
    {"it", "", 5, 0, " ", "    - "},
    {"tmp", "", 5, 0, "M ", "    -  "},
    {"swp", "", 5, 0, "M ", "    -  "},
    {"mem", "", 5, 0, "M ", "    -  "},
}};

constexpr const char* kBuiltinHeader =
    "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n";

std::string number(double value, int width, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%*.*f", width, precision, value);
  return buf;
}

std::string value_text(const BuiltinColumn& c, double value) {
  return c.before + number(value, c.width, c.precision) + c.after;
}

const wire::LoadThresholdInfo* find(const google::protobuf::RepeatedPtrField<wire::LoadThresholdInfo>& all,
                                    const std::string& name) {
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& t) { return t.name() == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string padded_left(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

}  // namespace

void print_threshold_table(std::ostream& out,
                           const google::protobuf::RepeatedPtrField<wire::LoadThresholdInfo>& thresholds) {
  std::string sched = " loadSched", stop = " loadStop ";
  for (const auto& c : kBuiltins) {
    const auto* t = find(thresholds, c.name);
    sched += t && t->has_sched() ? value_text(c, t->sched()) : c.none;
    stop += t && t->has_stop() ? value_text(c, t->stop()) : c.none;
  }
  out << kBuiltinHeader << sched << "\n" << stop << "\n";

  // Other indices (site resources): a column as wide as its name, at least 7.
  std::vector<const wire::LoadThresholdInfo*> others;
  for (const auto& t : thresholds)
    if (std::none_of(kBuiltins.begin(), kBuiltins.end(), [&](const auto& c) { return t.name() == c.name; }))
      others.push_back(&t);
  for (size_t start = 0; start < others.size();) {
    std::string header(10, ' '), sched_row = " loadSched", stop_row = " loadStop ";
    size_t end = start;
    for (; end < others.size(); ++end) {
      const auto& t = *others[end];
      const size_t width = std::max<size_t>(7, t.name().size());
      if (end > start && header.size() + width + 1 > 80) break;
      header += padded_left(t.name(), width) + " ";
      sched_row += padded_left(t.has_sched() ? number(t.sched(), 6, 1) : "     - ", width) + " ";
      stop_row += padded_left(t.has_stop() ? number(t.stop(), 6, 1) : "     - ", width) + " ";
    }
    out << "\n" << header << "\n" << sched_row << "\n" << stop_row << "\n";
    start = end;
  }
}

}  // namespace lsf::cli
