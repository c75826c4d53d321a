#include "cli/bsim/svg_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace lsf::bsim {
namespace {

constexpr double kWidth = 800, kHeight = 400, kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

void frame(std::ostringstream& svg, const std::string& title, const std::string& y_label, double y_max) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kWidth / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" << escape(title)
      << "</text>\n"
      << "<line x1=\"" << kLeft << "\" y1=\"" << kHeight - kBottom << "\" x2=\"" << kWidth - kRight << "\" y2=\""
      << kHeight - kBottom << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << kHeight - kBottom
      << "\" stroke=\"black\"/>\n"
      << "<text x=\"" << kLeft - 5 << "\" y=\"" << kTop + 4 << "\" text-anchor=\"end\">" << number(y_max) << "</text>\n"
      << "<text x=\"" << kLeft - 5 << "\" y=\"" << kHeight - kBottom << "\" text-anchor=\"end\">0</text>\n"
      << "<text x=\"15\" y=\"" << (kTop + kHeight - kBottom) / 2 << "\" transform=\"rotate(-90 15 "
      << (kTop + kHeight - kBottom) / 2 << ")\" text-anchor=\"middle\">" << escape(y_label) << "</text>\n";
}

}  // namespace

std::string line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series, std::size_t max_points) {
  double x_min = 0, x_max = 1, y_max = 1;
  bool any = false;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      if (!any) x_min = x_max = x;
      any = true;
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  if (x_max <= x_min) x_max = x_min + 1;
  std::ostringstream svg;
  frame(svg, title, y_label, y_max);
  const double w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
  svg << "<text x=\"" << kLeft << "\" y=\"" << kHeight - kBottom + 15 << "\">" << number(x_min) << "</text>\n"
      << "<text x=\"" << kWidth - kRight << "\" y=\"" << kHeight - kBottom + 15 << "\" text-anchor=\"end\">"
      << number(x_max) << "</text>\n"
      << "<text x=\"" << kLeft + w / 2 << "\" y=\"" << kHeight - 10 << "\" text-anchor=\"middle\">" << escape(x_label)
      << "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& pts = series[i].points;
    const char* color = kColors[i % std::size(kColors)];
    svg << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1\" points=\"";
    // One point per stretch of x: its highest y, so peaks survive the thinning.
    const double step = (x_max - x_min) / static_cast<double>(std::max<std::size_t>(1, max_points));
    size_t k = 0;
    while (k < pts.size()) {
      double bucket_end = pts[k].first + step;
      double x = pts[k].first, y = pts[k].second;
      while (k < pts.size() && pts[k].first < bucket_end) y = std::max(y, pts[k++].second);
      svg << number(kLeft + (x - x_min) / (x_max - x_min) * w) << ',' << number(kTop + h - y / y_max * h) << ' ';
    }
    svg << "\"/>\n";
    svg << "<text x=\"" << kLeft + 10 << "\" y=\"" << kTop + 15 * (i + 1) << "\" fill=\"" << color << "\">"
        << escape(series[i].label) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace lsf::bsim
