// bjobs -l: LSF's long format, wrapped at 80 columns in mid-word as LSF wraps it.
#include <sys/wait.h>

#include <cstdio>
#include <iostream>

#include "cli/aps_views.h"
#include "cli/bjobs_views.h"
#include "cli/cli_support.h"
#include "libconfig/text.h"
#include "libsched/exit_reason.h"

namespace lsf::cli {
namespace {

std::string name_of(const wire::JobInfo& j) { return j.job_name(); }

// LSF's explanation after a TERM_* exit reason.
std::string exit_reason_text(const std::string& reason) {
  const std::string_view text = sched::exit_reason_text(reason);
  return text.empty() ? "" : ": " + std::string(text);
}

std::string exit_code_text(int status) {
  if (WIFEXITED(status)) return std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::to_string(128 + WTERMSIG(status));
  return std::to_string(status);
}

}  // namespace

void print_long(const std::vector<wire::JobInfo>& jobs) {
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
        ">, Command <" + j.spec().command() + ">" +
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
    if (j.spec().min_processors() > 1) sub += ", " + std::to_string(j.spec().min_processors()) + " Task(s)";
    if (j.spec().asked_hosts_size() > 0) {
      sub += ", Specified Hosts ";
      for (int i = 0; i < j.spec().asked_hosts_size(); ++i) sub += (i ? ", <" : "<") + j.spec().asked_hosts(i) + ">";
    }
    if (!j.spec().dependency().empty()) sub += ", Dependency Condition <" + j.spec().dependency() + ">";
    print_wrapped(sub + ";", 21);
    if (j.spec().run_limit_s() > 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %.1f min", static_cast<double>(j.spec().run_limit_s()) / 60.0);
      std::cout << "\n RUNLIMIT\n" << buf << "\n\n";
    }
    if (j.start_time() > 0) {
      std::string hosts;
      for (const auto& h : condensed_hosts(j)) hosts += (hosts.empty() ? "<" : ", <") + h + ">";
      std::string started = cli::long_time(j.start_time()) + ": Started " +
                            (j.exec_hosts_size() > 1 ? std::to_string(j.exec_hosts_size()) + " Task(s) on Host(s) "
                                                     : std::string("on ")) +
                            hosts;
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
      std::string completed = std::string("Completed <") + (j.state() == wire::JOB_DONE ? "done" : "exit") + ">";
      if (j.state() == wire::JOB_EXIT && !j.exit_reason().empty())
        completed += "; " + j.exit_reason() + exit_reason_text(j.exit_reason());
      std::cout << std::string(21, ' ') << completed << ".\n";
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
      }
    }
    if (j.state() == wire::JOB_USUSP || j.state() == wire::JOB_SSUSP) {
      std::cout << "\n SUSPENDING REASONS:\n";
      print_reasons(j.suspend_reason());
    }
    std::cout << "\n";
  }
}

}  // namespace lsf::cli
