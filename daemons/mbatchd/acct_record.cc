#include "daemons/mbatchd/acct_record.h"

#include <cstdio>
#include <map>

namespace lsf::mbd {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

}  // namespace

std::string job_finish_record(const Job& job, std::int64_t event_time) {
  const auto& spec = job.spec();
  std::string out = "\"JOB_FINISH\" \"10.1\" " + std::to_string(event_time);
  auto add = [&](const std::string& field) { out += " " + field; };
  add(std::to_string(job.key.id));
  add(std::to_string(job.submission->uid));
  add("0");  // options
  add(std::to_string(job.slots()));
  add(std::to_string(job.submission->submit_time));
  add(std::to_string(spec.begin_time()));
  add("0");  // termTime
  add(std::to_string(job.start_time));
  add(quoted(job.user()));
  add(quoted(job.queue));
  add(quoted(spec.res_req()));
  add(quoted(spec.dependency()));
  add(quoted(spec.pre_exec()));
  add(quoted(spec.from_host()));
  add(quoted(spec.cwd()));
  add(quoted(spec.in_file()));
  add(quoted(spec.out_file()));
  add(quoted(spec.err_file()));
  add(quoted(""));  // jobFile
  add(std::to_string(spec.asked_hosts_size()));
  for (const auto& h : spec.asked_hosts()) add(quoted(h));
  // Execution hosts once per slot, as LSF lists them.
  add(std::to_string(job.exec_hosts.size()));
  for (const auto& h : job.exec_hosts) add(quoted(h));
  add(std::to_string(job.state == wire::JOB_DONE ? 0x40 : 0x20));  // jStatus
  add(num(1.0));                                                   // hostFactor
  add(quoted(job.display_name()));
  add(quoted(spec.command()));
  // lsfRusage: ru_utime ru_stime ru_maxrss ru_ixrss ru_ismrss ru_idrss ru_isrss ru_minflt
  // ru_majflt ru_nswap ru_inblock ru_oublock ru_ioch ru_msgsnd ru_msgrcv ru_nsignals
  // ru_nvcsw ru_nivcsw ru_exutime
  add(num(job.cpu_time));
  add(num(0));
  add(num(static_cast<double>(job.max_rss_kb)));
  for (int i = 0; i < 15; ++i) add(num(-1));
  add(num(-1));
  add(quoted(""));  // mailUser
  add(quoted(spec.project().empty() ? "default" : spec.project()));
  add(std::to_string(job.exit_status));
  add(std::to_string(std::max(job.slots(), spec.max_processors())));
  add(quoted(""));  // loginShell
  add(quoted(""));  // timeEvent
  add(std::to_string(job.key.index));
  add(std::to_string(job.max_rss_kb));  // maxRMem
  add("-1");                            // maxRSwap
  add(quoted(""));                      // inFileSpool
  add(quoted(""));                      // commandSpool
  add(quoted(job.reason));              // exit reason (LSF 10's exitInfo position differs; ours is last)
  return out + "\n";
}

}  // namespace lsf::mbd
