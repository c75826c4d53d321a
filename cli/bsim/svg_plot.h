// Plain SVG line charts for bsim: a value over time (queue length, utilization) or a
// distribution (share of jobs that waited at most x). No library: a little markup.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lsf::bsim {

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// A line per series over a shared x range, at most `max_points` points each (the
// highest y of each stretch is kept, so peaks show).
std::string line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series, std::size_t max_points = 1500);

}  // namespace lsf::bsim
