// A queue's fairshare policy as configured: the share tree of FAIRSHARE =
// USER_SHARES[...] with the lsb.users groups that have USER_SHARES of their own as
// subtrees, and the dynamic-priority weights (the queue's, else lsb.params').
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/cluster_config.h"

namespace lsf::sched {

struct ShareNode {
  enum class Kind {
    kUser,        // `[user, n]`: the user's own account
    kGroup,       // `[group, n]` without USER_SHARES: one account its members share, FCFS
    kSubtree,     // `[group, n]` whose lsb.users row has USER_SHARES: its own share tree
    kEachMember,  // `[group@, n]`: an account per member, n shares each
    kDefault,     // `[default, n]`: an account per user named nowhere else, n shares each
    kOthers,      // `[others, n]`: one account for every user named nowhere else
  };
  Kind kind = Kind::kUser;
  std::string name;  // user or group (without `@`); `default`, `others`
  double shares = 0;
  std::set<std::string, std::less<>> members;  // kGroup, kSubtree, kEachMember: every user below
  bool all_users = false;                      // the group has `all` among its members
  std::vector<ShareNode> children;             // kSubtree

  bool has_member(std::string_view user) const { return all_users || members.count(user) > 0; }
};

struct FairsharePolicy {
  std::vector<ShareNode> top;  // the queue's USER_SHARES
  double cpu_time_factor = 0.7;
  double run_time_factor = 0.7;
  double run_job_factor = 3.0;
  double committed_run_time_factor = 0.0;
  double hist_hours = 5;
  bool enable_hist_run_time = false;
};

// The account a user's jobs are charged to: the nodes from the top of the tree down,
// by index, and the account's name at each level (an account made for the user under
// `default` or `group@` is named for the user). Empty when the user has no share.
struct SharePath {
  std::vector<int> nodes;
  std::vector<std::string> names;
  bool empty() const { return nodes.empty(); }
  std::string to_string() const;  // LSF's share attribute account path: `/ug1/user1`
};
// With `group` (bsub -G), the first of the user's accounts below that group, if the
// user has one there; else, and without a group, the user's first account in
// configuration order (at each level: the user's own row, the groups holding the user,
// `others`, `default`).
SharePath share_path(const FairsharePolicy& policy, std::string_view user, std::string_view group = {});

// The tree for one queue's FAIRSHARE, or null when the queue has none.
std::shared_ptr<const FairsharePolicy> fairshare_policy(const config::ClusterConfig& cfg, const config::Queue& queue);
// The tree for a HostPartition's USER_SHARES, with lsb.params' weights.
std::shared_ptr<const FairsharePolicy> fairshare_policy(const config::ClusterConfig& cfg,
                                                        const std::vector<config::ShareAssignment>& shares);

}  // namespace lsf::sched
