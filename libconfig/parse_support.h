// What every per-file parser needs: the file's catalogue name, the diagnostics, the
// memory unit from lsf.conf, and helpers that turn a value into a typed one or report
// `file:line: <context>: <KEY> ...` and return nullopt.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "libconfig/cluster_config.h"
#include "libconfig/param_catalog.h"
#include "libconfig/section_reader.h"

namespace lsf::config {

// The largest count a configuration file may give where LSF keeps an int.
inline constexpr long long kIntMax = std::numeric_limits<int>::max();

struct FileContext {
  std::string_view kind;  // catalogue file name: "lsb.queues", "lsf.cluster", ...
  Diagnostics& diags;
  MemoryUnit unit = MemoryUnit::kKB;

  // Warns about sections this file does not have; returns false for those.
  bool known_section(const Section& s) const;
  // Warns about unknown keywords and about accepted ones not yet acted on.
  const ParamSpec* check_key(const Section& s, const std::string& key, const SourceLocation& where,
                             const std::string& context) const;
  // Same for the columns of a table section (warned once, at the keyword line).
  void check_columns(const Section& s) const;

  void error(const SourceLocation& where, const std::string& context, const std::string& msg) const;
  void warning(const SourceLocation& where, const std::string& context, const std::string& msg) const;

  std::optional<long long> integer(std::string_view value, const SourceLocation& where, const std::string& context,
                                   std::string_view key, long long min, long long max) const;
  std::optional<double> number(std::string_view value, const SourceLocation& where, const std::string& context,
                               std::string_view key, double min) const;
  std::optional<bool> yes_no(std::string_view value, const SourceLocation& where, const std::string& context,
                             std::string_view key) const;
  // LOCAL_MAX_PREEXEC_RETRY_ACTION: true for EXIT, false for SUSPEND.
  std::optional<bool> preexec_retry_action(std::string_view value, const SourceLocation& where,
                                           const std::string& context, std::string_view key) const;
  std::optional<TimeWindowSet> windows(std::string_view value, const SourceLocation& where, const std::string& context,
                                       std::string_view key) const;
  std::optional<ResourceRequirement> resreq(std::string_view value, const SourceLocation& where,
                                            const std::string& context, std::string_view key) const;
  std::optional<LoadThreshold> threshold(std::string_view value, const SourceLocation& where,
                                         const std::string& context, std::string_view key) const;
  std::optional<std::vector<HostListItem>> hosts(std::string_view value, const SourceLocation& where,
                                                 const std::string& context, std::string_view key) const;
  std::optional<std::vector<UserListItem>> users(std::string_view value, const SourceLocation& where,
                                                 const std::string& context, std::string_view key) const;
  std::optional<std::vector<ShareAssignment>> shares(std::string_view value, const SourceLocation& where,
                                                     const std::string& context, std::string_view key) const;

  // `KEY[n]` such as MAX_RESERVE_TIME[5].
  std::optional<int> bracketed_int(std::string_view value, std::string_view keyword, const SourceLocation& where,
                                   const std::string& context, std::string_view key) const;
};

// True when `name` is a built-in load index or a Numeric site resource, i.e. a name
// that may carry a loadSched/loadStop threshold.
bool is_threshold_name(std::string_view name);

}  // namespace lsf::config
