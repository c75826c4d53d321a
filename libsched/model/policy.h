// What the admin configured, in the shape the scheduling pass needs it: host lists
// resolved to names, groups to their members, lsb.hosts rows to each host. Built once
// per configuration (start-up and badmin reconfig), shared read-only by every pass, so
// no pass parses or resolves anything.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "libconfig/cluster_config.h"
#include "libsched/model/share_tree.h"

namespace lsf::sched {

struct HostPolicy {
  int mxj = -1;  // -1: unlimited
  bool mxj_is_ncpus = false;
  std::optional<int> jl_u;
  config::TimeWindowSet dispatch_window;
  config::Thresholds thresholds;
};

struct QueuePolicy {
  std::string name;
  int priority = 1;
  std::set<std::string, std::less<>> hosts;  // empty: every host of this cluster
  // Borrowed hosts the queue takes: all of them (`allremote`), all of a cluster's
  // (`all@cluster`), or by name (`host@cluster`).
  bool all_remote = false;
  std::set<std::string, std::less<>> remote_clusters, remote_hosts;
  bool takes_borrowed(const std::string& host, const std::string& cluster) const {
    return all_remote || remote_clusters.count(cluster) || remote_hosts.count(host);
  }
  // HOSTS preference levels (`hostA+2 hostB`, `all+1 allremote`): hosts of a higher
  // level are tried first, order[] decides within a level; a job's own -m levels win.
  // This cluster's hosts by name, borrowed ones by `host@cluster`, by cluster
  // (`all@cluster+N`) or all of them (`allremote+N`); unnamed hosts are level 0.
  bool has_preferences = false;
  std::map<std::string, int, std::less<>> host_preference, cluster_preference;
  int remote_preference = 0;
  int preference_of(const std::string& host, const std::string& cluster) const {
    if (auto it = host_preference.find(host); it != host_preference.end()) return it->second;
    if (cluster.empty()) return 0;
    if (auto it = cluster_preference.find(cluster); it != cluster_preference.end()) return it->second;
    return remote_preference;
  }
  std::optional<int> qjob_limit, ujob_limit, hjob_limit;
  std::optional<double> pjob_limit;
  config::Thresholds thresholds;
  config::TimeWindowSet run_window, dispatch_window;
  bool backfill = false;
  std::optional<int> slot_reserve_time;  // MAX_RESERVE_TIME in dispatch turns
  // This project's planning (lsb.queues over lsb.params, config::Planning):
  // RESERVATION_MODEL = PLAN, RUNTIME_ESTIMATE = PREDICT (jobs carry their estimate,
  // JobView::estimate_s), BACKFILL_ORDER = SHORTEST, BACKFILL_MAX_WAIT in seconds.
  bool reservation_plan = false;
  bool predict = false;
  bool shortest_first = false;
  std::int64_t max_wait_s = 0;  // 0: no bound
  bool exclusive = false;
  std::optional<int> job_accept_interval;
  std::set<std::string, std::less<>> preempts;  // queues this one may preempt
  std::optional<config::ResourceRequirement> stop_cond, resume_cond;
  config::RequeueExitValues requeue_exit_values;
  std::shared_ptr<const FairsharePolicy> fairshare;  // FAIRSHARE; null: FCFS
  // The queue whose share tree orders this one's jobs: itself, or the master queue of a
  // cross-queue set (FAIRSHARE_QUEUES); -1 without queue-level fairshare.
  int share_domain = -1;
  // DISPATCH_ORDER=QUEUE in the set's master: its queues go by priority, then by user
  // priority (queues of equal priority together); else the whole set by user priority.
  bool share_by_queue = false;
  // The HostPartition whose tree orders its jobs (every host the queue may use is in the
  // partition, and the queue has no FAIRSHARE of its own); -1: none.
  int share_partition = -1;
  // Where the use of its finished jobs is kept (ShareHistory's queue key): its own name,
  // its master's, or "hpart:" and the partition's; empty without fairshare.
  std::string share_key;
  std::string slot_pool;                   // SLOT_POOL; empty: none
  double slot_share = 0;                   // SLOT_SHARE, percent
  std::optional<int> max_slots_in_pool;    // MAX_SLOTS_IN_POOL (the pool's first queue)
  bool use_priority_in_pool = false;       // USE_PRIORITY_IN_POOL (the pool's first queue)
  double hist_hours = 5;                   // HIST_HOURS: decay of the queue's usage
  std::optional<config::ApsPriority> aps;  // APS_PRIORITY: jobs in the queue by weighted priority
};

// One lsb.users User row that applies to a user (directly, as `default`, or as `group@`).
struct UserSlotLimit {
  std::optional<int> max_jobs;
  std::optional<double> jl_p;
};

// A consumer list of a Limit section (USERS, QUEUES, HOSTS, PROJECTS), resolved.
struct ConsumerSet {
  bool given = false;       // the section names this kind of consumer at all
  bool per_member = false;  // PER_USER, PER_QUEUE, PER_HOST, PER_PROJECT
  bool all = false;
  std::set<std::string, std::less<>> members;  // users (groups expanded), queues, hosts, projects
  std::set<std::string, std::less<>> excluded;
  bool matches(std::string_view name) const {
    if (!given) return true;
    if (excluded.count(name)) return false;
    return all || members.count(name) > 0;
  }
};

struct LimitPolicy {
  std::string name;
  ConsumerSet users, queues, hosts, projects;
  std::optional<int> slots, jobs;                                    // hard values (schmod_limit)
  std::optional<int> slots_soft, jobs_soft;                          // soft values (schmod_throttle)
  std::optional<int> idle_jobs, total_jobs;                          // Maui's MAXIJOB and running plus idle
  std::optional<std::int64_t> proc_seconds_soft, proc_seconds_hard;  // Maui's MAXPS
  bool throttles() const { return slots_soft || jobs_soft || idle_jobs || total_jobs || proc_seconds_soft; }
  std::optional<double> slots_per_processor;
  // Amounts of reserved resources (rusage[]): mem, swp, tmp in MB and RESOURCE[...].
  std::map<std::string, double, std::less<>> resources;
  // LSF names a limit by the first kind of consumer it has, in this order.
  std::string scope() const;
};

// A GuaranteedResourcePool of lsb.resources (slots, hosts or packages; licence pools
// are not scheduled here): which hosts it may take, its package, and what each service
// class is guaranteed. Which hosts it has is decided per host table (see HostTable).
struct GuaranteePolicy {
  std::string name;
  config::PoolType::Kind kind = config::PoolType::Kind::kSlots;
  int package_slots = 1;                     // slots per package (slots pools: 1; hosts pools: unused)
  std::int64_t package_mem = 0;              // MB per package; 0: memory is not part of it
  std::set<std::string, std::less<>> hosts;  // HOSTS resolved; empty: every host
  std::optional<config::SelectExpr> res_select;
  struct Share {
    std::string service_class;
    double amount = 0;
    bool percent = false;
  };
  std::vector<Share> distribution;
  std::optional<config::LoanPolicies> loans;
  std::string description;
  std::string type_text;  // TYPE as LSF prints it: package[slots=1:mem=1000]
};

struct SchedPolicy {
  // lsb.params
  int mbd_sleep_time = 60;
  int sbd_sleep_time = 30;
  int job_accept_interval = 0;
  int pg_susp_it = 180;
  int reservation_depth = -1;     // -1: every blocked job with SLOT_RESERVE may reserve
  bool reservation_plan = false;  // some queue has RESERVATION_MODEL = PLAN: planned starts

  std::vector<QueuePolicy> queues;  // in configuration order
  std::map<std::string, HostPolicy, std::less<>> hosts;
  HostPolicy default_host;

  std::map<std::string, UserSlotLimit, std::less<>> user_limits;                         // users, and `default`
  std::map<std::string, UserSlotLimit, std::less<>> group_limits;                        // group totals
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> group_members;  // users, nested expanded
  std::vector<std::string> groups_with_all;  // groups whose members include `all`

  std::vector<LimitPolicy> limits;
  // lsb.hosts HostPartition sections: host-partition fairshare.
  struct HostPartition {
    std::string name;
    std::set<std::string, std::less<>> hosts;
    std::shared_ptr<const FairsharePolicy> fairshare;
  };
  std::vector<HostPartition> host_partitions;
  std::vector<GuaranteePolicy> guarantee_pools;  // in configuration order
  // What APS reads of service classes, Maui's QOS: base priority and queue time target.
  struct Qos {
    int priority = 0;
    std::int64_t queue_time_target_s = 0;  // 0: none
  };
  std::map<std::string, Qos, std::less<>> qos;  // by service class
  int max_user_priority = 0;                    // MAX_USER_PRIORITY: a job's default priority is half
  // Cluster-wide shared numeric resources (licences): name -> total instances.
  std::map<std::string, double, std::less<>> shared_resources;
  std::vector<std::string> modules;  // lsb.modules order; LSF's default set when absent

  int queue_index(std::string_view name) const;  // -1 when unknown
  const HostPolicy& host(std::string_view name) const;
  // The groups a user belongs to (directly or through nested groups), sorted.
  std::vector<std::string> groups_of(std::string_view user) const;
  // MAX_JOBS / JL/P for a user: its own row, else `group@` rows, else `default`.
  UserSlotLimit user_limit(std::string_view user) const;
};

std::shared_ptr<const SchedPolicy> build_policy(const config::ClusterConfig& config);

// A load index on the busy side of a threshold value (above for r1m, below for mem).
bool past_threshold(std::string_view index, double value, double threshold);
// The first index whose value (NaN: unknown) is past its loadSched (or loadStop)
// threshold; empty when none is.
std::string first_past(const config::Thresholds& thresholds, const std::function<double(std::string_view)>& value,
                       bool stop, bool skip_pg = false);

}  // namespace lsf::sched
