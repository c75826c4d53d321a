// One fairshare queue's share tree as it stands at `now`: every account with what its
// users run and have used, and LSF's dynamic priority of each. Made by schmod_fairshare
// for each pass and by share_table() for bqueues -l.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libsched/model/cluster_view.h"

namespace lsf::sched {

struct ShareAccount {
  std::string name;  // user, group, `others`; the root is ""
  double shares = 0;
  int parent = -1;
  std::vector<int> children;
  bool leaf = false;       // jobs are charged here
  int slots = 0;           // slots of started jobs (run or suspended), and placed this pass
  int reserved = 0;        // slots pending jobs' reservations hold
  double cpu_s = 0;        // finished jobs' CPU time (decayed) + running jobs'
  double run_s = 0;        // running jobs' run time x slots
  double hist_run_s = 0;   // finished jobs' run time x slots (decayed)
  double committed_s = 0;  // running jobs' run limits x slots
  int pending = 0;         // jobs not yet handed out in this pass (schmod_fairshare)
};

class ShareAccounts {
 public:
  // The tree that orders the queue's jobs, with the running jobs and history of every
  // queue it orders counted in.
  ShareAccounts(const ClusterView& view, int queue, std::int64_t now);
  // A tree by its policy and ShareHistory key (a host partition's: "hpart:" + name).
  ShareAccounts(const ClusterView& view, const FairsharePolicy& policy, const std::string& key, std::int64_t now);

  // The account a user's jobs go to (below `group` for bsub -G, where the user has one
  // there; see share_path); -1 when the user has no share.
  int leaf(std::string_view user, std::string_view group = {});
  int leaf(const JobView& job) { return leaf(job.user, job.share_group); }
  // Counts a job started in this pass: its slots and committed run time.
  void started(int leaf, int slots, std::int64_t run_limit_s);
  // Slots a reservation holds now, less what the view said it held (may be negative).
  void reserved(int leaf, int slots);
  // LSF's dynamic priority: shares / (cpu_time x CPU_TIME_FACTOR + (historical +
  // current run time) x RUN_TIME_FACTOR + (committed - run time) x
  // COMMITTED_RUN_TIME_FACTOR + (1 + slots in use and reserved) x RUN_JOB_FACTOR),
  // times in hours. FAIRSHARE_ADJUSTMENT_FACTOR's term is 0: it needs LSF's
  // libfairshareadjust plugin, which this project does not load.
  double priority(int node) const;

  const std::vector<ShareAccount>& accounts() const { return nodes_; }
  std::vector<ShareAccount>& accounts() { return nodes_; }

 private:
  void add(int leaf, int slots, double cpu_s, double run_s, double hist_run_s, double committed_s);

  const FairsharePolicy& policy_;
  std::vector<ShareAccount> nodes_;
  std::map<std::pair<int, std::string>, int, std::less<>> child_;  // (parent, name) -> node
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> leaf_of_;  // user -> leaf (-1: none)
};

// bqueues -l's SHARE_INFO_FOR table: every account of a fairshare queue, depth first
// (children by name), with its depth below the queue.
struct ShareRow {
  std::string name;
  int depth = 0;
  bool group = false;
  double shares = 0, priority = 0;
  int started = 0, reserved = 0;
  double cpu_s = 0, run_s = 0;
};
std::vector<ShareRow> share_table(const ClusterView& view, int queue, std::int64_t now);
// The same for a host partition (index into SchedPolicy::host_partitions), for bhpart.
std::vector<ShareRow> partition_share_table(const ClusterView& view, size_t partition, std::int64_t now);

}  // namespace lsf::sched
