// Everything mbatchd knows that must survive a restart, and the one function that
// changes it: apply(EventRecord). Live requests and recovery both go through apply(),
// so a replayed log rebuilds exactly the state that was acknowledged.
//
// Per-queue and per-host job counts are kept up to date on every change (never
// recomputed by scanning jobs), so queries and the scheduling view stay cheap.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemons/common/status.h"
#include "daemons/mbatchd/job.h"
#include "libconfig/cluster_config.h"
#include "libsched/model/policy.h"
#include "libsched/runtime_estimate.h"
#include "libsched/share_history.h"
#include "lsf.pb.h"

namespace lsf::mbd {

struct JobCounts {
  int pend = 0, run = 0, ssusp = 0, ususp = 0, psusp = 0;  // in slots
  int njobs() const { return pend + run + ssusp + ususp + psusp; }
};

// Jobs (array elements counted one by one, as bjobs lists them) and their slots by
// state, finished jobs included while mbatchd keeps them: what /metrics reports per
// queue, per user and for the cluster, kept as jobs change.
struct StateTally {
  // The states in the order kTallyStates names them.
  static constexpr int kStates = 7;
  static constexpr int kPend = 0, kRun = 2;
  std::array<int, kStates> jobs{}, slots{};
  int active_jobs() const;  // neither DONE nor EXIT
  bool empty() const;
};
// PEND, PSUSP, RUN, SSUSP, USUSP, DONE, EXIT, as bjobs writes them.
extern const std::array<const char*, StateTally::kStates> kTallyStates;

struct QueueState {
  std::string name;
  bool open = true;
  bool active = true;
  JobCounts counts;
  StateTally tally;
};

struct HostState {
  std::string name;
  bool admin_closed = false;
  std::string admin_comment;
  JobCounts counts;  // run, ssusp, ususp only
  int exclusive_jobs = 0;
  int gpus_used = 0;  // devices held by its started jobs (one per job and device)
  // Started jobs (RUN, USUSP, SSUSP) whose first execution host this is, where sbatchd
  // runs them: a host's registration looks at these alone, not at every started job.
  std::set<sched::JobKey> started_here;
};

// A job group (bgadd, or bsub -g naming one that did not exist). Its path names it;
// the groups above it exist too.
struct JobGroup {
  std::string path;
  std::string owner;
  int limit = -1;  // -1: none
};

class ClusterState {
 public:
  ClusterState() = default;
  ClusterState(const ClusterState&) = delete;  // the indexes point into its node pool
  ClusterState& operator=(const ClusterState&) = delete;

  // Replays and live changes alike. Fails for a record that does not fit the state
  // (an unknown job, say): replay reports it, live code never makes one.
  daemon::Status apply(const wire::EventRecord& record);

  wire::Snapshot snapshot(std::int64_t now) const;
  void load_snapshot(const wire::Snapshot& snapshot);

  // Makes sure every configured queue and host has an entry (kept across reconfig).
  // The policy says which queues' finished jobs are charged for fairshare, and where.
  void sync_config(const config::ClusterConfig& config, std::shared_ptr<const sched::SchedPolicy> policy);

  // Drops finished jobs that ended before `cutoff` (CLEAN_PERIOD); returns how many.
  int clean_finished(std::int64_t cutoff);

  using JobIndex = std::pmr::map<sched::JobKey, Job*>;
  const std::map<sched::JobKey, Job>& jobs() const { return jobs_; }
  Job* find_job(const sched::JobKey& key);
  const Job* find_job(const sched::JobKey& key) const;
  // Every element of a job (one entry for a plain job); empty when unknown.
  std::vector<const Job*> elements(std::int64_t job_id) const;
  // Indexes by state, in job order; the pointers stay valid while the job is known
  // (jobs live in a node-based map).
  const JobIndex& pending() const { return pending_; }
  const JobIndex& started() const { return started_; }
  // Jobs by -J name (latest first), for dependencies by name.
  std::vector<std::int64_t> jobs_named(const std::string& pattern) const;
  // The job that `user`'s submission with this request id (JobSpec.request_id) made,
  // while mbatchd still knows it; 0 when none.
  std::int64_t job_of_request(const std::string& user, const std::string& request_id) const;

  std::map<std::string, QueueState>& queues() { return queues_; }
  const std::map<std::string, QueueState>& queues() const { return queues_; }
  std::map<std::string, HostState>& hosts() { return hosts_; }
  const std::map<std::string, HostState>& hosts() const { return hosts_; }

  // Jobs by state for the whole cluster, and per user (users with no job are dropped).
  const StateTally& tally() const { return tally_; }
  const std::unordered_map<std::string, StateTally>& user_tallies() const { return users_; }

  // Job groups by path: a parent sorts before its children.
  const std::map<std::string, JobGroup>& job_groups() const { return job_groups_; }

  std::int64_t next_job_id() const { return next_job_id_; }
  // After recovery: ids below `id` may have been given to jobs the log lost.
  void raise_next_job_id(std::int64_t id) { next_job_id_ = std::max(next_job_id_, id); }
  std::int64_t last_seq() const { return last_seq_; }
  int finished_since_snapshot() const { return finished_since_snapshot_; }
  void reset_finished_since_snapshot() { finished_since_snapshot_ = 0; }

  // The pending reason of a job is the scheduler's opinion, not persistent state.
  void set_pending_reason(const sched::JobKey& key, std::shared_ptr<const std::string> reason,
                          std::shared_ptr<const sched::HostReasons> hosts = nullptr);
  // A whole pass's reasons at once. `by_index` is the job behind each entry of the
  // pass's view (PendingReason::view_index), valid while jobs_dropped() is as it was
  // when the view was made: then no lookup at all. Reasons it cannot place are sorted
  // and matched with the pending index in one walk.
  void set_pending_reasons(std::vector<sched::PendingReason>& reasons, std::int64_t now,
                           std::span<Job* const> by_index = {});
  // The APS values of the last pass (jobs in no APS_PRIORITY queue get none).
  void set_aps(std::vector<sched::ApsScore>& scores);
  // Counts the times jobs were forgotten (CLEAN_PERIOD): Job pointers taken before stay
  // valid while it does not change.
  std::uint64_t jobs_dropped() const { return jobs_dropped_; }

  // What finished jobs of fairshare queues used (decayed); charged as each job ends,
  // so replaying the log rebuilds it, and kept in snapshots.
  std::shared_ptr<const sched::ShareHistory> share_history() const { return share_history_; }
  // Users' last finished runtimes (RUNTIME_ESTIMATE = PREDICT), from every job that ran
  // and ended: the event log's JOB_STATUS records, kept in snapshots (or lsb.acct's
  // lines, where the snapshot had none: recovery.h).
  const sched::RuntimeHistory& runtimes() const { return runtimes_; }
  // Recovery's rebuild of it from lsb.acct (recovery.h, step 6).
  void set_runtimes(sched::RuntimeHistory history) { runtimes_ = std::move(history); }

 private:
  void track(Job& job, int sign);
  Job& add_job(Job job);
  // apply() for each kind of record.
  daemon::Status apply_new(const wire::JobNewEvent& e);
  daemon::Status apply_start(const wire::JobStartEvent& e, std::int64_t time);
  daemon::Status apply_execute(const wire::JobExecuteEvent& e);
  daemon::Status apply_status(const wire::JobStatusEvent& e, std::int64_t time);
  daemon::Status apply_requeue(const wire::JobRequeueEvent& e, std::int64_t time, std::int64_t seq);
  daemon::Status apply_switch(const wire::JobSwitchEvent& e);
  daemon::Status apply_modify(const wire::JobModifyEvent& e);
  daemon::Status apply_move(const wire::JobMoveEvent& e);
  daemon::Status apply_queue_ctrl(const wire::QueueCtrlEvent& e);
  daemon::Status apply_host_ctrl(const wire::HostCtrlEvent& e);
  daemon::Status apply_job_group(const wire::JobGroupEvent& e);
  void charge_share(const Job& job);

  std::map<sched::JobKey, Job> jobs_;
  // The indexes' nodes come from a pool of their own: a pass walks every pending job's
  // node, and nodes made one after another then lie side by side instead of among the
  // jobs' other allocations, where the walk would miss the cache.
  std::pmr::unsynchronized_pool_resource index_nodes_;
  JobIndex pending_{&index_nodes_};
  JobIndex started_{&index_nodes_};  // RUN, USUSP, SSUSP
  std::multimap<std::string, std::int64_t> by_name_;
  std::unordered_map<std::string, std::int64_t> by_request_;  // "<user>/<request id>" -> job
  std::map<std::string, QueueState> queues_;
  std::map<std::string, HostState> hosts_;
  std::map<std::string, JobGroup> job_groups_;
  StateTally tally_;
  std::unordered_map<std::string, StateTally> users_;
  std::int64_t next_job_id_ = 1;
  std::int64_t last_seq_ = 0;
  int finished_since_snapshot_ = 0;
  std::uint64_t jobs_dropped_ = 0;
  std::vector<sched::JobKey> with_aps_;  // jobs set_aps gave a value
  // The policy in force: which queues' finished jobs are charged for fairshare, where.
  std::shared_ptr<const sched::SchedPolicy> policy_;
  std::shared_ptr<sched::ShareHistory> share_history_ = std::make_shared<sched::ShareHistory>();
  sched::RuntimeHistory runtimes_;
};

// Parses what a submission needs parsed (resource requirement, dependency, -gpu). A
// failure carries the user-facing reason.
daemon::Status prepare_submission(Submission& submission);

// -gpu as mbatchd keeps it: read with `unit` (LSF_UNIT_FOR_LIMITS) for bare amounts and
// written back with every amount's unit, so that a later change of the unit does not
// change a job's request; "-" stays "-". Done to a spec before it is recorded.
daemon::Status normalize_gpu_request(wire::JobSpec& spec, config::MemoryUnit unit);

// A job's GPUs on the wire (events, bjobs, StartJob) and back.
void add_gpu_uses(const sched::GpuAllocation& gpus, google::protobuf::RepeatedPtrField<wire::GpuUse>& out);
sched::GpuAllocation gpu_allocation(const google::protobuf::RepeatedPtrField<wire::GpuUse>& in);

}  // namespace lsf::mbd
