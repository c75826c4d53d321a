#include "cli/limit_config.h"

#include <cstdint>
#include <cstdio>
#include <iostream>

namespace lsf::cli {

std::string limit_amount(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<long long>(v)) ? "%.0f" : "%.1f", v);
  return buf;
}

void print_limit_config(const wire::LimitInfo& l) {
  std::cout << "Begin Limit\nNAME = " << l.name() << "\n";
  auto consumer = [](const char* key, const char* per, const std::string& v, bool is_per) {
    if (!v.empty()) std::cout << (is_per ? per : key) << " = " << v << "\n";
  };
  consumer("USERS", "PER_USER", l.users(), l.per_user());
  consumer("QUEUES", "PER_QUEUE", l.queues(), l.per_queue());
  consumer("HOSTS", "PER_HOST", l.hosts(), l.per_host());
  consumer("PROJECTS", "PER_PROJECT", l.projects(), l.per_project());
  // `8`, or `6/8` with a soft value.
  auto soft_hard = [](const char* key, std::int64_t soft, std::int64_t hard) {
    if (hard < 0) return;
    std::cout << key << " = ";
    if (soft >= 0 && soft != hard) std::cout << soft << "/";
    std::cout << hard << "\n";
  };
  soft_hard("SLOTS", l.slots_soft(), l.slots());
  if (l.slots_per_processor() >= 0)
    std::cout << "SLOTS_PER_PROCESSOR = " << limit_amount(l.slots_per_processor()) << "\n";
  soft_hard("JOBS", l.jobs_soft(), l.jobs());
  if (l.idle_jobs() >= 0) std::cout << "IDLE_JOBS = " << l.idle_jobs() << "\n";
  if (l.total_jobs() >= 0) std::cout << "TOTAL_JOBS = " << l.total_jobs() << "\n";
  soft_hard("PROC_SECONDS", l.proc_seconds_soft(), l.proc_seconds_hard());
  std::string others;
  for (const auto& [name, v] : l.resources()) {
    if (name == "mem" || name == "swp" || name == "tmp")
      std::cout << (name == "mem" ? "MEM" : name == "swp" ? "SWP" : "TMP") << " = " << limit_amount(v) << "\n";
    else
      others += "[" + name + ", " + limit_amount(v) + "] ";
  }
  if (!others.empty()) std::cout << "RESOURCE = " << others.substr(0, others.size() - 1) << "\n";
  std::cout << "End Limit\n\n";
}

}  // namespace lsf::cli
