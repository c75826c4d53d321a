// Absolute priority scheduling vocabulary (lsb.queues APS_PRIORITY):
//   APS_PRIORITY = WEIGHT[[factor, w] ...] LIMIT[[factor, v] ...] GRACE_PERIOD[[factor, t] ...]
// LSF's factors and subfactors: FS; RSRC (PROC, MEM, SWAP); WORK (JPRIORITY, QPRIORITY).
// Maui's, as extensions: FSTARGET (the account's target share less its share of use),
// SERV (QUEUETIME, XFACTOR, BYPASS), TARG (TARGETQUEUETIME) and QOS (the service
// class's PRIORITY; Maui's QOS credential is the job's service class).
// A weighted subfactor gives its factor weight 1 when the factor has none; a weighted
// factor with no weighted subfactor counts each of its subfactors with weight 1. No
// value may be 0. Grace periods are seconds (30s), minutes (30m) or hours (30h, or a
// bare number).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::config {

struct ApsPriority {
  struct Term {
    std::optional<double> weight, limit;
    std::int64_t grace_s = 0;
    bool operator==(const Term&) const = default;
  };
  std::map<std::string, Term, std::less<>> terms;  // by factor or subfactor name

  // The factors and, for each, its subfactors (none for FS and QOS).
  static const std::map<std::string, std::vector<std::string>, std::less<>>& factors();
  // The factor a subfactor belongs to; empty for a factor or an unknown name.
  static std::string_view parent(std::string_view name);

  static Result<ApsPriority> parse(std::string_view text);
  std::string to_string() const;

  // The weight a factor or subfactor counts with (0: not at all), after the defaults above.
  double weight(std::string_view name) const;
  bool operator==(const ApsPriority&) const = default;
};

}  // namespace lsf::config
