// A job (or one array element) as mbatchd holds it. The submission is shared by every
// element of an array, so 100,000 pending elements cost little more than their state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libconfig/resreq.h"
#include "libsched/dependency.h"
#include "libsched/model/cluster_view.h"
#include "libsched/pass.h"
#include "lsf.pb.h"

namespace lsf::mbd {

// What a submission carries, parsed once.
struct Submission {
  wire::JobSpec spec;
  std::string user;
  std::uint32_t uid = 0;
  std::int64_t submit_time = 0;
  std::shared_ptr<const config::ResourceRequirement> res_req;  // null: none given
  std::shared_ptr<const sched::DependencyExpr> dependency;     // null: none
  std::shared_ptr<const config::GpuRequest> gpu;               // -gpu; null: not given
  std::vector<std::int32_t> indices;                           // array elements
  // What scheduling views derive from the submission under one configuration
  // generation: the requirement merged with its queue's, and -m resolved to hosts.
  // Saves the work per job per pass.
  struct Derived {
    std::uint64_t generation = 0;
    int queue = -1;
    std::shared_ptr<const config::ResourceRequirement> requirement;
    std::uint64_t asked_generation = 0;
    std::shared_ptr<const sched::AskedHosts> asked_hosts;
    // spec.project(), here beside the rest: the spec's string lives elsewhere in memory,
    // one more wait per pending job per pass. Set with `requirement`.
    std::string project;
    // The user's and the view's project name as ids in mbatchd's name tables, which
    // only grow: a pass reads these rather than hashing the names. -1: not yet given.
    int user_id = -1, project_id = -1;
    // The GPU requirement from every level (null: none), for `gpu_queue` under
    // `gpu_generation`.
    std::uint64_t gpu_generation = 0;
    int gpu_queue = -1;
    std::shared_ptr<const config::GpuRequest> gpu;
  };
  mutable Derived derived;
};

// Seconds (whole, so the pause is 1-2 s) a job whose pre-exec failed waits before it
// may be dispatched again: LSF retries on a later scheduling pass, not at once.
inline constexpr std::int64_t kPreExecRetryDelay = 2;
// Seconds between StartJobs for a job whose earlier StartJob's outcome is unknown.
inline constexpr std::int64_t kStartRetryDelay = 5;
// A host clock further than this from the master's is logged.
inline constexpr std::int64_t kClockWarnMs = 2000;

struct Job {
  // What a scheduling pass reads of a pending job comes first, in the first two cache
  // lines: a pass walks every pending job, and each line it touches is a wait.
  sched::JobKey key;
  std::shared_ptr<const Submission> submission;
  std::string queue;
  wire::JobState state = wire::JOB_PEND;
  bool blocked = false;  // the last pass held it back by policy (a throttle): showq's BLOCKED
  bool forced = false;   // started by brun -f
  // Jobs that started after its turn in a pass while it waited (Maui's bypass count, APS
  // BYPASS). Not persisted: a restart counts from 0.
  std::int32_t bypass_count = 0;
  std::int64_t position = 0;  // order within the queue: job id, moved by btop/bbot
  std::int64_t retry_at = 0;  // after a failed pre-exec: not dispatched before
  // When it last became eligible: its submission, or when the last pass stopped blocking
  // it (0: the submission). A blocked job accrues no queue time (APS QUEUETIME, XFACTOR,
  // TARGETQUEUETIME), as in Maui. Not persisted: a restart counts from submission again.
  std::int64_t idle_since = 0;
  std::vector<std::string> excluded_hosts;  // REQUEUE_EXIT_VALUES EXCLUDE(...): never again here
  // From the last scheduling pass (shared: many jobs pend for the same); not persisted.
  // Next to the above: applying a pass writes them for every pending job.
  std::shared_ptr<const std::string> pending_reason;
  std::shared_ptr<const sched::HostReasons> pending_hosts;  // the same, per host (bjobs -l)

  std::int64_t start_time = 0;
  std::int64_t end_time = 0;
  std::vector<std::string> exec_hosts;               // one per slot
  std::shared_ptr<const sched::GpuAllocation> gpus;  // the GPUs of its last start; null: none
  std::int64_t estimate_s = 0;                       // what plans took it to run when it started; 0: its run limit
  // exec_hosts as a pass reads them, (host index, slots there) in the scheduling host
  // table they were worked out for, during dispatch `attempt`: worked out once per start
  // and table rather than looked up by name for every running job in every pass.
  struct PlacedSlots {
    std::shared_ptr<const sched::HostTable> table;
    std::int32_t attempt = -1;
    std::shared_ptr<const std::vector<std::pair<int, int>>> slots;
  };
  mutable PlacedSlots placed;
  std::int32_t exit_status = 0;
  double cpu_time = 0;
  std::int64_t max_rss_kb = 0;
  std::int32_t pid = 0;
  std::string reason;                          // exit reason (TERM_*) or suspend reason
  std::shared_ptr<const sched::ApsScore> aps;  // the last pass's, in an APS_PRIORITY queue
  std::string exec_cwd, exec_home;
  std::int32_t attempt = 0;            // dispatches so far; the current run's number
  std::int32_t pre_exec_failures = 0;  // since the last hold, for LOCAL_MAX_PREEXEC_RETRY

  const wire::JobSpec& spec() const { return submission->spec; }
  const std::string& user() const { return submission->user; }
  bool finished() const { return state == wire::JOB_DONE || state == wire::JOB_EXIT; }
  bool pending() const { return state == wire::JOB_PEND || state == wire::JOB_PSUSP; }
  bool started() const { return !pending() && !(finished() && start_time == 0); }
  int slots() const { return std::max(1, spec().min_processors()); }
  // LSF's display name: the -J name, with [index] for array elements.
  std::string display_name() const;
};

// "12" or "12[3]", as LSF prints job ids in messages.
std::string job_label(const sched::JobKey& key);

}  // namespace lsf::mbd
