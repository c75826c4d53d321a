// MetricsText: see metrics_text.h.
#include "daemons/mbatchd/metrics_text.h"

#include <charconv>
#include <cmath>

namespace lsf::mbd {

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void MetricsText::family(std::string_view name, std::string_view type, std::string_view help) {
  out_.append("# HELP ").append(name).append(" ");
  for (char c : help) {
    if (c == '\\')
      out_ += "\\\\";
    else if (c == '\n')
      out_ += "\\n";
    else
      out_ += c;
  }
  out_.append("\n# TYPE ").append(name).append(" ").append(type).append("\n");
}

void MetricsText::labels(MetricLabels labels, std::string_view extra_name, std::string_view extra_value) {
  if (labels.size() == 0 && extra_name.empty()) return;
  out_ += '{';
  bool first = true;
  auto add = [&](std::string_view n, std::string_view v) {
    if (!first) out_ += ',';
    first = false;
    out_.append(n).append("=\"").append(escape_label_value(v)).append("\"");
  };
  for (const auto& [n, v] : labels) add(n, v);
  if (!extra_name.empty()) add(extra_name, extra_value);
  out_ += '}';
}

void MetricsText::value(double v) {
  if (std::isnan(v)) {
    out_ += "NaN";
  } else if (std::isinf(v)) {
    out_ += v > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, ec == std::errc() ? end : buf);
  }
}

void MetricsText::sample(std::string_view name, MetricLabels l, double v) {
  out_.append(name);
  labels(l);
  out_ += ' ';
  value(v);
  out_ += '\n';
}

void MetricsText::histogram(std::string_view name, MetricLabels l, const net::Histogram& h) {
  const std::string bucket = std::string(name) + "_bucket";
  std::uint64_t cumulative = 0;
  const auto counts = h.buckets();
  for (std::size_t i = 0; i < net::Histogram::kBounds.size(); ++i) {
    cumulative += counts[i];
    char le[32];
    auto [end, ec] = std::to_chars(le, le + sizeof le, net::Histogram::kBounds[i], std::chars_format::fixed);
    out_.append(bucket);
    labels(l, "le", std::string_view(le, ec == std::errc() ? static_cast<std::size_t>(end - le) : 0));
    out_ += ' ';
    value(static_cast<double>(cumulative));
    out_ += '\n';
  }
  out_.append(bucket);
  labels(l, "le", "+Inf");
  out_ += ' ';
  value(static_cast<double>(h.count()));
  out_ += '\n';
  out_.append(name).append("_sum");
  labels(l);
  out_ += ' ';
  value(h.sum());
  out_ += '\n';
  out_.append(name).append("_count");
  labels(l);
  out_ += ' ';
  value(static_cast<double>(h.count()));
  out_ += '\n';
}

}  // namespace lsf::mbd
