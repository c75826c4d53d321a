// ClusterConfig: everything an LSF admin configures, fully typed. Built once by the
// loader from lsf.conf, lsf.shared, lsf.cluster.<name> and the lsb.* files, then
// never changed (a reconfiguration builds a new one). No later stage parses strings.
//
// Every record keeps the SourceLocation it came from, so later stages (the scheduler's
// pending reasons, badmin) can point the admin at the line that caused a behaviour.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libconfig/aps_priority.h"
#include "libconfig/diagnostics.h"
#include "libconfig/gpu_request.h"
#include "libconfig/limits.h"
#include "libconfig/load_index.h"
#include "libconfig/name_list.h"
#include "libconfig/pool_type.h"
#include "libconfig/resreq.h"
#include "libconfig/shares.h"
#include "libconfig/threshold.h"
#include "libconfig/time_window.h"

namespace lsf::config {

// Where each KEY = value line of a section was, so checks after parsing can point
// at the line of the offending keyword rather than at the section.
struct KeyLines {
  std::map<std::string, SourceLocation> lines;
  SourceLocation of(const std::string& key, const SourceLocation& fallback) const {
    auto it = lines.find(key);
    return it == lines.end() ? fallback : it->second;
  }
  bool operator==(const KeyLines&) const = default;
};

// Thresholds by load index name (built-in index or site numeric resource).
using Thresholds = std::map<std::string, LoadThreshold>;

// ---- lsf.conf -------------------------------------------------------------------

struct LsfConf {
  std::string path;                           // the lsf.conf that was read
  std::map<std::string, std::string> values;  // every KEY=VALUE, quotes removed
  std::string envdir, confdir, lsb_confdir, lsb_sharedir, logdir;
  std::optional<int> lim_port, res_port, mbd_port, sbd_port;
  MemoryUnit unit_for_limits = MemoryUnit::kKB;
  std::optional<GpuRequest> gpu_req;  // LSB_GPU_REQ: the cluster's default GPU requirement
  std::vector<std::string> master_list;
  // This project's own: mbatchd's HTTP listener for /metrics (Prometheus text). Off when
  // the port is not set; 0 takes any free port (mbatchd logs which).
  std::optional<int> metrics_port;
  std::string metrics_address = "127.0.0.1";
  std::string metrics_token_file;  // when set, requests must carry its token

  std::optional<std::string> get(const std::string& key) const;
  bool operator==(const LsfConf&) const = default;
};

// ---- lsf.shared -----------------------------------------------------------------

struct HostModel {
  std::string name;
  double cpu_factor = 1.0;
  std::vector<std::string> architectures;
  SourceLocation where;
  bool operator==(const HostModel&) const = default;
};

struct ResourceDef {
  enum class Type { kBoolean, kNumeric, kString };
  std::string name;
  Type type = Type::kBoolean;
  std::optional<int> interval;  // seconds; absent: static
  bool increasing = false;
  bool release = true;
  bool consumable = false;
  std::string description;
  SourceLocation where;
  bool operator==(const ResourceDef&) const = default;
};

struct ClusterDef {
  std::string name;
  std::vector<std::string> servers;
  SourceLocation where;
  bool operator==(const ClusterDef&) const = default;
};

// ---- lsf.cluster.<name> ----------------------------------------------------------

struct ClusterHost {
  std::string name;
  std::string model;  // empty: detected at run time
  std::string type;
  bool server = true;
  std::optional<int> nd;
  std::vector<std::string> resources;  // booleans and `name=value` strings, `!` = dedicated
  TimeWindowSet run_window;
  int rexpri = 0;
  Thresholds busy_thresholds;  // LIM thresholds from load-index columns
  SourceLocation where;
  bool operator==(const ClusterHost&) const = default;
};

struct ResourceMapEntry {
  struct Location {
    std::string value;                // `5` in `5@[all]`; empty when per host default
    std::vector<HostListItem> hosts;  // `[all ~h1]`; `default` gives kName "default"
    bool operator==(const Location&) const = default;
  };
  std::string resource;
  std::vector<Location> locations;
  SourceLocation where;
  bool operator==(const ResourceMapEntry&) const = default;
};

struct RemoteCluster {
  std::string name;
  // RECV_FROM: whether this cluster runs the other's jobs that span clusters (its
  // parallel jobs on this cluster's hosts and others' at once).
  bool recv_from = true;
  SourceLocation where;
  bool operator==(const RemoteCluster&) const = default;
};

// ---- lsb.params -----------------------------------------------------------------

// This project's planning extensions, in lsb.params for every queue and in lsb.queues
// for one (the queue's win). Unset: what the level above says, else LSF's behaviour.
struct Planning {
  // RESERVATION_MODEL = HOLD | PLAN (see BatchParams::reservation_plan).
  std::optional<bool> plan;
  // RUNTIME_ESTIMATE = LIMIT | PREDICT: the length reservation and backfill plan a job
  // with: its run limit (LSF), or a prediction from its user's last finished jobs'
  // runtimes, never longer than the limit. The job is still killed only at its limit.
  std::optional<bool> predict;
  // BACKFILL_ORDER = FCFS | SHORTEST: once the jobs allowed to reserve (RESERVATION_DEPTH)
  // have booked, the rest of the queue is tried for backfill in its order, or shortest
  // estimate first.
  std::optional<bool> shortest_first;
  // BACKFILL_MAX_WAIT = minutes: a job eligible this long books a planned start even
  // past RESERVATION_DEPTH, so no backfilled job delays it further. 0: no bound.
  std::optional<int> max_wait_minutes;
  bool operator==(const Planning&) const = default;
};

struct BatchParams {
  std::vector<std::string> default_queues;
  std::string default_project = "default";
  std::string default_application;  // DEFAULT_APPLICATION: the profile of jobs without -app
  int mbd_sleep_time = 60;
  int sbd_sleep_time = 30;
  int job_accept_interval = 1;
  // Seconds between the SIGINT, SIGTERM and SIGKILL of LSF's TERMINATE action (bkill).
  int job_terminate_interval = 10;
  // Jobs that may hold a slot reservation in one pass (Maui's RESERVATIONDEPTH; LSF
  // has no such cap). Absent: every blocked job of a SLOT_RESERVE queue.
  std::optional<int> reservation_depth;
  // RESERVATION_MODEL (an extension): HOLD, LSF's, where a reserving job holds slots
  // free now; PLAN, where each reserving job books a start time on the profile of
  // slots the running jobs' run limits give, Maui-style (with RESERVATION_DEPTH unset
  // this is conservative backfill).
  bool reservation_plan = false;
  Planning planning;  // RUNTIME_ESTIMATE, BACKFILL_ORDER, BACKFILL_MAX_WAIT (plan: unused)
  int max_job_num = 1000;
  // LOCAL_MAX_PREEXEC_RETRY: failed pre-execs before the job is held (or exits, under
  // LOCAL_MAX_PREEXEC_RETRY_ACTION=EXIT). Absent: retried for ever, as in LSF.
  std::optional<int> local_max_preexec_retry;
  bool preexec_retry_exit = false;
  std::int64_t max_jobid = 999999;
  int max_job_array_size = 1000;
  int clean_period = 3600;
  int max_sbd_fail = 3;
  // REMOVE_HUNG_JOBS_FOR host_unavail[,wait_time=minutes]: a job that is not rerunnable
  // ends (EXIT, TERM_REMOVE_HUNG_JOB) this long after its first execution host was lost
  // (unavail). Empty: it stays UNKWN until its host comes back or bkill -r (LSF's
  // behaviour when the keyword is not set). Here the default is 10 minutes, so that a
  // host that never comes back does not hold its jobs for ever.
  std::optional<int> remove_hung_host_unavail_min = 10;
  // The same keyword's runlimit part: read, not acted on yet (a warning says so).
  std::optional<int> remove_hung_runlimit_min;
  int pg_susp_it = 180;
  std::optional<int> max_pend_jobs;
  std::optional<int> max_pend_slots;
  int max_user_priority = 0;
  double cpu_time_factor = 0.7;
  double run_time_factor = 0.7;
  double run_job_factor = 3.0;
  double committed_run_time_factor = 0.0;
  double fairshare_adjustment_factor = 0.0;
  double hist_hours = 5;
  bool enable_hist_run_time = false;
  bool abs_runlimit = false;
  bool job_dep_last_sub = false;
  bool parallel_sched_by_slot = false;
  double mc_reclaim_delay = 10;  // minutes (fractions allowed: an extension, for tests)
  std::string default_host_spec;
  std::vector<std::string> compute_unit_types;
  std::map<std::string, std::string> other;  // accepted, not yet acted on
  SourceLocation where;
  KeyLines keys;
  bool operator==(const BatchParams&) const = default;
};

// ---- lsb.queues -----------------------------------------------------------------

struct Preemption {
  std::vector<HostListItem> preemptive;  // queues this one may preempt (name+pref)
  std::vector<std::string> preemptable;  // queues that may preempt this one
  bool preemptive_all = false;           // PREEMPTIVE with no list
  bool preemptable_all = false;
  bool operator==(const Preemption&) const = default;
};

struct Queue {
  std::string name;
  int priority = 1;
  std::string description;
  std::vector<UserListItem> users;  // empty: all
  std::vector<HostListItem> hosts;  // empty: all
  std::vector<UserListItem> administrators;
  std::optional<GpuRequest> gpu_req;  // GPU_REQ, over LSB_GPU_REQ option by option
  std::optional<ResourceRequirement> res_req;
  std::optional<int> qjob_limit, ujob_limit, hjob_limit;
  std::optional<double> pjob_limit;
  std::optional<DefaultAndMax<TimeLimit>> run_limit, cpu_limit;
  std::optional<DefaultAndMax<std::int64_t>> mem_limit, swap_limit, file_limit, data_limit, stack_limit, core_limit;
  std::optional<int> process_limit;
  std::optional<ProcessorLimit> proc_limit;
  TimeWindowSet run_window, dispatch_window;
  Thresholds thresholds;
  std::optional<ResourceRequirement> stop_cond, resume_cond;
  Preemption preemption;
  bool backfill = false;
  std::optional<int> slot_reserve_time;      // SLOT_RESERVE = MAX_RESERVE_TIME[n]
  std::optional<int> resource_reserve_time;  // RESOURCE_RESERVE = MAX_RESERVE_TIME[n]
  Planning planning;                         // over lsb.params' (an extension)
  bool exclusive = false;
  enum class Interactive { kYes, kNo, kOnly } interactive = Interactive::kYes;
  RequeueExitValues requeue_exit_values;
  std::optional<bool> preexec_retry_exit;  // LOCAL_MAX_PREEXEC_RETRY_ACTION; unset: lsb.params'
  std::string pre_exec, post_exec, job_starter, pre_post_exec_user;
  std::string job_controls;                 // kept as written; acted on by sbatchd (later)
  std::vector<std::string> terminate_when;  // WINDOW LOAD PREEMPT
  int nice = 0;
  bool rerunnable = false;
  std::optional<int> job_accept_interval;
  std::optional<std::vector<ShareAssignment>> fairshare;  // FAIRSHARE = USER_SHARES[...]
  std::vector<std::string> fairshare_queues;
  bool dispatch_order_queue = false;  // DISPATCH_ORDER=QUEUE: the set by queue priority first
  std::string slot_pool;
  std::optional<double> slot_share;
  std::optional<int> max_slots_in_pool;
  bool use_priority_in_pool = false;
  std::optional<double> cpu_time_factor, run_time_factor, run_job_factor, hist_hours;
  bool sla_guarantees_ignore = false;
  std::optional<ApsPriority> aps_priority;   // APS_PRIORITY
  std::map<std::string, std::string> other;  // accepted, not yet acted on
  SourceLocation where;
  KeyLines keys;
  bool operator==(const Queue&) const = default;
};

// ---- lsb.hosts ------------------------------------------------------------------

struct BatchHost {
  std::string name;  // host, model, type or `default`
  std::optional<int> mxj;
  bool mxj_is_ncpus = false;  // `MXJ = !`
  std::optional<int> jl_u;
  TimeWindowSet dispatch_window;
  Thresholds thresholds;
  std::optional<int> mig;
  std::map<std::string, std::string> other;
  SourceLocation where;
  bool operator==(const BatchHost&) const = default;
};

struct HostGroup {
  std::string name;
  std::vector<HostListItem> members;
  bool external = false;  // `(!)`: members from egroup
  bool condense = false;
  std::optional<int> max_slots;
  SourceLocation where;
  bool operator==(const HostGroup&) const = default;
};

struct HostPartition {
  std::string name;
  std::vector<HostListItem> hosts;
  std::vector<ShareAssignment> user_shares;
  SourceLocation where;
  KeyLines keys;
  bool operator==(const HostPartition&) const = default;
};

struct ComputeUnit {
  std::string name;
  std::string type;
  std::vector<HostListItem> members;
  bool condense = false;
  SourceLocation where;
  bool operator==(const ComputeUnit&) const = default;
};

// ---- lsb.users ------------------------------------------------------------------

struct UserGroup {
  std::string name;
  std::vector<UserListItem> members;
  bool external = false;
  std::vector<ShareAssignment> user_shares;
  std::vector<std::string> admins;
  SourceLocation where;
  bool operator==(const UserGroup&) const = default;
};

struct UserLimit {
  std::string name;  // user, group, `group@` (per member) or `default`
  bool per_member = false;
  std::optional<int> max_jobs;
  std::optional<double> jl_p;
  std::optional<int> max_pend_jobs, max_pend_slots;
  SourceLocation where;
  bool operator==(const UserLimit&) const = default;
};

// ---- lsb.resources --------------------------------------------------------------

struct Limit {
  std::string name;
  // Consumers; `per_*` means the limit applies to each member separately.
  std::vector<UserListItem> users;
  bool per_user = false;
  std::vector<std::string> queues;
  bool per_queue = false;
  std::vector<HostListItem> hosts;
  bool per_host = false;
  std::vector<std::string> projects;
  bool per_project = false;
  std::vector<std::string> apps, lic_projects;
  // Resources.
  std::optional<int> slots;  // SLOTS = [soft/]hard: the hard value
  std::optional<double> slots_per_processor;
  std::optional<int> jobs;                   // JOBS = [soft/]hard: the hard value
  std::optional<int> slots_soft, jobs_soft;  // the soft values, when given
  // Maui-style throttles: pending jobs eligible at once (IDLE_JOBS), running plus
  // eligible (TOTAL_JOBS), and outstanding processor-seconds (PROC_SECONDS = soft[/hard]:
  // remaining run limit x slots of running jobs, plus the candidate's run limit x slots).
  std::optional<int> idle_jobs, total_jobs;
  std::optional<std::int64_t> proc_seconds_soft, proc_seconds_hard;
  std::optional<double> mem, swp, tmp;  // MB, or percent when *_percent
  bool mem_percent = false, swp_percent = false, tmp_percent = false;
  std::vector<ShareAssignment> resources;  // RESOURCE[[name, n] ...]
  SourceLocation where;
  KeyLines keys;
  bool operator==(const Limit&) const = default;
};

struct GuaranteePool {
  std::string name;
  PoolType type;
  std::vector<HostListItem> hosts;
  std::optional<ResourceRequirement> res_select;
  std::vector<ShareAssignment> distribution;  // service class -> amount or %
  std::optional<LoanPolicies> loan_policies;
  std::optional<int> slots_per_host;
  std::string description;
  std::vector<std::string> administrators;
  SourceLocation where;
  KeyLines keys;
  bool operator==(const GuaranteePool&) const = default;
};

struct HostExport {
  std::vector<HostListItem> per_host;             // PER_HOST=...
  std::optional<ResourceRequirement> res_select;  // RES_SELECT=... with NHOSTS
  std::optional<int> nhosts;
  std::optional<int> slots;
  std::optional<std::int64_t> mem_mb, swp_mb;
  std::vector<ShareAssignment> distribution;  // cluster -> share
  bool shared = false;                        // TYPE=shared
  SourceLocation where;
  KeyLines keys;
  bool operator==(const HostExport&) const = default;
};

struct SharedResourceExport {
  std::string name;
  std::optional<int> ninstances;
  std::vector<ShareAssignment> distribution;
  SourceLocation where;
  KeyLines keys;
  bool operator==(const SharedResourceExport&) const = default;
};

struct ReservationUsage {
  enum class Method { kPerJob, kPerHost, kPerSlot, kPerTask };
  std::string resource;
  Method method = Method::kPerJob;
  SourceLocation where;
  bool operator==(const ReservationUsage&) const = default;
};

// ---- lsb.serviceclasses ---------------------------------------------------------

struct ServiceClass {
  std::string name;
  std::optional<int> priority;
  std::optional<int> queue_time_target_min;  // QUEUE_TIME_TARGET (extension): Maui's QTTARGET
  std::vector<std::string> goals;            // e.g. GUARANTEE, or raw time-based goals
  bool guarantee = false;
  std::vector<std::string> access_queues, access_users, access_fairshare_groups, access_apps, access_projects,
      access_lic_projects;
  bool auto_attach = false;
  std::vector<std::string> user_group;
  std::string control_action;
  std::string description;
  SourceLocation where;
  KeyLines keys;
  bool operator==(const ServiceClass&) const = default;
};

// ---- lsb.applications -----------------------------------------------------------

// An application profile (bsub -app). Its values sit between the job's and the
// queue's: the job's own options override them, and they override the queue's
// defaults (soft limits) but never its hard limits.
struct Application {
  std::string name;
  std::string description;
  std::optional<TimeLimit> run_limit, cpu_limit;
  std::optional<std::int64_t> mem_limit;  // KB
  std::optional<ProcessorLimit> proc_limit;
  std::optional<GpuRequest> gpu_req;  // GPU_REQ, over the queue's option by option
  std::optional<ResourceRequirement> res_req;
  std::string pre_exec, post_exec, job_starter;
  std::optional<RequeueExitValues> requeue_exit_values;
  std::optional<bool> rerunnable;
  std::map<std::string, std::string> other;  // accepted, not yet acted on
  SourceLocation where;
  KeyLines keys;
  bool operator==(const Application&) const = default;
};

// ---- lsb.modules ----------------------------------------------------------------

struct SchedulerModule {
  std::string name;  // schmod_default, schmod_fcfs, ...
  std::string rb_plugin;
  std::string disable_phases;
  SourceLocation where;
  bool operator==(const SchedulerModule&) const = default;
};

// ---- the whole cluster ----------------------------------------------------------

struct ClusterConfig {
  std::string cluster_name;
  LsfConf lsf_conf;

  // lsf.shared
  std::vector<ClusterDef> clusters;
  std::vector<std::string> host_types;
  std::vector<HostModel> host_models;
  std::vector<ResourceDef> resources;

  // lsf.cluster.<name>
  std::vector<std::string> cluster_admins;
  std::map<std::string, std::string> lim_params;
  std::vector<ClusterHost> hosts;
  std::vector<ResourceMapEntry> resource_map;
  std::vector<RemoteCluster> remote_clusters;

  BatchParams params;
  std::vector<Queue> queues;  // in file order

  std::vector<BatchHost> batch_hosts;
  std::vector<HostGroup> host_groups;
  std::vector<HostPartition> host_partitions;
  std::vector<ComputeUnit> compute_units;

  std::vector<UserGroup> user_groups;
  std::vector<UserLimit> user_limits;

  std::vector<Limit> limits;
  std::vector<GuaranteePool> guarantee_pools;
  std::vector<HostExport> host_exports;
  std::vector<SharedResourceExport> shared_resource_exports;
  std::vector<ReservationUsage> reservation_usage;

  std::vector<ServiceClass> service_classes;
  std::vector<Application> applications;
  std::vector<SchedulerModule> modules;  // empty: LSF's default set
  bool modules_configured = false;

  // Lookups by name; nullptr when absent.
  const Queue* find_queue(std::string_view name) const;
  const ClusterHost* find_host(std::string_view name) const;
  const HostGroup* find_host_group(std::string_view name) const;
  const UserGroup* find_user_group(std::string_view name) const;
  const ServiceClass* find_service_class(std::string_view name) const;
  const Application* find_application(std::string_view name) const;
  const HostModel* find_host_model(std::string_view name) const;
  const ResourceDef* find_resource(std::string_view name) const;
  bool is_host_type(std::string_view name) const;
  bool is_known_cluster(std::string_view name) const;
  // MultiCluster peers: another cluster of lsf.shared, and of RemoteClusters when that
  // section is there (LSF ignores the clusters it leaves out).
  bool is_peer_cluster(std::string_view name) const;
  // RECV_FROM of the peer's RemoteClusters row; Y without one.
  bool takes_spanning_jobs_from(std::string_view name) const;
  bool operator==(const ClusterConfig&) const = default;
};

}  // namespace lsf::config
