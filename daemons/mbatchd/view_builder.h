// ViewBuilder: the scheduling pass's view (sched::ClusterView) copied from mbatchd's
// state, and the same view without pending jobs for the queries that count what runs
// (blimits, bhosts -s, the export plan).
//
// A pass copies 100,000 pending jobs on the state thread, so what stays the same from
// view to view is kept here rather than worked out per job: each job's merged
// requirement (shared, which is what makes jobs one requirement class), the host
// table, user and project ids, and the last pass's storage for pending jobs.
//
// Owns: those caches, nothing persistent. Reads the state, the ConfigIndex and the
// PassMemory it is given (by reference: a reconfig replaces the index in place), and
// asks the hooks for what hosts, MultiCluster and job groups know.
// Thread: the state thread. A view, once built, is plain data the pass thread may read.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/host_status.h"
#include "libsched/name_index.h"
#include "libsched/pass.h"

namespace lsf::mbd {

// What passes leave for the next view. In memory only, as in LSF: when each reserving
// job's reservation began and its estimated start, when each host last got a job and
// last had a load-based suspend or resume.
struct PassMemory {
  std::map<sched::JobKey, sched::Reservation> reservations;
  std::map<std::string, std::int64_t> last_dispatch, last_load_action;
};

struct ViewHooks {
  // Host tracking: the host's status now; adds the load its sbatchd last reported to
  // `res` by the names select[] reads (nothing before it registers); its reported
  // ncpus (nullopt before it registers).
  std::function<HostStatus(const std::string& host)> status_of;
  std::function<void(const std::string& host, sched::ResourceMap& res)> add_load;
  std::function<std::optional<int>(const std::string& host)> reported_ncpus;
  // The GPUs its sbatchd last reported (nothing before it registers).
  std::function<void(const std::string& host, std::vector<sched::GpuView>& out)> add_gpus;
  // MultiCluster: slots of an own host leased to other clusters; the hosts borrowed
  // from providers, appended after the own ones; the policy with shared resources as
  // leases change them.
  std::function<int(const std::string& host)> lent_slots;
  std::function<void(sched::ClusterView& view)> add_borrowed_hosts;
  std::function<std::shared_ptr<const sched::SchedPolicy>()> policy_with_leased_resources;
  // Job groups the pass must count, with each one's index by path.
  std::function<void(sched::ClusterView& view, std::unordered_map<std::string, int>& index)> add_job_groups;
  // Bumped by every applied reconfig: what is cached per job is redone after one.
  std::function<std::uint64_t()> config_generation;
};

class ViewBuilder {
 public:
  ViewBuilder(ComponentContext ctx, const ConfigIndex& index, const PassMemory& memory, ViewHooks hooks);

  // `with_pending` false: no pending jobs (at 100,000 pending they are most of the
  // cost). `leases`: with shared resources as leases change them; the export plan works
  // from the configuration's. `jobs`, when given, gets the Job behind each entry of
  // view.pending, and the view reuses the storage give_back() returned.
  sched::ClusterView build(bool with_pending, bool leases, std::vector<Job*>* jobs = nullptr) const;
  // A host's static resources and, once it reports, its load: what select[] reads.
  sched::ResourceMap host_resources(const std::string& host) const;
  // A reconfig: queues' and profiles' requirements may have changed.
  void reconfigured() { merged_requirements_.clear(); }
  // A finished pass's pending jobs' storage, emptied, for the next pass's view: 100,000
  // JobViews are 34 MB, which malloc maps afresh each time and the kernel then zeroes.
  void give_back(std::vector<sched::JobView> spare) { spare_pending_ = std::move(spare); }

 private:
  struct QueueFacts {
    int index = -1;  // in the policy; -1: not in it
    std::int64_t run_limit_s = 0;
    const config::Queue* queue = nullptr;
    bool predict = false;  // RUNTIME_ESTIMATE = PREDICT
  };
  class QueueTable;
  using GroupIndex = std::unordered_map<std::string, int>;

  void add_own_hosts(sched::ClusterView& view) const;
  sched::HostView host_view(const std::string& name) const;
  void attach_host_table(sched::ClusterView& view, size_t own_hosts) const;
  void add_pending(sched::ClusterView& view, QueueTable& queues, const GroupIndex& groups, bool with_pending,
                   std::vector<Job*>* jobs) const;
  sched::JobView pending_view(const sched::JobKey& key, const Job& job, const QueueFacts& qf,
                              const GroupIndex& groups) const;
  void count_array_running(sched::ClusterView& view, std::int64_t array_id) const;
  void add_running(sched::ClusterView& view, QueueTable& queues) const;
  sched::RunningJobView running_view(const sched::JobKey& key, const Job& job, const QueueFacts& qf) const;
  void share_name_ids(sched::ClusterView& view) const;
  std::shared_ptr<const config::ResourceRequirement> requirement(const Job& job, const QueueFacts& qf) const;
  std::shared_ptr<const sched::AskedHosts> asked_hosts(const Job& job) const;
  std::shared_ptr<const config::GpuRequest> gpu_request(const Job& job, const QueueFacts& qf) const;
  std::int64_t run_limit(const Job& job, const QueueFacts& qf) const;
  template <class View>
  void give_ids(const Job& job, View& v) const;

  ComponentContext ctx_;
  const ConfigIndex& index_;
  const PassMemory& memory_;
  ViewHooks hooks_;
  // Job RES_REQ merged with its application profile's and its queue's, by (job string,
  // profile, queue): jobs with the same requirement share one object.
  mutable std::map<std::tuple<std::string, std::string, std::string>,
                   std::shared_ptr<const config::ResourceRequirement>>
      merged_requirements_;
  // The pass's host table for the current configuration and borrowed hosts; made by
  // the first view after a change.
  mutable std::shared_ptr<const sched::HostTable> host_table_;
  mutable std::uint64_t host_table_generation_ = 0;
  // The configuration generation of the view being built (asked once per view).
  mutable std::uint64_t generation_ = 0;
  mutable std::vector<sched::JobView> spare_pending_;
  // Users and projects to the ids views give jobs (JobView::user_id): ids are for the
  // life of the daemon. The views share a copy, made again when a name was added.
  mutable sched::NameIndex user_ids_, project_ids_;
  mutable std::shared_ptr<const sched::NameIndex> user_ids_copy_, project_ids_copy_;
};

}  // namespace lsf::mbd
