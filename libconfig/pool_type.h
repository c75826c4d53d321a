// Guarantee pool vocabulary from lsb.resources GuaranteedResourcePool:
//   TYPE = slots | hosts | package[slots=n:mem=m] | resource[name]
//   LOAN_POLICIES = QUEUES[q ... | all] [DURATION[minutes]] [CLOSE_ON_DEMAND] [RETAIN[n | n%]]
// A package needs slots or mem (or both); `package[slots=1]` behaves like a slot pool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/limits.h"
#include "libconfig/result.h"

namespace lsf::config {

struct PoolType {
  enum class Kind { kSlots, kHosts, kPackage, kResource };
  Kind kind = Kind::kSlots;
  std::optional<int> package_slots;
  std::optional<std::int64_t> package_mem_mb;
  std::string resource;  // for kResource

  static Result<PoolType> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const PoolType&) const = default;
};

struct LoanPolicies {
  std::vector<std::string> queues;  // empty: nothing is lent
  bool all_queues = false;
  std::optional<int> duration_minutes;
  bool close_on_demand = false;
  std::optional<double> retain;
  bool retain_percent = false;

  static Result<LoanPolicies> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const LoanPolicies&) const = default;
};

}  // namespace lsf::config
