#include "cli/aps_views.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/cli_support.h"
#include "cli/output_format.h"

namespace lsf::cli {

std::string aps_number(double v) {
  char buf[64];
  // bmod -aps values as given: 10 -> "10", 10.5 -> "10.5".
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

namespace {

// -1: no APS (not pending, or not in an APS queue); 0: calculated; 1: a system value.
int aps_rank(const wire::JobInfo& j) {
  if (!j.has_aps()) return -1;
  return j.spec().aps_system() != 0 ? 1 : 0;
}

std::string aps_text(const wire::JobInfo& j) {
  if (aps_rank(j) < 0) return "-";
  if (aps_rank(j) > 0) return "(" + aps_number(j.aps()) + ")";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", j.aps());
  return buf;
}

}  // namespace

void sort_by_aps(std::vector<wire::JobInfo>& jobs) {
  auto pending = std::stable_partition(jobs.begin(), jobs.end(), [](const wire::JobInfo& j) {
    return j.state() != wire::JOB_PEND && j.state() != wire::JOB_PSUSP;
  });
  std::stable_sort(pending, jobs.end(), [](const wire::JobInfo& a, const wire::JobInfo& b) {
    if (aps_rank(a) != aps_rank(b)) return aps_rank(a) > aps_rank(b);
    if (aps_rank(a) >= 0 && a.aps() != b.aps()) return a.aps() > b.aps();
    if (a.submit_time() != b.submit_time()) return a.submit_time() < b.submit_time();
    return a.job_id() < b.job_id();
  });
}

void print_aps(const std::vector<wire::JobInfo>& jobs, const TableOptions& o) {
  if (o.header)
    std::cout << "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME     APS\n";
  for (const auto& j : jobs) {
    // The first execution host, with its slots as bjobs condenses them (4*hostA).
    std::string first;
    if (j.exec_hosts_size() > 0) {
      auto n = std::count(j.exec_hosts().begin(), j.exec_hosts().end(), j.exec_hosts(0));
      first = n > 1 ? std::to_string(n) + "*" + j.exec_hosts(0) : j.exec_hosts(0);
    }
    char line[4096];
    std::snprintf(line, sizeof line, "%-7lld %-7.7s %-5.5s %-10.10s %-11.11s %-11.11s %-10s %s %6s",
                  static_cast<long long>(j.job_id()), j.user().c_str(), state_name(j.state()), j.queue().c_str(),
                  j.spec().from_host().c_str(), first.c_str(), tail_truncate(j.job_name(), 10).c_str(),
                  short_time(j.submit_time()).c_str(), aps_text(j).c_str());
    std::cout << line << "\n";
  }
}

void print_prio(const std::vector<wire::JobInfo>& jobs, const TableOptions& o) {
  // A column for each factor some listed job is weighted by, in APS_PRIORITY's order.
  static const char* kOrder[] = {
      "FS",     "FSTARGET",        "PROC", "MEM",  "SWAP", "JPRIORITY", "QPRIORITY", "QUEUETIME", "XFACTOR",
      "BYPASS", "TARGETQUEUETIME", "QOS",  "ADMIN"};
  std::vector<std::string> columns;
  for (const char* name : kOrder)
    for (const auto& j : jobs)
      if (std::any_of(j.aps_factors().begin(), j.aps_factors().end(),
                      [&](const auto& f) { return f.name() == name; })) {
        columns.push_back(name);
        break;
      }
  auto width = [](const std::string& name) { return std::max<int>(9, static_cast<int>(name.size())); };
  if (o.header) {
    char head[128];
    std::snprintf(head, sizeof head, "%-7s %-7s %-10s %8s", "JOBID", "USER", "QUEUE", "APS");
    std::cout << head;
    for (const auto& c : columns) std::cout << " " << std::string(static_cast<size_t>(width(c)) - c.size(), ' ') << c;
    std::cout << "\n";
  }
  for (const auto& j : jobs) {
    if (j.state() != wire::JOB_PEND && j.state() != wire::JOB_PSUSP) continue;
    char line[256];
    std::snprintf(line, sizeof line, "%-7lld %-7.7s %-10.10s %8s", static_cast<long long>(j.job_id()), j.user().c_str(),
                  j.queue().c_str(), aps_text(j).c_str());
    std::cout << line;
    for (const auto& c : columns) {
      std::string v = "-";
      for (const auto& f : j.aps_factors())
        if (f.name() == c) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.2f", f.value());
          v = buf;
        }
      std::cout << " " << std::string(static_cast<size_t>(std::max(0, width(c) - static_cast<int>(v.size()))), ' ')
                << v;
    }
    std::cout << "\n";
  }
}

void print_prio_json(const std::vector<wire::JobInfo>& jobs) {
  std::vector<const wire::JobInfo*> pending;
  for (const auto& j : jobs)
    if (j.state() == wire::JOB_PEND || j.state() == wire::JOB_PSUSP) pending.push_back(&j);
  std::cout << "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" << pending.size() << ",\n  \"RECORDS\":[";
  for (size_t r = 0; r < pending.size(); ++r) {
    const wire::JobInfo& j = *pending[r];
    std::vector<std::pair<std::string, std::string>> fields = {
        {"JOBID", job_id_text(j.job_id(), j.index())}, {"USER", j.user()}, {"QUEUE", j.queue()}, {"APS", aps_text(j)}};
    for (const auto& f : j.aps_factors()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", f.value());
      fields.emplace_back(f.name(), buf);
    }
    std::cout << (r ? ",\n" : "\n") << "    {\n";
    for (size_t i = 0; i < fields.size(); ++i)
      std::cout << "      " << json_quote(fields[i].first) << ":" << json_quote(fields[i].second)
                << (i + 1 < fields.size() ? ",\n" : "\n");
    std::cout << "    }";
  }
  std::cout << (pending.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

}  // namespace lsf::cli
