#include "libconfig/parse_support.h"

#include <limits>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

std::string prefix(const std::string& context) { return context.empty() ? "" : context + ": "; }

}  // namespace

bool is_threshold_name(std::string_view name) { return find_load_index(name).has_value(); }

bool FileContext::known_section(const Section& s) const {
  if (const SectionSpec* spec = find_section(kind, s.name)) {
    if (spec->support == Support::kSupported) return true;
    diags.warning(s.where, "section " + s.name + " is accepted but not yet acted on");
    return false;
  }
  diags.warning(s.where, "unknown section \"" + s.name + "\" in " + std::string(kind) + " is ignored");
  return false;
}

const ParamSpec* FileContext::check_key(const Section& s, const std::string& key, const SourceLocation& where,
                                        const std::string& context) const {
  const ParamSpec* spec = find_param(kind, s.name, key);
  if (!spec && is_threshold_name(key)) spec = find_param(kind, s.name, "<load index>");
  if (!spec) {
    diags.warning(where, prefix(context) + "unknown parameter " + key + " is ignored");
  } else if (spec->support == Support::kAccepted) {
    diags.warning(where, prefix(context) + key + " is accepted but not yet acted on");
  }
  return spec;
}

void FileContext::check_columns(const Section& s) const {
  for (const auto& col : s.columns) check_key(s, col, s.columns_where, "section " + s.name);
}

void FileContext::error(const SourceLocation& where, const std::string& context, const std::string& msg) const {
  diags.error(where, prefix(context) + msg);
}

void FileContext::warning(const SourceLocation& where, const std::string& context, const std::string& msg) const {
  diags.warning(where, prefix(context) + msg);
}

std::optional<long long> FileContext::integer(std::string_view value, const SourceLocation& where,
                                              const std::string& context, std::string_view key, long long min,
                                              long long max) const {
  auto v = parse_int(value);
  if (!v || *v < min || *v > max) {
    std::string range = max >= std::numeric_limits<int>::max()
                            ? "a whole number of at least " + std::to_string(min)
                            : "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    error(where, context, std::string(key) + " = \"" + std::string(value) + "\" is not " + range);
    return std::nullopt;
  }
  return v;
}

std::optional<double> FileContext::number(std::string_view value, const SourceLocation& where,
                                          const std::string& context, std::string_view key, double min) const {
  auto v = parse_double(value);
  if (!v || *v < min) {
    error(where, context, std::string(key) + " = \"" + std::string(value) + "\" is not a number");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> FileContext::yes_no(std::string_view value, const SourceLocation& where, const std::string& context,
                                        std::string_view key) const {
  auto v = parse_yes_no(value);
  if (!v) error(where, context, std::string(key) + " = \"" + std::string(value) + "\" is not Y or N");
  return v;
}

std::optional<bool> FileContext::preexec_retry_action(std::string_view value, const SourceLocation& where,
                                                      const std::string& context, std::string_view key) const {
  if (iequals(value, "EXIT")) return true;
  if (iequals(value, "SUSPEND")) return false;
  error(where, context, std::string(key) + " = \"" + std::string(value) + "\" is not SUSPEND or EXIT");
  return std::nullopt;
}

std::optional<TimeWindowSet> FileContext::windows(std::string_view value, const SourceLocation& where,
                                                  const std::string& context, std::string_view key) const {
  auto v = TimeWindowSet::parse(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<ResourceRequirement> FileContext::resreq(std::string_view value, const SourceLocation& where,
                                                       const std::string& context, std::string_view key) const {
  auto v = ResourceRequirement::parse(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<LoadThreshold> FileContext::threshold(std::string_view value, const SourceLocation& where,
                                                    const std::string& context, std::string_view key) const {
  auto v = LoadThreshold::parse(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<std::vector<HostListItem>> FileContext::hosts(std::string_view value, const SourceLocation& where,
                                                            const std::string& context, std::string_view key) const {
  auto v = parse_host_list(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<std::vector<UserListItem>> FileContext::users(std::string_view value, const SourceLocation& where,
                                                            const std::string& context, std::string_view key) const {
  auto v = parse_user_list(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<std::vector<ShareAssignment>> FileContext::shares(std::string_view value, const SourceLocation& where,
                                                                const std::string& context,
                                                                std::string_view key) const {
  auto v = parse_shares(value);
  if (!v) {
    error(where, context, std::string(key) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

std::optional<int> FileContext::bracketed_int(std::string_view value, std::string_view keyword,
                                              const SourceLocation& where, const std::string& context,
                                              std::string_view key) const {
  std::string_view v = trim(value);
  if (starts_with_icase(v, keyword)) {
    std::string_view rest = trim(v.substr(keyword.size()));
    if (rest.size() >= 2 && rest.front() == '[' && rest.back() == ']') {
      auto n = parse_int(rest.substr(1, rest.size() - 2));
      if (n && *n >= 0) return static_cast<int>(*n);
    }
  }
  error(where, context, std::string(key) + " = \"" + std::string(value) + "\" is not " + std::string(keyword) + "[n]");
  return std::nullopt;
}

}  // namespace lsf::config
