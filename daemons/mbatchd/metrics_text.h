// The Prometheus text exposition format (version 0.0.4), which Prometheus, its agents
// and OpenMetrics parsers all read: a HELP and TYPE line per family, then one sample
// per line, `name{label="value",...} number`.
//
// Label values are escaped (backslash, double quote, newline) so that no name a user
// chose (a queue, a user, a host) can break a line or forge a sample.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "daemons/common/histogram.h"

namespace lsf::mbd {

using MetricLabels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

class MetricsText {
 public:
  // Starts a family. `type`: gauge, counter or histogram.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, MetricLabels labels, double value);
  void sample(std::string_view name, double value) { sample(name, {}, value); }
  // A histogram family's samples: cumulative buckets (le in seconds), _sum, _count.
  void histogram(std::string_view name, MetricLabels labels, const net::Histogram& h);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void labels(MetricLabels labels, std::string_view extra_name = {}, std::string_view extra_value = {});
  void value(double v);
  std::string out_;
};

// A label value as the format writes it (without the quotes).
std::string escape_label_value(std::string_view value);

}  // namespace lsf::mbd
