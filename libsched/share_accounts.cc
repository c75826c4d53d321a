#include "libsched/share_accounts.h"

#include <algorithm>
#include <functional>

namespace lsf::sched {

ShareAccounts::ShareAccounts(const ClusterView& view, int queue, std::int64_t now)
    : ShareAccounts(view, *view.policy->queues[static_cast<size_t>(queue)].fairshare,
                    view.policy->queues[static_cast<size_t>(queue)].share_key, now) {}

// A cross-queue set counts the jobs of all its queues, under its master's name; a host
// partition the jobs of every queue it orders.
ShareAccounts::ShareAccounts(const ClusterView& view, const FairsharePolicy& policy, const std::string& key,
                             std::int64_t now)
    : policy_(policy) {
  nodes_.push_back({});  // the root
  // Configured accounts exist whether or not anyone uses them (bqueues -l lists them).
  std::function<void(const std::vector<ShareNode>&, int)> configured = [&](const std::vector<ShareNode>& level,
                                                                           int parent) {
    for (const auto& n : level) {
      if (n.kind == ShareNode::Kind::kDefault || n.kind == ShareNode::Kind::kEachMember) continue;
      int i = static_cast<int>(nodes_.size());
      ShareAccount a;
      a.name = n.name;
      a.shares = n.shares;
      a.parent = parent;
      a.leaf = n.kind != ShareNode::Kind::kSubtree;
      nodes_.push_back(std::move(a));
      nodes_[static_cast<size_t>(parent)].children.push_back(i);
      child_[{parent, n.name}] = i;
      if (n.kind == ShareNode::Kind::kSubtree) configured(n.children, i);
    }
  };
  configured(policy_.top, 0);

  for (const auto& job : view.running) {
    if (view.policy->queues[static_cast<size_t>(job.queue)].share_key != key) continue;
    int l = leaf(job.user, job.share_group);
    if (l < 0) continue;
    double slots = static_cast<double>(job.hosts.size());
    double run = static_cast<double>(std::max<std::int64_t>(0, now - job.start_time)) * slots;
    double committed = static_cast<double>(job.run_limit_s) * slots;
    add(l, static_cast<int>(job.hosts.size()), job.cpu_s, run, 0, committed);
  }
  for (const auto& job : view.pending) {
    if (job.reserved_slots == 0 || view.policy->queues[static_cast<size_t>(job.queue)].share_key != key) continue;
    if (int l = leaf(job); l >= 0) reserved(l, job.reserved_slots);
  }
  if (view.share_history)
    for (const auto& [user, use] : view.share_history->queue_use(key, now, policy_.hist_hours)) {
      if (user.empty()) continue;  // the queue's own use (SLOT_POOL), not a user's
      // Charged with bsub -G: `group/user`.
      auto slash = user.find('/');
      int l = slash == std::string::npos
                  ? leaf(user)
                  : leaf(std::string_view(user).substr(slash + 1), std::string_view(user).substr(0, slash));
      if (l >= 0) add(l, 0, use.cpu_s, 0, use.run_s, 0);
    }
}

int ShareAccounts::leaf(std::string_view user, std::string_view group) {
  std::string grouped;  // a user's accounts by group are cached as `user\ngroup`
  if (!group.empty()) grouped.append(user).append(1, '\n').append(group);
  std::string_view key = group.empty() ? user : std::string_view(grouped);
  auto known = leaf_of_.find(key);
  if (known != leaf_of_.end()) return known->second;
  SharePath path = share_path(policy_, user, group);
  int node = path.empty() ? -1 : 0;
  const std::vector<ShareNode>* level = &policy_.top;
  for (size_t k = 0; k < path.nodes.size(); ++k) {
    const ShareNode& n = (*level)[static_cast<size_t>(path.nodes[k])];
    auto it = child_.find(std::pair<int, std::string>(node, path.names[k]));
    if (it == child_.end()) {
      int i = static_cast<int>(nodes_.size());
      ShareAccount a;
      a.name = path.names[k];
      a.shares = n.shares;
      a.parent = node;
      a.leaf = true;
      nodes_.push_back(std::move(a));
      nodes_[static_cast<size_t>(node)].children.push_back(i);
      it = child_.emplace(std::pair<int, std::string>(node, path.names[k]), i).first;
    }
    node = it->second;
    level = &n.children;
  }
  leaf_of_.emplace(std::string(key), node);
  return node;
}

void ShareAccounts::add(int leaf, int slots, double cpu_s, double run_s, double hist_run_s, double committed_s) {
  for (int n = leaf; n > 0; n = nodes_[static_cast<size_t>(n)].parent) {
    ShareAccount& a = nodes_[static_cast<size_t>(n)];
    a.slots += slots;
    a.cpu_s += cpu_s;
    a.run_s += run_s;
    a.hist_run_s += hist_run_s;
    a.committed_s += committed_s;
  }
}

void ShareAccounts::started(int leaf, int slots, std::int64_t run_limit_s) {
  add(leaf, slots, 0, 0, 0, static_cast<double>(run_limit_s) * slots);
}

void ShareAccounts::reserved(int leaf, int slots) {
  for (int n = leaf; n > 0; n = nodes_[static_cast<size_t>(n)].parent) nodes_[static_cast<size_t>(n)].reserved += slots;
}

double ShareAccounts::priority(int node) const {
  const ShareAccount& a = nodes_[static_cast<size_t>(node)];
  const FairsharePolicy& p = policy_;
  double hist = p.enable_hist_run_time ? a.hist_run_s : 0;
  double load = a.cpu_s / 3600 * p.cpu_time_factor + (hist + a.run_s) / 3600 * p.run_time_factor +
                (a.committed_s - a.run_s) / 3600 * p.committed_run_time_factor +
                (1 + a.slots + a.reserved) * p.run_job_factor;
  return a.shares / std::max(load, 1e-6);
}

namespace {

std::vector<ShareRow> rows_of(const ClusterView& view, ShareAccounts& tree, const std::string& key) {
  for (const auto& job : view.pending)
    if (view.policy->queues[static_cast<size_t>(job.queue)].share_key == key) tree.leaf(job);
  std::vector<ShareRow> out;
  const auto& nodes = tree.accounts();
  std::function<void(int, int)> walk = [&](int n, int depth) {
    std::vector<int> kids = nodes[static_cast<size_t>(n)].children;
    std::sort(kids.begin(), kids.end(),
              [&](int a, int b) { return nodes[static_cast<size_t>(a)].name < nodes[static_cast<size_t>(b)].name; });
    for (int k : kids) {
      const ShareAccount& a = nodes[static_cast<size_t>(k)];
      out.push_back({a.name, depth, !a.children.empty() || !a.leaf, a.shares, tree.priority(k), a.slots, a.reserved,
                     a.cpu_s, a.run_s + a.hist_run_s});
      walk(k, depth + 1);
    }
  };
  walk(0, 0);
  return out;
}

}  // namespace

std::vector<ShareRow> share_table(const ClusterView& view, int queue, std::int64_t now) {
  ShareAccounts tree(view, queue, now);
  return rows_of(view, tree, view.policy->queues[static_cast<size_t>(queue)].share_key);
}

std::vector<ShareRow> partition_share_table(const ClusterView& view, size_t partition, std::int64_t now) {
  const auto& part = view.policy->host_partitions[partition];
  const std::string key = "hpart:" + part.name;
  ShareAccounts tree(view, *part.fairshare, key, now);
  return rows_of(view, tree, key);
}

}  // namespace lsf::sched
