// Per-job limits as lsb.queues and bsub write them.
//
//  - Memory amounts take a unit suffix (K KB M MB G GB T TB P PB E EB); a bare number is
//    in LSF_UNIT_FOR_LIMITS (KB unless lsf.conf says otherwise). Stored in KB.
//  - Time limits are `[hours:]minutes[/host_spec]`; minutes may exceed 59 (`210` is
//    3:30). The host spec names a host or model whose CPU factor normalises the limit
//    (`CPULIMIT = 180/apple`).
//  - Queue limits may give `default maximum` (two values) or a maximum alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::config {

enum class MemoryUnit { kKB, kMB, kGB, kTB, kPB, kEB };

Result<MemoryUnit> parse_memory_unit(std::string_view text);
std::string_view memory_unit_name(MemoryUnit unit);

// Returns kilobytes.
Result<std::int64_t> parse_memory(std::string_view text, MemoryUnit default_unit);

struct TimeLimit {
  int minutes = 0;
  std::string host_spec;  // empty: not normalised to a named host or model
  bool operator==(const TimeLimit&) const = default;

  static Result<TimeLimit> parse(std::string_view text);
  std::string to_string() const;  // `H:MM[/spec]`
};

template <typename T>
struct DefaultAndMax {
  std::optional<T> default_value;
  T maximum{};
  bool operator==(const DefaultAndMax&) const = default;
};

// `[default] maximum` time limits (RUNLIMIT, CPULIMIT).
Result<DefaultAndMax<TimeLimit>> parse_time_limits(std::string_view text);
// `[default] maximum` memory limits in KB (MEMLIMIT, SWAPLIMIT, FILELIMIT, ...).
Result<DefaultAndMax<std::int64_t>> parse_memory_limits(std::string_view text, MemoryUnit unit);

// PROCLIMIT = [minimum [default]] maximum.
struct ProcessorLimit {
  int minimum = 1;
  int default_value = 1;
  int maximum = 1;
  bool operator==(const ProcessorLimit&) const = default;
};
Result<ProcessorLimit> parse_processor_limit(std::string_view text);

// REQUEUE_EXIT_VALUES = 30 55 EXCLUDE(20 2): exit codes that put the job back to PEND;
// those under EXCLUDE also keep it off the host where it failed.
// REQUEUE_EXIT_VALUES and bsub -Q: "2 3 EXCLUDE(9)", "all ~1 ~2".
struct RequeueExitValues {
  std::vector<int> requeue;
  std::vector<int> exclude;
  bool operator==(const RequeueExitValues&) const = default;

  static Result<RequeueExitValues> parse(std::string_view text);
  std::string to_string() const;
};

}  // namespace lsf::config
