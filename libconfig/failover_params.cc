#include "libconfig/failover_params.h"

#include <array>

#include "libconfig/text.h"

namespace lsf::config {

namespace {

constexpr std::array<const char*, 4> kTimingKeys = {"EXINTERVAL", "HOST_INACTIVITY_LIMIT", "MASTER_INACTIVITY_LIMIT",
                                                    "PROBE_TIMEOUT"};

std::optional<long long> timing_value(const ClusterConfig& c, const char* key) {
  for (const auto& [k, v] : c.lim_params)
    if (iequals(k, key) && check_failover_param(key, v).empty()) return parse_int(v);
  return std::nullopt;
}

}  // namespace

std::string check_failover_param(const std::string& key, const std::string& value) {
  bool timing = false;
  for (const char* k : kTimingKeys) timing = timing || iequals(key, k);
  if (!timing) return {};
  auto n = parse_int(value);
  if (!n || *n < 1 || *n > 3600) return key + " must be a whole number from 1 to 3600, not '" + value + "'";
  return {};
}

FailoverTiming failover_timing(const ClusterConfig& c) {
  FailoverTiming t;
  if (auto v = timing_value(c, "EXINTERVAL")) t.exchange_interval = std::chrono::seconds(*v);
  if (auto v = timing_value(c, "HOST_INACTIVITY_LIMIT")) t.host_inactivity_limit = static_cast<int>(*v);
  if (auto v = timing_value(c, "MASTER_INACTIVITY_LIMIT")) t.master_inactivity_limit = static_cast<int>(*v);
  if (auto v = timing_value(c, "PROBE_TIMEOUT")) t.probe_timeout = std::chrono::seconds(*v);
  return t;
}

std::vector<std::string> master_candidates(const ClusterConfig& c) {
  if (!c.lsf_conf.master_list.empty()) return c.lsf_conf.master_list;
  std::vector<std::string> out;
  for (const auto& h : c.hosts)
    if (h.server) out.push_back(h.name);
  return out;
}

}  // namespace lsf::config
