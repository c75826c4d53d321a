#include "daemons/sbatchd/job_report.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include "libsched/exit_reason.h"
#include "libsched/host_runs.h"

namespace lsf::sbd {
namespace {

const std::string kRule(60, '-');

// "Fri Feb  4 18:52:40 2022", the host's local time, as LSF writes it.
std::string long_time(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

// "<2*hostA>, <hostB>": one entry per slot, consecutive repeats counted.
std::string host_list(const wire::JobLaunch& l) {
  const auto counts = sched::host_runs(l.exec_hosts());
  std::string out;
  for (const auto& [h, n] : counts)
    out += (out.empty() ? "<" : ", <") + (n > 1 ? std::to_string(n) + "*" : std::string()) + h + ">";
  return out;
}

// A usage line: the label, then the value from column 49.
std::string usage_line(const std::string& label, const std::string& value) {
  std::string line = "    " + label + " :";
  if (line.size() < 49) line.resize(49, ' ');
  return line + value + "\n";
}

std::string fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string job_report(const wire::JobLaunch& l, const JobEnd& end) {
  const std::string id =
      std::to_string(l.job_id()) + (l.index() > 0 ? "[" + std::to_string(l.index()) + "]" : std::string());
  const std::string cluster = l.cluster_name();
  const std::string host =
      l.exec_hosts().empty() ? std::string() : l.exec_hosts(0).substr(0, l.exec_hosts(0).find('@'));
  const int st = end.wait_status;
  // As mbatchd decides DONE or EXIT: a job LSF killed exited, whatever its status.
  const bool done = WIFEXITED(st) && WEXITSTATUS(st) == 0 && end.exit_reason.empty();

  std::string r = "\n" + kRule + "\n";
  r += "Sender: LSF System <" + l.cluster_admin() + "@" + host + ">\n";
  r += "Subject: Job " + id + ": <" + l.job_name() + "> in cluster <" + cluster + "> " + (done ? "Done" : "Exited") +
       "\n\n";
  r += "Job <" + l.job_name() + "> was submitted from host <" + l.spec().from_host() + "> by user <" + l.user() +
       "> in cluster <" + cluster + "> at " + long_time(l.submit_time()) + "\n";
  r += "Job was executed on host(s) " + host_list(l) + ", in queue <" + l.queue() + ">, as user <" + l.user() +
       "> in cluster <" + cluster + "> at " + long_time(l.start_time()) + "\n";
  if (!end.home.empty()) r += "<" + end.home + "> was used as the home directory.\n";
  if (!l.spec().cwd().empty()) r += "<" + l.spec().cwd() + "> was used as the working directory.\n";
  r += "Started at " + long_time(l.start_time()) + "\n";
  r += "Terminated at " + long_time(end.end_time) + "\n";
  r += "Results reported at " + long_time(end.end_time) + "\n";

  std::string command = l.spec().command();
  if (command.empty() || command.back() != '\n') command += '\n';
  r += "\nYour job looked like:\n\n" + kRule + "\n# LSBATCH: User input\n" + command + kRule + "\n\n";

  if (done) {
    r += "Successfully completed.\n";
  } else {
    if (auto text = sched::exit_reason_text(end.exit_reason); !text.empty())
      r += end.exit_reason + ": " + std::string(text) + ".\n";
    // The exit code bjobs, bhist and bacct give: the status, or 128 + the signal.
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : st;
    r += "Exited with exit code " + std::to_string(code) + ".\n";
  }

  const double max_mb = static_cast<double>(end.max_rss_kb) / 1024.0;
  const double asked_mb = l.requested_mem_mb();
  r += "\nResource usage summary:\n\n";
  r += usage_line("CPU time", fixed2(end.cpu_time) + " sec.");
  r += usage_line("Max Memory",
                  end.max_rss_kb > 0 ? std::to_string(std::max<long long>(1, std::llround(max_mb))) + " MB" : "-");
  r += usage_line("Average Memory", "-");
  r += usage_line("Total Requested Memory", asked_mb > 0 ? fixed2(asked_mb) + " MB" : "-");
  r += usage_line("Delta Memory", asked_mb > 0 && end.max_rss_kb > 0 ? fixed2(asked_mb - max_mb) + " MB" : "-");
  r += usage_line("Max Swap", "-");
  r += usage_line("Max Processes", "-");
  r += usage_line("Max Threads", "-");
  r += usage_line("Run time", std::to_string(std::max<std::int64_t>(0, end.end_time - l.start_time())) + " sec.");
  r += usage_line("Turnaround time",
                  std::to_string(std::max<std::int64_t>(0, end.end_time - l.submit_time())) + " sec.");
  r += "\nThe output (if any) is above this job summary.\n\n";
  return r;
}

}  // namespace lsf::sbd
