// bjobs -l: LSF's long format, wrapped at 80 columns in mid-word as LSF wraps it.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

#include "cli/aps_views.h"
#include "cli/bjobs_views.h"
#include "cli/cli_support.h"
#include "cli/gpu_views.h"
#include "cli/history_text.h"
#include "cli/output_format.h"
#include "cli/threshold_table.h"
#include "libconfig/text.h"

namespace lsf::cli {
namespace {

std::string name_of(const wire::JobInfo& j) { return j.job_name(); }

std::string exit_code_text(int status) {
  if (WIFEXITED(status)) return std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::to_string(128 + WTERMSIG(status));
  return std::to_string(status);
}

// One row of limit names over one row of values, each but the last padded to LSF's
// column (24 for the name, 25 for the value).
void print_limit_row(const std::vector<std::pair<std::string, std::string>>& limits) {
  if (limits.empty()) return;
  std::string names, values;
  for (size_t i = 0; i < limits.size(); ++i) {
    const bool last = i + 1 == limits.size();
    char buf[128];
    std::snprintf(buf, sizeof buf, last ? " %s" : " %-24s", limits[i].first.c_str());
    names += buf;
    std::snprintf(buf, sizeof buf, last ? "%s" : "%-25s", limits[i].second.c_str());
    values += buf;
  }
  std::cout << "\n" << names << "\n" << values << "\n";
}

// The job's limits as LSF shows them after the submission line: its own, else its
// queue's (the one that applies), time limits in minutes, memory scaled to a unit.
// Returns whether it printed any.
bool print_limits(const wire::JobInfo& j, const wire::QueueInfo* queue) {
  auto minutes = [](std::int64_t s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.1f min", static_cast<double>(s) / 60.0);
    return std::string(buf);
  };
  std::vector<std::pair<std::string, std::string>> times, sizes;
  if (j.spec().cpu_limit_s() > 0) times.emplace_back("CPULIMIT", minutes(j.spec().cpu_limit_s()));
  const std::int64_t run = j.spec().run_limit_s() > 0 ? j.spec().run_limit_s() : queue ? queue->run_limit_s() : 0;
  if (run > 0) times.emplace_back("RUNLIMIT", minutes(run));
  if (j.spec().mem_limit_kb() > 0) {
    double v = static_cast<double>(j.spec().mem_limit_kb());
    const char* units = "KMGT";
    while (v >= 1024 && units[1] && std::fmod(v, 1024) == 0) {
      v /= 1024;
      ++units;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, " %6g %c", v, *units);
    sizes.emplace_back("MEMLIMIT", buf);
  }
  print_limit_row(times);
  print_limit_row(sizes);
  return !times.empty() || !sizes.empty();
}

}  // namespace

void print_long(const std::vector<wire::JobInfo>& jobs, const std::map<std::string, wire::QueueInfo>& queues,
                const wire::HostsReply* gpu_hosts) {
  bool first = true;
  for (const auto& j : jobs) {
    if (!first) std::cout << std::string(78, '-') << "\n";
    first = false;
    std::cout << "\n";
    std::string id = job_id_text(j.job_id(), j.index());
    std::string head =
        "Job <" + id + ">, Job Name <" + name_of(j) + ">, User <" + j.user() + ">, Project <" + j.spec().project() +
        ">" + (j.spec().app().empty() ? "" : ", Application <" + j.spec().app() + ">") +
        (j.spec().job_group().empty() ? "" : ", Job Group <" + j.spec().job_group() + ">") +
        (j.spec().user_group().empty() ? "" : ", User Group <" + j.spec().user_group() + ">") +
        (j.spec().service_class().empty() ? "" : ", Service Class <" + j.spec().service_class() + ">") + ", Status <" +
        cli::state_name(j.state()) + ">, Queue <" + j.queue() + ">, Job Priority <" + std::to_string(j.priority()) +
        ">, Command <" + shown_command(j.spec().command()) + ">" +
        (j.share_account().empty() ? "" : ", Share group charged <" + j.share_account() + ">") +
        (j.spec().aps_system() != 0  ? ", System Absolute Priority <" + aps_number(j.spec().aps_system()) + ">"
         : j.spec().aps_admin() != 0 ? ", Admin factor value <" + aps_number(j.spec().aps_admin()) + ">"
                                     : "");
    print_wrapped(head, 21);
    std::string sub = cli::long_time(j.submit_time()) + ": Submitted from host <" + j.spec().from_host() + ">, CWD <" +
                      j.spec().cwd() + ">";
    if (!j.spec().out_file().empty()) sub += ", Output File <" + j.spec().out_file() + ">";
    if (!j.spec().err_file().empty()) sub += ", Error File <" + j.spec().err_file() + ">";
    if (!j.spec().res_req().empty()) sub += ", Requested Resources <" + j.spec().res_req() + ">";
    if (!j.spec().gpu().empty() && j.spec().gpu() != "-") sub += ", Requested GPU <" + j.spec().gpu() + ">";
    if (j.spec().min_processors() > 1) sub += ", " + std::to_string(j.spec().min_processors()) + " Task(s)";
    if (j.spec().asked_hosts_size() > 0) {
      sub += ", Specified Hosts ";
      for (int i = 0; i < j.spec().asked_hosts_size(); ++i) sub += (i ? ", <" : "<") + j.spec().asked_hosts(i) + ">";
    }
    if (!j.spec().dependency().empty()) sub += ", Dependency Condition <" + j.spec().dependency() + ">";
    print_wrapped(sub + ";", 21);
    const auto queue = queues.find(j.queue());
    // A blank line parts the limits from a dated line below; the blocks bring their own.
    if (print_limits(j, queue == queues.end() ? nullptr : &queue->second) && j.start_time() > 0) std::cout << "\n";
    if (j.start_time() > 0) {
      // LSF 10's wording, also for one slot: the tasks, then the slots, on the hosts.
      std::string started = cli::long_time(j.start_time()) + ": Started " + dispatched_text(j.exec_hosts());
      if (!j.exec_home().empty()) started += ", Execution Home <" + j.exec_home() + ">";
      if (!j.exec_cwd().empty()) started += ", Execution CWD <" + j.exec_cwd() + ">";
      print_wrapped(started + ";", 21);
    }
    if (j.state() == wire::JOB_DONE || j.state() == wire::JOB_EXIT) {
      char cpu[64];
      std::snprintf(cpu, sizeof cpu, "%.1f", j.cpu_time());
      std::string fin =
          cli::long_time(j.end_time()) + ": " +
          (j.state() == wire::JOB_DONE ? std::string("Done successfully.")
                                       : "Exited with exit code " + exit_code_text(j.exit_status()) + ".") +
          " The CPU time used is " + cpu + " seconds.";
      print_wrapped(fin, 21);
      std::string completed =
          cli::long_time(j.end_time()) + ": Completed <" + (j.state() == wire::JOB_DONE ? "done" : "exit") + ">";
      if (j.state() == wire::JOB_EXIT && !j.exit_reason().empty())
        completed += "; " + exit_reason_explained(j.exit_reason());
      print_wrapped(completed + ".", 21);
    }
    if (j.state() == wire::JOB_PEND || j.state() == wire::JOB_PSUSP) {
      std::cout << "\n PENDING REASONS:\n";
      if (j.state() == wire::JOB_PEND && j.pending_hosts_size() > 0) {
        // With -l, LSF names the hosts behind each host-level reason.
        for (const auto& r : j.pending_hosts()) {
          std::string hosts;
          for (const auto& h : r.hosts()) hosts += (hosts.empty() ? "" : ", ") + h;
          std::cout << " " << r.reason() << ": " << hosts << ";\n";
        }
      } else {
        print_reasons(j.state() == wire::JOB_PSUSP ? "The job was suspended by the user while pending"
                                                   : j.pending_reason());
      }
      if (j.reserved_hosts_size() > 0) {
        // Slot reservation: what is held, grouped by host as LSF prints hosts (2*hostA).
        std::vector<std::pair<std::string, int>> held;
        for (const auto& h : j.reserved_hosts()) {
          if (held.empty() || held.back().first != h)
            held.emplace_back(h, 1);
          else
            ++held.back().second;
        }
        std::string line = " Reserved <" + std::to_string(j.reserved_hosts_size()) + "> job slot(s) on host(s)";
        for (const auto& [h, n] : held) line += " <" + (n > 1 ? std::to_string(n) + "*" : "") + h + ">";
        std::cout << "\n" << line << ";\n";
        if (j.estimated_start() > 0)
          std::cout << " Estimated job start time: " << cli::long_time(j.estimated_start()) << ";\n";
        else
          std::cout << " Estimated job start time: unknown (running jobs without run limits);\n";
      } else if (j.estimated_start() > 0) {
        // RESERVATION_MODEL = PLAN: nothing is held now; the job has booked a start.
        std::cout << "\n Planned start time: " << cli::long_time(j.estimated_start()) << ";\n";
      }
    }
    // What the pass plans the job to run (this project's RUNTIME_ESTIMATE): said where
    // it is a prediction, or where a planned start rests on it.
    if (j.run_estimate() > 0 && (j.estimate_predicted() || (j.estimated_start() > 0 && j.reserved_hosts_size() == 0)) &&
        (j.state() == wire::JOB_PEND || j.state() == wire::JOB_PSUSP || j.state() == wire::JOB_RUN)) {
      std::cout << (j.state() == wire::JOB_RUN ? "\n" : "") << " Planned run time: " << j.run_estimate() << " seconds, "
                << (j.estimate_predicted() ? "predicted from the user's last finished jobs" : "the run limit")
                << " (the job is killed only at its run limit);\n";
    }
    if (j.state() == wire::JOB_USUSP || j.state() == wire::JOB_SSUSP) {
      std::cout << "\n SUSPENDING REASONS:\n";
      print_reasons(j.suspend_reason());
    }
    if (j.start_time() > 0 && j.max_rss_kb() > 0) {
      // The peak is what the execution host measured; an average is not sampled here.
      std::cout << "\n MEMORY USAGE:\n MAX MEM: " << cli::memory_text(static_cast<double>(j.max_rss_kb()), 0)
                << ";  AVG MEM: -\n";
    }
    if (queue != queues.end()) {
      std::cout << "\n SCHEDULING PARAMETERS:\n";
      print_threshold_table(std::cout, queue->second.thresholds());
    }
    if (!j.combined_res_req().empty()) {
      std::cout << "\n RESOURCE REQUIREMENT DETAILS:\n Combined: " << j.combined_res_req()
                << "\n Effective: " << (j.effective_res_req().empty() ? "-" : j.effective_res_req()) << "\n";
    }
    if (!j.gpu_req().empty()) {
      // The requirement is not changed after dispatch: a started job runs with the combined one.
      std::cout << "\n GPU REQUIREMENT DETAILS:\n Combined: " << j.gpu_req()
                << "\n Effective: " << (j.start_time() > 0 ? j.gpu_req() : std::string("-")) << "\n";
    }
    if (gpu_hosts) print_gpu_allocation(std::cout, j, *gpu_hosts);
    std::cout << "\n";
  }
}

}  // namespace lsf::cli
