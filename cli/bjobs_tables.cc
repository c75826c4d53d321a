// bjobs' one-line-per-job tables: the default, -w, -W, -p, and the -A and -sum summaries.
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/bjobs_views.h"
#include "cli/cli_support.h"
#include "cli/job_fields.h"
#include "libconfig/text.h"
#include "libsched/host_runs.h"

namespace lsf::cli {
namespace {

// The execution hosts as the default table lists them, one per line: every slot's host
// (LSF's default), or each host once with its slot count (LSB_SHORT_HOSTLIST=1).
std::vector<std::string> listed_hosts(const wire::JobInfo& j, const TableOptions& o) {
  std::vector<std::string> out;
  if (!o.short_hosts || o.uncondensed) {
    out.assign(j.exec_hosts().begin(), j.exec_hosts().end());
    return out;
  }
  return condensed_hosts(j);
}

std::string cpu_clock(double seconds) {
  long long cs = static_cast<long long>(seconds * 100 + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%03lld:%02lld:%02lld.%02lld", cs / 360000, cs / 6000 % 60, cs / 100 % 60, cs % 100);
  return buf;
}

bool finished(const wire::JobInfo& j) { return j.state() == wire::JOB_DONE || j.state() == wire::JOB_EXIT; }

}  // namespace

std::vector<std::string> condensed_hosts(const wire::JobInfo& j) {
  const auto counts = sched::host_runs(j.exec_hosts());
  std::vector<std::string> out;
  for (const auto& [h, n] : counts) out.push_back(n > 1 ? std::to_string(n) + "*" + h : h);
  return out;
}

void print_reasons(const std::string& reasons) {
  for (const auto& r : config::split(reasons, ';')) {
    auto t = config::trim(r);
    if (!t.empty()) std::cout << " " << t << ";\n";
  }
}

namespace {

// bjobs -s (and -ps): LSF prints a suspended job's reasons under its line, as -p prints
// pending ones; a job suspended while pending (PSUSP) gives its pending reason.
void print_job_reasons(const wire::JobInfo& j, const TableOptions& o) {
  if (j.state() == wire::JOB_PSUSP && (o.suspend_reasons || o.pending_reasons))
    print_reasons("The job was suspended by the user while pending");
  else if ((j.state() == wire::JOB_USUSP || j.state() == wire::JOB_SSUSP) && o.suspend_reasons)
    print_reasons(j.suspend_reason());
  else if (j.state() == wire::JOB_PEND && o.pending_reasons)
    print_reasons(j.pending_reason());
}

}  // namespace

void print_default(const std::vector<wire::JobInfo>& jobs, const TableOptions& o) {
  if (o.header) {
    std::cout << "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME";
    if (o.times) std::cout << "  PROJ_NAME CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME";
    std::cout << "\n";
  }
  for (const auto& j : jobs) {
    char line[4096];
    if (o.wide || o.times) {
      auto when = o.times ? wide_time : short_time;
      // A missing value is `-` here (the default table leaves it blank), so that the
      // fields still split on whitespace into the columns of the header.
      std::string hosts = joined_hosts(j);
      if (hosts.empty()) hosts = "-";
      std::snprintf(line, sizeof line, "%-7lld %-7s %-5s %-10s %-11s %-11s %-10s %s",
                    static_cast<long long>(j.job_id()), j.user().c_str(), state_name(j.state()), j.queue().c_str(),
                    j.spec().from_host().c_str(), hosts.c_str(), j.job_name().c_str(), when(j.submit_time()).c_str());
      std::cout << line;
      if (o.times) {
        bool ran = j.start_time() > 0 && j.state() != wire::JOB_PEND;
        std::string mem = j.max_rss_kb() > 0 ? std::to_string(j.max_rss_kb() / 1024) : "-";
        std::string pids = j.pid() > 0 && ran && !finished(j) ? std::to_string(j.pid()) : "-";
        std::snprintf(line, sizeof line, " %-10s %s %-6s %-6s %s %s %s",
                      j.spec().project().empty() ? "default" : j.spec().project().c_str(),
                      cpu_clock(j.cpu_time()).c_str(), mem.c_str(), "-", pids.c_str(),
                      ran ? wide_time(j.start_time()).c_str() : "-",
                      finished(j) ? wide_time(j.end_time()).c_str() : "-");
        std::cout << line;
      }
      std::cout << "\n";
      print_job_reasons(j, o);
      continue;
    }
    auto hosts = listed_hosts(j, o);
    std::snprintf(line, sizeof line, "%-7lld %-7.7s %-5.5s %-10.10s %-11.11s %-11.11s %-10s %s",
                  static_cast<long long>(j.job_id()), j.user().c_str(), state_name(j.state()), j.queue().c_str(),
                  j.spec().from_host().c_str(), hosts.empty() ? "" : hosts[0].c_str(),
                  tail_truncate(j.job_name(), 10).c_str(), short_time(j.submit_time()).c_str());
    std::cout << line << "\n";
    for (size_t i = 1; i < hosts.size(); ++i) std::cout << std::string(45, ' ') << hosts[i] << "\n";
    print_job_reasons(j, o);
  }
}

void print_pending(const std::vector<wire::JobInfo>& jobs, const TableOptions& o) {
  if (o.header) std::cout << "JOBID   USER    STAT  QUEUE      FROM_HOST   JOB_NAME   SUBMIT_TIME\n";
  for (const auto& j : jobs) {
    char line[4096];
    if (o.wide)
      std::snprintf(line, sizeof line, "%-7lld %-7s %-5s %-10s %-11s %-10s %s", static_cast<long long>(j.job_id()),
                    j.user().c_str(), state_name(j.state()), j.queue().c_str(), j.spec().from_host().c_str(),
                    j.job_name().c_str(), short_time(j.submit_time()).c_str());
    else
      std::snprintf(line, sizeof line, "%-7lld %-7.7s %-5.5s %-10.10s %-11.11s %-10s %s",
                    static_cast<long long>(j.job_id()), j.user().c_str(), state_name(j.state()), j.queue().c_str(),
                    j.spec().from_host().c_str(), tail_truncate(j.job_name(), 10).c_str(),
                    short_time(j.submit_time()).c_str());
    std::cout << line << "\n";
    print_reasons(j.state() == wire::JOB_PSUSP ? "The job was suspended by the user while pending"
                                               : j.pending_reason());
  }
}

void print_arrays(const std::vector<wire::JobInfo>& jobs, bool header) {
  struct Counts {
    std::string spec, owner;
    int njobs = 0, pend = 0, done = 0, run = 0, exit = 0, ssusp = 0, ususp = 0, psusp = 0;
  };
  std::map<long long, Counts> arrays;
  for (const auto& j : jobs) {
    if (j.index() <= 0) continue;
    auto& c = arrays[static_cast<long long>(j.job_id())];
    if (c.spec.empty()) {
      c.spec = j.spec().job_name() + "[" + j.spec().array_spec() + "]";
      c.owner = j.user();
    }
    ++c.njobs;
    switch (j.state()) {
      case wire::JOB_PEND:
        ++c.pend;
        break;
      case wire::JOB_DONE:
        ++c.done;
        break;
      case wire::JOB_RUN:
        ++c.run;
        break;
      case wire::JOB_EXIT:
        ++c.exit;
        break;
      case wire::JOB_SSUSP:
        ++c.ssusp;
        break;
      case wire::JOB_USUSP:
        ++c.ususp;
        break;
      case wire::JOB_PSUSP:
        ++c.psusp;
        break;
      default:
        break;
    }
  }
  if (header) std::cout << "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP\n";
  for (const auto& [id, c] : arrays) {
    char line[1024];
    std::snprintf(line, sizeof line, "%-8lld %-11s %-7s %5d %4d %4d %4d %4d %5d %5d %5d", id, c.spec.c_str(),
                  c.owner.c_str(), c.njobs, c.pend, c.done, c.run, c.exit, c.ssusp, c.ususp, c.psusp);
    std::cout << line << "\n";
  }
}

// Job slots by state: how many the listed jobs use (RUN, SSUSP, USUSP, UNKNOWN) or ask for
// (PEND). FWD_PEND counts jobs forwarded to other clusters: none without MultiCluster.
void print_summary(const std::vector<wire::JobInfo>& jobs) {
  long run = 0, ssusp = 0, ususp = 0, unknown = 0, pend = 0;
  for (const auto& j : jobs) {
    long slots = j.exec_hosts_size() > 0 ? j.exec_hosts_size() : std::max(1, j.spec().min_processors());
    switch (j.state()) {
      case wire::JOB_RUN:
        run += slots;
        break;
      case wire::JOB_SSUSP:
        ssusp += slots;
        break;
      case wire::JOB_USUSP:
        ususp += slots;
        break;
      case wire::JOB_UNKWN:
        unknown += slots;
        break;
      case wire::JOB_PEND:
      case wire::JOB_PSUSP:
        pend += slots;
        break;
      default:
        break;
    }
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-12s %-12s %-12s %-12s %-12s %s\n%-12ld %-12ld %-12ld %-12ld %-12ld %d\n", "RUN",
                "SSUSP", "USUSP", "UNKNOWN", "PEND", "FWD_PEND", run, ssusp, ususp, unknown, pend, 0);
  std::cout << line;
}

}  // namespace lsf::cli
