#include "daemons/mbatchd/submission_bounds.h"

#include <cstdint>
#include <limits>
#include <string_view>

namespace lsf::mbd {
namespace {

// A NUL would be cut silently wherever the string meets C (exec, file names), so that
// the job would run something other than what was submitted.
daemon::Status check_text(std::string_view value, std::size_t max, const std::string& what) {
  if (value.size() > max)
    return daemon::fail(what + " is too long (" + std::to_string(value.size()) + " characters; at most " +
                        std::to_string(max) + ")");
  if (value.find('\0') != std::string_view::npos) return daemon::fail(what + " contains a NUL character");
  return {};
}

}  // namespace

daemon::Status check_spec_bounds(const wire::JobSpec& s) {
  const struct {
    const std::string& value;
    std::size_t max;
    const char* what;
  } texts[] = {
      {s.command(), kMaxCommandLength, "The job command"},
      {s.job_name(), kMaxNameLength, "The job name (-J)"},
      {s.res_req(), kMaxExpressionLength, "The resource requirement (-R)"},
      {s.in_file(), kMaxPathLength, "The input file (-i)"},
      {s.out_file(), kMaxPathLength, "The output file (-o)"},
      {s.err_file(), kMaxPathLength, "The error file (-e)"},
      {s.pre_exec(), kMaxExpressionLength, "The pre-execution command (-E)"},
      {s.post_exec(), kMaxExpressionLength, "The post-execution command (-Ep)"},
      {s.dependency(), kMaxExpressionLength, "The dependency condition (-w)"},
      {s.cwd(), kMaxPathLength, "The working directory (-cwd)"},
      {s.array_spec(), kMaxExpressionLength, "The job array index list (-J)"},
      {s.project(), kMaxNameLength, "The project name (-P)"},
      {s.from_host(), kMaxNameLength, "The submission host name"},
      {s.requeue_exit_values(), kMaxExpressionLength, "The requeue exit values (-Q)"},
      {s.user_group(), kMaxNameLength, "The user group (-G)"},
      {s.service_class(), kMaxNameLength, "The service class (-sla)"},
      {s.app(), kMaxNameLength, "The application profile (-app)"},
      {s.job_group(), kMaxNameLength, "The job group (-g)"},
      {s.gpu(), kMaxExpressionLength, "The GPU requirement (-gpu)"},
  };
  for (const auto& t : texts)
    if (auto why = check_text(t.value, t.max, t.what); !why) return why;
  if (s.queues_size() > static_cast<int>(kMaxListItems) || s.asked_hosts_size() > static_cast<int>(kMaxListItems))
    return daemon::fail("Too many queues (-q) or hosts (-m) are named (at most " + std::to_string(kMaxListItems) + ")");
  for (const auto& q : s.queues())
    if (auto why = check_text(q, kMaxNameLength, "A queue name (-q)"); !why) return why;
  for (const auto& h : s.asked_hosts())
    if (auto why = check_text(h, kMaxNameLength, "A host name (-m)"); !why) return why;
  if (s.env_size() > static_cast<int>(kMaxEnvironmentVariables))
    return daemon::fail("The job's environment has too many variables (" + std::to_string(s.env_size()) + "; at most " +
                        std::to_string(kMaxEnvironmentVariables) + ")");
  std::size_t env_bytes = 0;
  for (const auto& e : s.env()) {
    env_bytes += e.name().size() + e.value().size() + 2;
    if (e.name().find('\0') != std::string::npos || e.value().find('\0') != std::string::npos)
      return daemon::fail("The job's environment variable " + e.name().substr(0, 64) + " contains a NUL character");
  }
  if (env_bytes > kMaxEnvironmentBytes)
    return daemon::fail("The job's environment is too large (" + std::to_string(env_bytes) + " bytes; at most " +
                        std::to_string(kMaxEnvironmentBytes) + ")");

  // Limits are held as seconds of an int of minutes at most; anything else came from a
  // client that wrapped or forged it.
  constexpr std::int64_t kMaxSeconds = std::int64_t{std::numeric_limits<int>::max()} * 60;
  if (s.run_limit_s() < 0 || s.run_limit_s() > kMaxSeconds) return daemon::fail("Bad RUNLIMIT specification (-W)");
  if (s.cpu_limit_s() < 0 || s.cpu_limit_s() > kMaxSeconds) return daemon::fail("Bad CPULIMIT specification (-c)");
  if (s.mem_limit_kb() < 0) return daemon::fail("Bad memory limit specification (-M)");
  if (s.min_processors() < 0 || s.max_processors() < 0) return daemon::fail("Bad argument for option -n");
  if (s.begin_time() < 0) return daemon::fail("Bad time specification (-b)");
  if (s.array_limit() < 0) return daemon::fail("Bad job array index list");
  if (s.user_priority() < 0) return daemon::fail("Bad job priority (-sp)");
  if (s.umask() > 0777) return daemon::fail("Bad umask");
  return {};
}

}  // namespace lsf::mbd
