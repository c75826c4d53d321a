// Load thresholds `loadSched/loadStop` as written in lsb.hosts columns and lsb.queues
// load-index lines: `0.7/2.0`, `15/` (no stop), `/8` (no sched), `3.5` (sched only).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "libconfig/result.h"

namespace lsf::config {

struct LoadThreshold {
  std::optional<double> sched;  // dispatch only while the index is on the good side
  std::optional<double> stop;   // suspend when the index passes it
  bool operator==(const LoadThreshold&) const = default;

  static Result<LoadThreshold> parse(std::string_view text);
  std::string to_string() const;  // `sched/stop` with `-` for an empty side
};

}  // namespace lsf::config
