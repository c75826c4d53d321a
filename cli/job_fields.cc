#include "cli/job_fields.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>

#include "cli/aps_views.h"
#include "cli/cli_support.h"

namespace lsf::cli {
namespace {

// In the order of the table below.
enum Field : size_t {
  kJobId,
  kJobIndex,
  kStat,
  kUser,
  kQueue,
  kJobPriority,
  kProjName,
  kUgroup,
  kSla,
  kApp,
  kJobGroup,
  kJobName,
  kPids,
  kExitCode,
  kExitReason,
  kFromHost,
  kFirstHost,
  kExecHost,
  kNexecHost,
  kAllocSlot,
  kNallocSlot,
  kNreqSlot,
  kMinReqProc,
  kMaxReqProc,
  kExclusive,
  kSubmitTime,
  kStartTime,
  kEstimatedStartTime,
  kSpecifiedStartTime,
  kFinishTime,
  kPendTime,
  kCpuUsed,
  kRunTime,
  kTimeLeft,
  kSlots,
  kMem,
  kMaxMem,
  kMemLimit,
  kRunTimeLimit,
  kCpuLimit,
  kEffectiveResreq,
  kInputFile,
  kOutputFile,
  kErrorFile,
  kSubCwd,
  kExecHome,
  kExecCwd,
  kPendReason,
  kDependency,
  kCommand,
  kAps,
  kFieldCount
};

constexpr FieldDef kFields[] = {
    {"jobid", "id", 7},
    {"jobindex", "", 8},
    {"stat", "", 5},
    {"user", "", 7},
    {"queue", "", 10},
    {"job_priority", "priority", 12},
    {"proj_name", "proj project", 11},
    {"user_group", "ugroup", 15},
    {"sla", "", 15},
    {"app", "", 15},
    {"job_group", "jobgroup", 10},
    {"job_name", "name", 10, true},
    {"pids", "", 20},
    {"exit_code", "", 10},
    {"exit_reason", "", 50},
    {"from_host", "", 11},
    {"first_host", "", 11},
    {"exec_host", "", 11},
    {"nexec_host", "", 10},
    {"alloc_slot", "", 20},
    {"nalloc_slot", "", 10},
    {"nreq_slot", "", 10},
    {"min_req_proc", "", 12},
    {"max_req_proc", "", 12},
    {"exclusive", "", 13},
    {"submit_time", "", 15},
    {"start_time", "", 15},
    {"estimated_start_time", "estart_time", 20},
    {"specified_start_time", "sstart_time", 20},
    {"finish_time", "", 16},
    {"pend_time", "", 12},
    {"cpu_used", "", 10},
    {"run_time", "", 15},
    {"time_left", "", 11},
    {"slots", "", 5},
    {"mem", "", 15, false, true},
    {"max_mem", "", 15, false, true},
    {"memlimit", "", 10, false, true},
    {"runtimelimit", "", 12},
    {"cpulimit", "", 10},
    {"effective_resreq", "eresreq", 17},
    {"input_file", "", 10},
    {"output_file", "", 11},
    {"error_file", "", 10},
    {"sub_cwd", "", 10},
    {"exec_home", "", 10},
    {"exec_cwd", "", 10},
    {"pend_reason", "", 11},
    {"dependency", "", 15},
    {"command", "cmd", 15},
    {"aps", "", 8},  // an extension: LSF shows APS only with bjobs -aps
};
static_assert(std::size(kFields) == kFieldCount);

bool finished(const wire::JobInfo& j) { return j.state() == wire::JOB_DONE || j.state() == wire::JOB_EXIT; }
bool started(const wire::JobInfo& j) { return j.start_time() > 0 && j.state() != wire::JOB_PEND; }

// Distinct execution hosts with their slot counts, in order of first appearance.
std::vector<std::pair<std::string, int>> host_counts(const wire::JobInfo& j) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& h : j.exec_hosts()) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == h; });
    if (it == out.end())
      out.emplace_back(h, 1);
    else
      ++it->second;
  }
  return out;
}

std::string seconds_text(std::int64_t s) { return std::to_string(s) + " second(s)"; }

std::string minutes_text(std::int64_t seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(seconds) / 60.0);
  return buf;
}

std::string exit_code(const wire::JobInfo& j) {
  if (j.state() != wire::JOB_EXIT) return "";
  int st = j.exit_status();
  if (WIFEXITED(st)) return std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return std::to_string(128 + WTERMSIG(st));
  return std::to_string(st);
}

std::string exit_reason(const wire::JobInfo& j) {
  if (j.state() != wire::JOB_EXIT) return "";
  if (!j.exit_reason().empty()) return j.exit_reason();
  return "";
}

std::string pend_reason(const wire::JobInfo& j) {
  if (j.state() == wire::JOB_PSUSP) return "The job was suspended by the user while pending";
  if (j.state() != wire::JOB_PEND) return "";
  std::string r = j.pending_reason();
  while (!r.empty() && (r.back() == ';' || r.back() == ' ')) r.pop_back();
  return r;
}

}  // namespace

std::span<const FieldDef> job_fields() { return kFields; }

std::string joined_hosts(const wire::JobInfo& job) {
  std::string out;
  for (const auto& h : job.exec_hosts()) out += (out.empty() ? "" : ":") + h;
  return out;
}

std::string job_field_value(const wire::JobInfo& j, const Column& column, std::int64_t now) {
  const auto& spec = j.spec();
  switch (static_cast<Field>(column.field)) {
    case kJobId:
      return std::to_string(j.job_id());
    case kJobIndex:
      return std::to_string(j.index());
    case kStat:
      return state_name(j.state());
    case kUser:
      return j.user();
    case kQueue:
      return j.queue();
    case kJobPriority:
      return j.priority() > 0 ? std::to_string(j.priority()) : "";
    case kAps:
      // As bjobs -aps: calculated 109.00, a system value (10), nothing outside APS queues.
      if (!j.has_aps()) return "";
      if (spec.aps_system() != 0) return "(" + aps_number(j.aps()) + ")";
      {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f", j.aps());
        return buf;
      }
    case kProjName:
      return spec.project().empty() ? "default" : spec.project();
    case kUgroup:
      return spec.user_group();
    case kSla:
      return spec.service_class();
    case kApp:
      return spec.app();
    case kJobGroup:
      return spec.job_group();
    case kJobName:
      return j.job_name();
    case kPids:
      return j.pid() > 0 && !finished(j) ? std::to_string(j.pid()) : "";
    case kExitCode:
      return exit_code(j);
    case kExitReason:
      return exit_reason(j);
    case kFromHost:
      return spec.from_host();
    case kFirstHost:
      return j.exec_hosts_size() > 0 ? j.exec_hosts(0) : "";
    case kExecHost:
      return joined_hosts(j);
    case kNexecHost:
      return j.exec_hosts_size() > 0 ? std::to_string(host_counts(j).size()) : "";
    case kAllocSlot: {
      std::string out;
      for (const auto& [h, n] : host_counts(j)) out += (out.empty() ? "" : ":") + std::to_string(n) + "*" + h;
      return out;
    }
    case kNallocSlot:
      return std::to_string(j.exec_hosts_size());
    case kNreqSlot:
    case kMinReqProc:
      return std::to_string(std::max(1, spec.min_processors()));
    case kMaxReqProc:
      return std::to_string(std::max({1, spec.min_processors(), spec.max_processors()}));
    case kExclusive:
      return spec.exclusive() ? "Y" : "N";
    case kSubmitTime:
      return short_time(j.submit_time());
    case kStartTime:
      return started(j) ? short_time(j.start_time()) : "";
    case kEstimatedStartTime:
      return j.estimated_start() > 0 ? short_time(j.estimated_start()) : "";
    case kSpecifiedStartTime:
      return spec.begin_time() > 0 ? short_time(spec.begin_time()) : "";
    case kFinishTime:
      // LSF shows when a running job must end by its run limit, flagged ` L`.
      if (finished(j)) return short_time(j.end_time());
      if (started(j) && spec.run_limit_s() > 0) return short_time(j.start_time() + spec.run_limit_s()) + " L";
      return "";
    case kPendTime: {
      std::int64_t until = started(j) ? j.start_time() : finished(j) ? j.end_time() : now;
      return std::to_string(std::max<std::int64_t>(0, until - j.submit_time()));
    }
    case kCpuUsed: {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.1f second(s)", j.cpu_time());
      return buf;
    }
    case kRunTime: {
      if (!started(j)) return "0 second(s)";
      std::int64_t end = finished(j) ? j.end_time() : now;
      return seconds_text(std::max<std::int64_t>(0, end - j.start_time()));
    }
    case kTimeLeft: {
      if (!started(j) || finished(j) || spec.run_limit_s() <= 0) return "";
      std::int64_t left = std::max<std::int64_t>(0, j.start_time() + spec.run_limit_s() - now);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%lld:%02lld L", static_cast<long long>(left / 3600),
                    static_cast<long long>(left % 3600 / 60));
      return buf;
    }
    case kSlots:
      return started(j) ? std::to_string(j.exec_hosts_size()) : "";
    case kMem:
      return started(j) && !finished(j) && j.max_rss_kb() > 0
                 ? memory_text(static_cast<double>(j.max_rss_kb()), column.unit)
                 : "";
    case kMaxMem:
      return j.max_rss_kb() > 0 ? memory_text(static_cast<double>(j.max_rss_kb()), column.unit) : "";
    case kMemLimit:
      return spec.mem_limit_kb() > 0 ? memory_text(static_cast<double>(spec.mem_limit_kb()), column.unit) : "";
    case kRunTimeLimit:
      return spec.run_limit_s() > 0 ? minutes_text(spec.run_limit_s()) : "";
    case kCpuLimit:
      return spec.cpu_limit_s() > 0 ? minutes_text(spec.cpu_limit_s()) : "";
    case kEffectiveResreq:
      return spec.res_req();
    case kInputFile:
      return spec.in_file();
    case kOutputFile:
      return spec.out_file();
    case kErrorFile:
      return spec.err_file();
    case kSubCwd:
      return spec.cwd();
    case kExecHome:
      return j.exec_home();
    case kExecCwd:
      return j.exec_cwd();
    case kPendReason:
      return pend_reason(j);
    case kDependency:
      return spec.dependency();
    case kCommand:
      return spec.command();
    case kFieldCount:
      break;
  }
  return "";
}

}  // namespace lsf::cli
