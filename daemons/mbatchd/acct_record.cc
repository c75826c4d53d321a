#include "daemons/mbatchd/acct_record.h"

#include <cstdio>
#include <map>
#include <vector>

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

namespace {

// The line's fields: quoted strings (embedded quotes doubled) and bare words.
std::vector<std::string> fields(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\n') {
      ++i;
      continue;
    }
    std::string f;
    if (line[i] == '"') {
      for (++i; i < line.size(); ++i) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        f += line[i];
      }
    } else {
      while (i < line.size() && line[i] != ' ' && line[i] != '\n') f += line[i++];
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::optional<wire::AcctRecord> parse_job_finish_record(std::string_view line) {
  auto f = fields(line);
  if (f.size() < 23 || f[0] != "JOB_FINISH") return std::nullopt;
  size_t at = 3;
  bool cut_short = false;
  auto next = [&]() -> const std::string& {
    static const std::string kNone;
    if (at >= f.size()) {
      cut_short = true;
      return kNone;
    }
    return f[at++];
  };
  auto integer = [&]() {
    const std::string& s = next();
    try {
      return s.empty() ? 0LL : std::stoll(s);
    } catch (...) {
      return 0LL;
    }
  };
  auto real = [&]() {
    const std::string& s = next();
    try {
      return s.empty() ? 0.0 : std::stod(s);
    } catch (...) {
      return 0.0;
    }
  };
  wire::AcctRecord r;
  r.set_job_id(integer());
  next();  // uid
  next();  // options
  r.set_slots(static_cast<int>(integer()));
  r.set_submit_time(integer());
  next();  // beginTime
  next();  // termTime
  r.set_start_time(integer());
  r.set_user(next());
  r.set_queue(next());
  r.set_res_req(next());
  next();  // dependency
  next();  // preExecCmd
  r.set_from_host(next());
  r.set_cwd(next());
  next();  // inFile
  r.set_out_file(next());
  next();                                            // errFile
  next();                                            // jobFile
  for (long long n = integer(); n > 0; --n) next();  // asked hosts
  for (long long n = integer(); n > 0; --n) r.add_exec_hosts(next());
  r.set_done(integer() == 0x40);
  next();  // hostFactor
  r.set_job_name(next());
  r.set_command(next());
  r.set_cpu_time(real() + real());  // user + system
  r.set_max_rss_kb(static_cast<std::int64_t>(real()));
  for (int i = 0; i < 16; ++i) next();  // the rest of lsfRusage
  next();                               // mailUser
  r.set_project(next());
  r.set_exit_status(static_cast<int>(integer()));
  next();  // maxNumProcessors
  next();  // loginShell
  next();  // timeEvent
  r.set_index(static_cast<int>(integer()));
  next();  // maxRMem
  next();  // maxRSwap
  next();  // inFileSpool
  next();  // commandSpool
  r.set_exit_reason(next());
  at = 2;
  r.set_end_time(integer());
  if (cut_short) return std::nullopt;
  return r;
}

}  // namespace lsf::mbd
