#include "libsched/model/share_tree.h"

#include <set>

namespace lsf::sched {
namespace {

void members_of(const config::ClusterConfig& cfg, const std::string& name, ShareNode& node,
                std::set<std::string>& visiting) {
  const config::UserGroup* g = cfg.find_user_group(name);
  if (!g) {
    node.members.insert(name);
    return;
  }
  if (!visiting.insert(name).second) return;  // cycles are reported by the checks
  for (const auto& m : g->members) {
    if (m.kind == config::UserListItem::Kind::kAll) node.all_users = true;
    if (m.kind != config::UserListItem::Kind::kName || m.exclude) continue;
    members_of(cfg, m.name, node, visiting);
  }
  visiting.erase(name);
}

std::vector<ShareNode> level(const config::ClusterConfig& cfg, const std::vector<config::ShareAssignment>& shares,
                             std::set<std::string>& visiting) {
  std::vector<ShareNode> out;
  for (const auto& s : shares) {
    ShareNode n;
    n.shares = s.amount;
    n.name = s.name;
    if (s.name == "default") {
      n.kind = ShareNode::Kind::kDefault;
    } else if (s.name == "others") {
      n.kind = ShareNode::Kind::kOthers;
    } else if (!s.name.empty() && s.name.back() == '@') {
      n.kind = ShareNode::Kind::kEachMember;
      n.name.pop_back();
      members_of(cfg, n.name, n, visiting);
    } else if (const config::UserGroup* g = cfg.find_user_group(s.name)) {
      members_of(cfg, n.name, n, visiting);
      if (!g->user_shares.empty() && visiting.insert(g->name).second) {
        n.kind = ShareNode::Kind::kSubtree;
        n.children = level(cfg, g->user_shares, visiting);
        visiting.erase(g->name);
      } else {
        n.kind = ShareNode::Kind::kGroup;
      }
    } else {
      n.kind = ShareNode::Kind::kUser;
    }
    out.push_back(std::move(n));
  }
  return out;
}

// The node at one level that takes the user: the user's own row first, then the
// groups in configuration order, then `others`, then `default`.
int pick(const std::vector<ShareNode>& nodes, std::string_view user) {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == ShareNode::Kind::kUser && nodes[i].name == user) return static_cast<int>(i);
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto k = nodes[i].kind;
    if ((k == ShareNode::Kind::kGroup || k == ShareNode::Kind::kSubtree || k == ShareNode::Kind::kEachMember) &&
        nodes[i].has_member(user))
      return static_cast<int>(i);
  }
  for (auto kind : {ShareNode::Kind::kOthers, ShareNode::Kind::kDefault})
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].kind == kind) return static_cast<int>(i);
  return -1;
}

// Depth first over every account the user may be charged to, in the order pick() ranks
// them, for the first whose path passes through `group`.
bool path_through(const std::vector<ShareNode>& nodes, std::string_view user, std::string_view group, bool passed,
                  SharePath& path) {
  std::vector<int> options;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == ShareNode::Kind::kUser && nodes[i].name == user) options.push_back(static_cast<int>(i));
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto k = nodes[i].kind;
    if ((k == ShareNode::Kind::kGroup || k == ShareNode::Kind::kSubtree || k == ShareNode::Kind::kEachMember) &&
        nodes[i].has_member(user))
      options.push_back(static_cast<int>(i));
  }
  if (options.empty()) {  // named nowhere at this level: `others`, else `default`
    int i = pick(nodes, user);
    if (i >= 0) options.push_back(i);
  }
  for (int i : options) {
    const ShareNode& n = nodes[static_cast<size_t>(i)];
    bool here = passed || (n.kind != ShareNode::Kind::kUser && n.kind != ShareNode::Kind::kDefault &&
                           n.kind != ShareNode::Kind::kOthers && n.name == group);
    bool per_user = n.kind == ShareNode::Kind::kDefault || n.kind == ShareNode::Kind::kEachMember;
    path.nodes.push_back(i);
    path.names.push_back(per_user ? std::string(user) : n.name);
    if (n.kind == ShareNode::Kind::kSubtree ? path_through(n.children, user, group, here, path) : here) return true;
    path.nodes.pop_back();
    path.names.pop_back();
  }
  return false;
}

}  // namespace

std::string SharePath::to_string() const {
  std::string out;
  for (const auto& n : names) out += "/" + n;
  return out.empty() ? "/" : out;
}

SharePath share_path(const FairsharePolicy& policy, std::string_view user, std::string_view group) {
  if (!group.empty()) {
    SharePath through;
    if (path_through(policy.top, user, group, false, through)) return through;
  }
  SharePath path;
  const std::vector<ShareNode>* nodes = &policy.top;
  while (true) {
    int i = pick(*nodes, user);
    if (i < 0) return {};
    const ShareNode& n = (*nodes)[static_cast<size_t>(i)];
    path.nodes.push_back(i);
    bool per_user = n.kind == ShareNode::Kind::kDefault || n.kind == ShareNode::Kind::kEachMember;
    path.names.push_back(per_user ? std::string(user) : n.name);
    if (n.kind != ShareNode::Kind::kSubtree) return path;
    nodes = &n.children;
  }
}

std::shared_ptr<const FairsharePolicy> fairshare_policy(const config::ClusterConfig& cfg,
                                                        const std::vector<config::ShareAssignment>& shares) {
  auto p = std::make_shared<FairsharePolicy>();
  std::set<std::string> visiting;
  p->top = level(cfg, shares, visiting);
  p->cpu_time_factor = cfg.params.cpu_time_factor;
  p->run_time_factor = cfg.params.run_time_factor;
  p->run_job_factor = cfg.params.run_job_factor;
  p->committed_run_time_factor = cfg.params.committed_run_time_factor;
  p->hist_hours = cfg.params.hist_hours;
  p->enable_hist_run_time = cfg.params.enable_hist_run_time;
  return p;
}

std::shared_ptr<const FairsharePolicy> fairshare_policy(const config::ClusterConfig& cfg, const config::Queue& q) {
  if (!q.fairshare) return nullptr;
  auto p = std::make_shared<FairsharePolicy>();
  std::set<std::string> visiting;
  p->top = level(cfg, *q.fairshare, visiting);
  p->cpu_time_factor = q.cpu_time_factor.value_or(cfg.params.cpu_time_factor);
  p->run_time_factor = q.run_time_factor.value_or(cfg.params.run_time_factor);
  p->run_job_factor = q.run_job_factor.value_or(cfg.params.run_job_factor);
  p->committed_run_time_factor = cfg.params.committed_run_time_factor;
  p->hist_hours = q.hist_hours.value_or(cfg.params.hist_hours);
  p->enable_hist_run_time = cfg.params.enable_hist_run_time;
  return p;
}

}  // namespace lsf::sched
