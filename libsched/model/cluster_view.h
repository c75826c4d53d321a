// The read-only picture of the cluster a scheduling pass works on. mbatchd builds it
// from its state (a snapshot, so the pass can run while requests are served); the
// simulator and the tests build it by hand. Plain values only: no sockets, files or
// clocks reach libsched. What the admin configured lives in SchedPolicy (built once per
// configuration); the view holds what changes: hosts' status and load, jobs.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libconfig/gpu_request.h"
#include "libconfig/resreq.h"
#include "libconfig/select_expr.h"
#include "libconfig/time_window.h"
#include "libsched/model/host_status.h"
#include "libsched/model/policy.h"
#include "libsched/model/resource_map.h"
#include "libsched/name_index.h"
#include "libsched/share_history.h"

namespace lsf::sched {

// A job or one element of a job array (index 0 for plain jobs), as LSF names it: 12[3].
struct JobKey {
  std::int64_t id = 0;
  std::int32_t index = 0;
  auto operator<=>(const JobKey&) const = default;
};

// One GPU of a host as the pass sees it. What jobs hold of it the pass works out from
// the running jobs' allocations (RunningJobView::gpus).
struct GpuView {
  int id = 0;  // the device index on its host
  std::string model;
  std::string vendor = "nvidia";
  std::int64_t mem_mb = 0;  // total memory
  int socket = -1;
  // Its compute mode as set on the device: exclusive_process runs one job at a time
  // whatever the job asks; prohibited and a device in error run none.
  bool exclusive_mode = false;
  bool usable = true;
};

// A GPU a job holds (bjobs -l -gpu's GPU_ALLOCATION): the host, the device, and how.
struct GpuUse {
  std::string host;
  int gpu = 0;
  bool exclusive = false;   // no other job may use it (mode=exclusive_process or j_exclusive=yes)
  std::int64_t mem_mb = 0;  // gmem reserved on it
  bool operator==(const GpuUse&) const = default;
};
using GpuAllocation = std::vector<GpuUse>;

struct HostView {
  std::string name;
  // What the daemon knows: ok, closed_Adm, unavail or unreach. The pass works out
  // closed_Full, closed_Excl, closed_Wind and closed_Busy itself.
  HostStatus status = HostStatus::kOk;
  int ncpus = 1;
  std::int64_t last_dispatch = 0;     // when the host last received a job (JOB_ACCEPT_INTERVAL)
  std::int64_t last_load_action = 0;  // last load-based suspend or resume (one per SBD_SLEEP_TIME)
  // Static resources and current load by name (r1m, mem, type, model, fs ...).
  ResourceMap resources;
  // MultiCluster. A borrowed host (named host@cluster) names its provider and the slots
  // leased to this cluster; only queues naming allremote or the host take it. A host of
  // this cluster that other clusters lease from has those slots taken off its own.
  std::string cluster;   // borrowed from; empty: this cluster's own
  int leased_slots = 0;  // borrowed: the slots this cluster may use there
  // Borrowed: whether its provider runs this cluster's jobs that also use hosts of
  // other clusters (RECV_FROM in the provider's RemoteClusters). When it does not, a
  // parallel job is placed on its hosts alone or on none of them.
  bool spans_clusters = true;
  int lent_slots = 0;         // own: the slots leased to other clusters
  std::vector<GpuView> gpus;  // by device index; empty: none
};

struct QueueView {
  bool active = true;  // badmin qact/qinact; windows are the pass's business
};

enum class DependencyState : unsigned char { kNone, kSatisfied, kWaiting, kNever };

// -m as resolved host names, each with its preference level (`hostA+2`): higher first.
struct AskedHosts {
  std::map<std::string, int, std::less<>> preference;
  bool contains(std::string_view host) const { return preference.find(host) != preference.end(); }
  // With a level on any host, -m's levels rank the hosts; without, the queue's do.
  bool any_preference() const {
    return std::any_of(preference.begin(), preference.end(), [](const auto& p) { return p.second != 0; });
  }
};

// Fields in the order a pass reads them. FCFS's walk reads only the first cache line
// (key, queue, position); admission and the requirement-class lookup, which every
// pending job goes through, read only the first 192 bytes when the caller gives user
// and project ids, and the names after them when it does not. A pass over 100,000
// jobs cannot keep them in cache, so it fetches just those ahead; 64-byte alignment
// keeps them three cache lines rather than four. What fewer jobs need (a reservation's
// history, fairshare, APS) follows.
struct alignas(64) JobView {
  JobKey key;
  int queue = 0;      // index into SchedPolicy::queues
  int min_slots = 1;  // -n min[,max]
  // `user` and `project` as ids in the view's user_ids and project_ids, given by a
  // caller that keeps those tables between passes; -1: the pass looks the name up.
  int user_id = -1;
  int project_id = -1;
  std::int64_t order = 0;  // position within the queue: FCFS, btop/bbot move it
  int max_slots = 1;
  int array_limit = 0;           // %n of `name[1-100]%n`; 0: none (key.id is the array)
  std::int64_t run_limit_s = 0;  // 0: none (backfill needs one)
  // What reservation and backfill plan it to run (RUNTIME_ESTIMATE = PREDICT,
  // runtime_estimate.h), at most run_limit_s; 0: its run limit.
  std::int64_t estimate_s = 0;
  std::int64_t begin_time = 0;
  std::int64_t retry_at = 0;       // its pre-exec failed: not dispatched before then
  std::int64_t planned_start = 0;  // RESERVATION_MODEL = PLAN: its last booked start
  DependencyState dependency = DependencyState::kNone;
  bool held = false;                                           // PSUSP
  bool exclusive = false;                                      // -x
  std::shared_ptr<const config::ResourceRequirement> res_req;  // job merged with queue; may be null
  std::shared_ptr<const AskedHosts> asked_hosts;               // null: any host
  std::vector<std::string> excluded_hosts;                     // exclusive requeue keeps it off these
  std::string sla;                                             // bsub -sla: the service class
  std::string user;
  std::string project = "default";
  std::int64_t reserving_since = 0;  // slot reservation started then; 0: none
  int reserved_slots = 0;            // slots its reservation held after the last pass
  int user_priority = -1;            // bsub -sp; -1: the default, MAX_USER_PRIORITY / 2
  std::string share_group;           // bsub -G: the fairshare group to charge
  // Since when it has been eligible (Maui's IDLE): its submission, or when a throttle
  // last stopped blocking it; APS counts queue time from here. -1: blocked or unknown
  // (no queue time).
  std::int64_t idle_since = -1;
  double aps_system = 0;  // bmod -aps "system=v": ahead of every calculated APS value; 0: none
  double aps_admin = 0;   // bmod -aps "admin=v": added to the calculated APS value; 0: none
  int bypass_count = 0;   // times later jobs started while it waited (APS BYPASS)
  int job_group = -1;     // index into ClusterView::job_groups; -1: none that limits it
  // Its GPU requirement from every level with LSF's defaults (config::effective_gpu_request);
  // null: it asks for no GPU. Jobs with equal requirements may share one.
  std::shared_ptr<const config::GpuRequest> gpu;
};
// What the pass fetches of each job ahead of considering it (libsched/pass_steps.cc): with
// ids, and without (the names too).
inline constexpr size_t kJobViewHotBytes = 192;
inline constexpr size_t kJobViewNamedBytes = 256;
static_assert(offsetof(JobView, order) + sizeof(JobView::order) <= 64, "FCFS reads one cache line per job");
static_assert(offsetof(JobView, sla) + sizeof(JobView::sla) <= kJobViewHotBytes, "the class lookup reads sla");
static_assert(offsetof(JobView, project) + sizeof(JobView::project) <= kJobViewNamedBytes, "and names without ids");

enum class RunState : unsigned char { kRun, kSsusp, kUsusp };

// Why a system-suspended job is suspended: the pass resumes only what it suspended.
enum class SuspendCause : unsigned char { kNone, kPreempted, kLoad, kWindow, kUser };

struct HostTable;
struct PassCarry;

// What a caller that keeps its running jobs between passes may give with each one
// (mbatchd per job, the simulator at the start). Optional, as ViewAccelerators: without
// it, or with a table other than the pass's, the pass looks the names up itself and
// decides the same.
struct RunningJobAccelerators {
  // The job's `hosts` as (host index, slots there) in `table`: a pass made with that
  // table uses them instead of looking every name up again. Shared: the caller hands
  // the same list to every pass's view.
  std::shared_ptr<const HostTable> table;
  std::shared_ptr<const std::vector<std::pair<int, int>>> slots;
};

// Each module walks every running job once per pass (40,000 on a busy cluster), most
// reading only state, queue, ids and times: those fill the first cache line, and
// 64-byte alignment keeps them one. Names, hosts and what fewer modules read follow.
struct alignas(64) RunningJobView {
  JobKey key;
  int queue = 0;
  int user_id = -1, project_id = -1;  // as JobView's
  RunState state = RunState::kRun;
  SuspendCause cause = SuspendCause::kNone;
  bool exclusive = false;
  bool forced = false;  // brun -f: never suspended for load
  std::int64_t start_time = 0;
  std::int64_t run_limit_s = 0;
  std::int64_t estimate_s = 0;  // as JobView's, when it started; 0: its run limit
  double cpu_s = 0;             // CPU time used so far (fairshare's cpu_time)
  std::shared_ptr<const config::ResourceRequirement> res_req;
  std::vector<std::string> hosts;  // one entry per slot
  std::string user;
  std::string project = "default";
  std::string share_group;  // bsub -G
  std::string sla;          // bsub -sla
  // Optional (RunningJobAccelerators): `hosts` as indexes, for a pass that would
  // otherwise look every name up.
  RunningJobAccelerators accel;
  std::shared_ptr<const GpuAllocation> gpus;  // the GPUs it holds; null: none
};

// What a pass works out about the hosts before anything else (names to indexes, each
// host's lsb.hosts row): the same every pass while the host list and the policy stay.
// A caller that keeps its view between passes (the simulator) makes it once with
// make_host_table(); without one, each pass makes its own.
struct HostTable {
  std::shared_ptr<const SchedPolicy> policy;  // the policy it was made for
  // A host's place in the view by name, -1 when it has none. A pass finds each running
  // job's hosts by name: a power-of-two table, as for users' names, not a prime-sized
  // one that divides on each of 40,000 lookups.
  int find(std::string_view name) const {
    const int id = index.find(name);
    return id < 0 ? -1 : index_host[static_cast<size_t>(id)];
  }
  NameIndex index;              // names in the order first met
  std::vector<int> index_host;  // by the index's id: the host's place in the view
  std::vector<const HostPolicy*> policies;
  std::shared_ptr<const std::vector<std::string>> names;
  // Each host's guarantee pool (index into SchedPolicy::guarantee_pools; -1: none): the
  // first pool, in configuration order, whose HOSTS and RES_SELECT the host matches,
  // judged when the table is made. A host that had not reported yet (unavail, unreach)
  // when a RES_SELECT needed its values is in no pool, and `undecided` says a table made
  // later may decide it.
  std::vector<int> guarantee_pool;
  bool undecided = false;
};

// Hosts named once per slot as (index in the table, slots there), in the order they
// first appear; names the table lacks are left out.
std::vector<std::pair<int, int>> host_slots(const HostTable& table, const std::vector<std::string>& hosts);
// The same, added to the end of `out` (a pass keeps every running job's in one array).
void append_host_slots(const HostTable& table, const std::vector<std::string>& hosts,
                       std::vector<std::pair<int, int>>& out);

// Each numeric resource's value on every host (NaN where a host lacks it), by name.
using ResourceColumns = std::map<std::string, std::vector<double>, std::less<>>;

// A job group (bgadd -L): at most `limit` started jobs in it and its subgroups
// together. A pending job's group and each group above it must have room.
struct JobGroupView {
  std::string path;
  int parent = -1;  // index of the group above; -1: none (a top-level group)
  int limit = -1;   // -1: none
  int started = 0;  // started jobs (RUN, SSUSP, USUSP) directly in this group
};

// What a caller that runs pass after pass over nearly the same cluster (mbatchd, the
// simulator) keeps and hands each pass, so that the pass does not work it out again.
// All of it is optional, and only an accelerator: a view without it (a default
// ViewAccelerators) gets the same decisions, each pass working out what it lacks; a
// part that does not fit the view (a host table made for other hosts or another
// policy) is not used. ClusterView is the plain data; this is everything else.
struct ViewAccelerators {
  std::shared_ptr<const HostTable> host_table;  // ignored unless made for these hosts
  // The caller made host_table for exactly these hosts, in this order (the simulator,
  // whose hosts never change; mbatchd, which remakes it when they do): the pass then
  // does not compare every host's name before each pass.
  bool host_table_checked = false;
  // Users' and projects' names to the ids jobs carry (JobView::user_id), kept by a
  // caller between passes: a pass looks up 100,000 pending and 40,000 running jobs'
  // names otherwise. Ids only grow; a name not yet in the table has none (-1). Null:
  // jobs' ids are not read.
  std::shared_ptr<const NameIndex> user_ids, project_ids;
  // Numeric resources as passes read them, kept from pass to pass by a caller whose
  // hosts' resources never change (the simulator); null: each pass reads `hosts`.
  std::shared_ptr<ResourceColumns> fixed_columns;
  // What passes work out and a caller keeps for the next one (pass_carry.h); null: each
  // pass starts afresh. One pass at a time may use it.
  std::shared_ptr<PassCarry> carry;
  // How many pending jobs ask for GPUs (JobView::gpu), counted by a caller as it built
  // `pending` (mbatchd does); -1: not counted. When no host has GPUs either, schmod_gpu
  // sits the pass out without reading every pending job for its request (100,000 jobs'
  // last cache lines: about 4 ms). A count of 0 must be exact.
  int gpu_jobs = -1;
};

struct ClusterView {
  std::shared_ptr<const SchedPolicy> policy;
  config::WeekInstant week;  // `now` in local time, for windows
  std::vector<HostView> hosts;
  std::vector<QueueView> queues;  // parallel to policy->queues
  std::vector<JobView> pending;
  std::vector<RunningJobView> running;        // RUN, SSUSP and USUSP jobs
  std::map<std::int64_t, int> array_running;  // running elements per array with a limit
  // Job groups on the way to some limit (parents before children); empty when no group
  // has one.
  std::vector<JobGroupView> job_groups;
  // What finished jobs used, for fairshare queues; null: nothing yet.
  std::shared_ptr<const ShareHistory> share_history;
  // Optional: what the caller keeps between passes to spare each pass work.
  ViewAccelerators accel;
};

std::shared_ptr<const HostTable> make_host_table(const ClusterView& view);

}  // namespace lsf::sched
