// The process that watches one job, like LSF's child sbatchd.
//
// sbatchd forks it per job. It starts a session of its own, so it outlives an sbatchd
// crash; runs the pre-execution commands, then the job in a process group of its own
// (as the submitting user when sbatchd runs as root), waits for it, appends LSF's job
// report to its -o file (job_report.h; as the user), runs the post-execution commands
// and writes the outcome to a file. A restarted sbatchd finds
// its jobs again through those files, whether they ended while it was away or not.
//
// Files in the state directory, per job (key = "<id>.<index>"):
// The directory is root's (mode 0711): users reach only the host file handed to them,
// and every file that holds a job's environment or output is 0600.
//   <key>.out   the job's standard output when it has no -o file
//   <key>.run   "pid <pid>" once the job is started (its pid is its process group), then
//               "exit <kind> <wait status> <cpu seconds> <max rss KB> <end time> <message>"
//               where kind is done, preexec (pre-exec failed) or nostart (could not start)
//   <key>.hosts LSB_DJOB_HOSTFILE for a job on several hosts; a job on one host shares
//               hostfile.<host>.<slots> with the jobs of that shape
//   <key>.job   sbatchd's own record of the job (SbdJob); the supervisor reads the exit
//               reason sbatchd saved there before it signalled the job, for the report
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::sbd {

std::string job_key(std::int64_t id, std::int32_t index);

// Forks the supervisor; returns its pid, or why not. Call only from a
// single-threaded process: the child runs C++ after fork. A job whose user is root
// runs only with `allow_root` (LSF_ROOT_USER=Y); otherwise it ends as not started.
daemon::Result<pid_t> spawn_supervisor(const wire::JobLaunch& launch, const std::filesystem::path& state_dir,
                                       bool allow_root);

struct JobOutcome {
  std::string kind;  // done, preexec, nostart
  int wait_status = 0;
  double cpu_time = 0;
  std::int64_t max_rss_kb = 0;
  std::int64_t end_time = 0;
  std::string message;
};

// Where the job's standard output goes: its -o file (%J and %I substituted, relative
// to its working directory), else <key>.out in the state directory, which bpeek reads
// and which goes with the job.
std::filesystem::path output_path(const wire::JobLaunch& launch, const std::filesystem::path& state_dir);

// What <key>.run says so far: the job's pid (0 until it is started) and its outcome
// (none until it has ended).
struct RunState {
  pid_t job_pid = 0;
  std::optional<JobOutcome> outcome;
};
RunState read_run_state(const std::filesystem::path& state_dir, const std::string& key);

}  // namespace lsf::sbd
