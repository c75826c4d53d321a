// schmod_fairshare: queue-level user fairshare. In a queue with FAIRSHARE, the next job
// is chosen down the share tree: at each level the account with the highest dynamic
// priority that still has jobs to consider, down to a user's account, whose first job
// (FCFS) is considered. A job that starts lowers its account's priority (one more
// slot, more committed run time) before the next choice, so users take turns in
// proportion to their shares. Users without a share in the queue do not run there.
// The tree is the queue's own FAIRSHARE, its master's (FAIRSHARE_QUEUES: the set's jobs
// are ordered together, and count together), or its HostPartition's (one tree for every
// queue whose hosts lie in the partition, each queue ordered in turn).
#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"
#include "libsched/share_accounts.h"

namespace lsf::sched {
namespace {

// Each group's children with jobs left, best first, in an ordered set: a choice costs
// the depth of the tree times a set lookup, not a scan of every user (500 users under
// `default` and 100,000 jobs would be 50 million priorities a pass). Only the accounts
// on the path of a job that starts change priority, and only they are re-sorted.
class SharePicker final : public JobPicker {
 public:
  SharePicker(ShareAccounts& tree, std::span<const JobView* const> jobs, SharePicker** registry)
      : tree_(tree), registry_(registry) {
    *registry_ = this;
    auto& nodes = tree_.accounts();
    for (const JobView* job : jobs) {
      int leaf = tree_.leaf(*job);
      if (leaf < 0) {
        unshared_.push_back(job);  // refused by admit(); handed out first
        continue;
      }
      waiting_[leaf].push_back(job);
      for (int n = leaf; n >= 0; n = nodes[static_cast<size_t>(n)].parent) ++nodes[static_cast<size_t>(n)].pending;
    }
    ready_.resize(nodes.size());
    key_.assign(nodes.size(), 0);
    for (size_t n = 1; n < nodes.size(); ++n)
      if (nodes[n].pending > 0) insert(static_cast<int>(n));
  }
  ~SharePicker() override {
    if (*registry_ == this) *registry_ = nullptr;
  }

  const JobView* next() override {
    if (next_unshared_ < unshared_.size()) return unshared_[next_unshared_++];
    auto& nodes = tree_.accounts();
    if (nodes[0].pending == 0) return nullptr;
    int node = 0;
    while (!nodes[static_cast<size_t>(node)].leaf) node = ready_[static_cast<size_t>(node)].begin()->second;
    const JobView* job = waiting_[node][taken_[node]++];
    for (int n = node; n >= 0; n = nodes[static_cast<size_t>(n)].parent) {
      if (--nodes[static_cast<size_t>(n)].pending == 0 && n > 0) erase(n);
    }
    return job;
  }

  void started(const JobView& job, const Placement& p) override {
    int leaf = tree_.leaf(job);
    tree_.started(leaf, p.slots(), job.run_limit_s);
    tree_.reserved(leaf, -job.reserved_slots);  // what it held now runs
    refresh(leaf);
  }

  // The accounts above `leaf` changed (a job started or holds a reservation).
  void refresh(int leaf) {
    auto& nodes = tree_.accounts();
    for (int n = leaf; n > 0; n = nodes[static_cast<size_t>(n)].parent) {
      if (nodes[static_cast<size_t>(n)].pending == 0) continue;
      erase(n);
      insert(n);
    }
  }

 private:
  void insert(int n) {
    key_[static_cast<size_t>(n)] = tree_.priority(n);
    int parent = tree_.accounts()[static_cast<size_t>(n)].parent;
    ready_[static_cast<size_t>(parent)].emplace(-key_[static_cast<size_t>(n)], n);
  }
  void erase(int n) {
    int parent = tree_.accounts()[static_cast<size_t>(n)].parent;
    ready_[static_cast<size_t>(parent)].erase({-key_[static_cast<size_t>(n)], n});
  }

  ShareAccounts& tree_;
  SharePicker** registry_;  // the module's pointer to the picker of the moment
  std::vector<const JobView*> unshared_;
  size_t next_unshared_ = 0;
  std::map<int, std::vector<const JobView*>> waiting_;  // per leaf account, FCFS
  std::map<int, size_t> taken_;
  std::vector<std::set<std::pair<double, int>>> ready_;  // per node: children with jobs, best first
  std::vector<double> key_;                              // each node's priority in its parent's set
};

class FairshareModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_fairshare"; }
  bool limits_room() const override { return false; }
  // Every hook works through a queue's tree, and only a queue with FAIRSHARE (its own,
  // its set's or its partition's) has one: without any, the module would be asked
  // about every job for nothing.
  bool active(const PassContext& ctx) const override {
    return std::any_of(ctx.policy.queues.begin(), ctx.policy.queues.end(),
                       [](const QueuePolicy& q) { return q.fairshare != nullptr; });
  }
  bool sees_user(const PassContext& ctx, int queue) const override {
    return ctx.policy.queues[queue].fairshare != nullptr;
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    ShareAccounts* tree = tree_of(ctx, job.queue);
    if (tree && tree->leaf(job) < 0) return reason::kNoShare;
    return std::nullopt;
  }

  // A cross-queue set's jobs together, where its first job is: one picker orders them.
  // With DISPATCH_ORDER=QUEUE only the set's queues of equal priority go together.
  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    bool cross = false;
    for (const auto& q : ctx.policy.queues)
      cross |= q.share_domain >= 0 && &q != &ctx.policy.queues[static_cast<size_t>(q.share_domain)];
    if (!cross) return;
    std::map<std::pair<int, int>, std::vector<const JobView*>> sets;
    for (const JobView* j : jobs)
      if (set_of(ctx, j->queue).first >= 0) sets[set_of(ctx, j->queue)].push_back(j);
    std::vector<const JobView*> out;
    out.reserve(jobs.size());
    for (const JobView* j : jobs) {
      auto d = set_of(ctx, j->queue);
      if (d.first < 0) {
        out.push_back(j);
        continue;
      }
      auto it = sets.find(d);
      if (it == sets.end()) continue;  // already placed with its set
      out.insert(out.end(), it->second.begin(), it->second.end());
      sets.erase(it);
    }
    jobs = std::move(out);
  }

  // A cross-queue set's jobs together; a host partition's queue by queue (its tree is
  // shared, so what starts in one queue counts in the next).
  std::unique_ptr<JobPicker> picker(PassContext& ctx, std::span<const JobView* const> rest, size_t& taken) override {
    const QueuePolicy& first = ctx.policy.queues[static_cast<size_t>(rest.front()->queue)];
    // APS_PRIORITY orders the queue; fairshare is its FS factor there (schmod_aps).
    if (!first.fairshare || first.aps) return nullptr;
    auto together = [&](const JobView* j) {
      return first.share_domain >= 0 ? set_of(ctx, j->queue) == set_of(ctx, rest.front()->queue)
                                     : j->queue == rest.front()->queue;
    };
    taken = 0;
    while (taken < rest.size() && together(rest[taken])) ++taken;
    return std::make_unique<SharePicker>(*tree_of(ctx, rest.front()->queue), rest.first(taken), &active_);
  }

  // Slots a reservation holds count as the user's job slots, as LSF counts them. The
  // tree counted what the view says the job held; the pass has just decided anew.
  void hold(PassContext& ctx, const JobView& job, const Placement& p) override {
    ShareAccounts* tree = tree_of(ctx, job.queue);
    if (!tree) return;
    int leaf = tree->leaf(job);
    tree->reserved(leaf, p.slots() - job.reserved_slots);
    if (active_) active_->refresh(leaf);
  }

 private:
  // The jobs a picker orders together: a cross-queue set's (domain, -1), or with
  // DISPATCH_ORDER=QUEUE its queues of one priority (domain, priority); (-1, -1): none.
  static std::pair<int, int> set_of(const PassContext& ctx, int queue) {
    const QueuePolicy& q = ctx.policy.queues[static_cast<size_t>(queue)];
    return {q.share_domain, q.share_domain >= 0 && q.share_by_queue ? q.priority : -1};
  }

  // The tree the queue's jobs are ordered by (its own, its master's, its host
  // partition's), made once per pass.
  ShareAccounts* tree_of(const PassContext& ctx, int queue) {
    if (by_queue_.empty()) by_queue_.assign(ctx.policy.queues.size(), nullptr);
    ShareAccounts*& known = by_queue_[static_cast<size_t>(queue)];
    if (known) return known;
    const QueuePolicy& q = ctx.policy.queues[static_cast<size_t>(queue)];
    if (!q.fairshare) return nullptr;
    auto it = trees_.find(q.share_key);
    if (it == trees_.end()) it = trees_.emplace(q.share_key, ShareAccounts(ctx.view, queue, ctx.now)).first;
    return known = &it->second;
  }

  std::map<std::string, ShareAccounts> trees_;  // node-based: by_queue_ points into it
  std::vector<ShareAccounts*> by_queue_;
  SharePicker* active_ = nullptr;  // the picker handing out jobs now, if any
};

}  // namespace

std::unique_ptr<Module> make_schmod_fairshare() { return std::make_unique<FairshareModule>(); }
// In lsb.modules' order, when lsb.modules names it.
constinit const ModuleDecl kSchmodFairshare{"schmod_fairshare", Phase::kConfigured, {}, make_schmod_fairshare};

}  // namespace lsf::sched
