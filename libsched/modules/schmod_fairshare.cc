// schmod_fairshare: queue-level user fairshare. In a queue with FAIRSHARE, the next job
// is chosen down the share tree: at each level the account with the highest dynamic
// priority that still has jobs to consider, down to a user's account, whose first job
// (FCFS) is considered. A job that starts lowers its account's priority (one more
// slot, more committed run time) before the next choice, so users take turns in
// proportion to their shares. Users without a share in the queue do not run there.
#include <map>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"
#include "libsched/share_accounts.h"

namespace lsf::sched {
namespace {

class SharePicker final : public JobPicker {
 public:
  SharePicker(ShareAccounts& tree, std::span<const JobView* const> jobs) : tree_(tree) {
    for (const JobView* job : jobs) {
      int leaf = tree_.leaf(job->user);
      if (leaf < 0) {
        unshared_.push_back(job);  // refused by admit(); handed out first
        continue;
      }
      waiting_[leaf].push_back(job);
      for (int n = leaf; n >= 0; n = tree_.accounts()[static_cast<size_t>(n)].parent)
        ++tree_.accounts()[static_cast<size_t>(n)].pending;
    }
  }

  const JobView* next() override {
    if (next_unshared_ < unshared_.size()) return unshared_[next_unshared_++];
    auto& nodes = tree_.accounts();
    if (nodes[0].pending == 0) return nullptr;
    int node = 0;
    while (!nodes[static_cast<size_t>(node)].leaf) {
      int best = -1;
      double best_priority = 0;
      for (int child : nodes[static_cast<size_t>(node)].children) {
        if (nodes[static_cast<size_t>(child)].pending == 0) continue;
        double p = tree_.priority(child);
        if (best < 0 || p > best_priority) {
          best = child;
          best_priority = p;
        }
      }
      node = best;
    }
    auto& queue = waiting_[node];
    const JobView* job = queue[taken_[node]++];
    for (int n = node; n >= 0; n = nodes[static_cast<size_t>(n)].parent) --nodes[static_cast<size_t>(n)].pending;
    return job;
  }

  void started(const JobView& job, const Placement& p) override {
    tree_.started(tree_.leaf(job.user), p.slots(), job.run_limit_s);
  }

 private:
  ShareAccounts& tree_;
  std::vector<const JobView*> unshared_;
  size_t next_unshared_ = 0;
  std::map<int, std::vector<const JobView*>> waiting_;  // per leaf account, FCFS
  std::map<int, size_t> taken_;
};

class FairshareModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_fairshare"; }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    ShareAccounts* tree = tree_of(ctx, job.queue);
    if (tree && tree->leaf(job.user) < 0) return reason::kNoShare;
    return std::nullopt;
  }

  // A cross-queue set's jobs together, where its first job is: one picker orders them.
  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    auto domain = [&](const JobView* j) { return ctx.policy.queues[static_cast<size_t>(j->queue)].share_domain; };
    bool cross = false;
    for (const auto& q : ctx.policy.queues)
      cross |= q.share_domain >= 0 && &q != &ctx.policy.queues[static_cast<size_t>(q.share_domain)];
    if (!cross) return;
    std::map<int, std::vector<const JobView*>> sets;
    for (const JobView* j : jobs)
      if (domain(j) >= 0) sets[domain(j)].push_back(j);
    std::vector<const JobView*> out;
    out.reserve(jobs.size());
    for (const JobView* j : jobs) {
      int d = domain(j);
      if (d < 0) {
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
    if (!first.fairshare) return nullptr;
    auto together = [&](const JobView* j) {
      const QueuePolicy& q = ctx.policy.queues[static_cast<size_t>(j->queue)];
      return first.share_domain >= 0 ? q.share_domain == first.share_domain : j->queue == rest.front()->queue;
    };
    taken = 0;
    while (taken < rest.size() && together(rest[taken])) ++taken;
    return std::make_unique<SharePicker>(*tree_of(ctx, rest.front()->queue), rest.first(taken));
  }

  // Slots a reservation holds count as the user's job slots, as LSF counts them.
  void hold(PassContext& ctx, const JobView& job, const Placement& p) override {
    if (ShareAccounts* tree = tree_of(ctx, job.queue)) tree->started(tree->leaf(job.user), p.slots(), 0);
  }

 private:
  // The tree the queue's jobs are ordered by (its own, its master's, its host
  // partition's), made once per pass.
  ShareAccounts* tree_of(const PassContext& ctx, int queue) {
    const QueuePolicy& q = ctx.policy.queues[static_cast<size_t>(queue)];
    if (!q.fairshare) return nullptr;
    auto it = trees_.find(q.share_key);
    if (it == trees_.end()) it = trees_.emplace(q.share_key, ShareAccounts(ctx.view, queue, ctx.now)).first;
    return &it->second;
  }

  std::map<std::string, ShareAccounts> trees_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_fairshare() { return std::make_unique<FairshareModule>(); }

}  // namespace lsf::sched
