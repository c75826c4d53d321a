// schmod_slotpool: queue-based fairshare. Queues that name the same SLOT_POOL divide
// the pool's slots (the MXJ of its hosts, or MAX_SLOTS_IN_POOL) by SLOT_SHARE:
//   - the slots of queues with nothing pending are what they run now; the rest go to
//     the queues with pending jobs in proportion to their shares, rounded up in
//     priority order until the total is spent (12 slots at 50/30/20: 6, 4, 2);
//   - a queue whose QJOB_LIMIT is below its part keeps the limit and the others share
//     the difference; a queue alone with pending jobs may take every slot;
//   - a queue at its part takes no more jobs this pass. Nothing is preempted: slots of
//     a queue that was idle come back to it as other queues' jobs end;
//   - a job bigger than its queue's part could never start that way: it may when
//     nothing runs in the pool (else two such queues would leave the pool idle for
//     good, each waiting for slots the other is entitled to);
//   - with USE_PRIORITY_IN_POOL (in the pool's first queue), jobs held back by their
//     queue's part get a second turn once every job has had its first: slots the
//     pool's queues left unused go to them in dispatch order.
// Queues of one pool with the same priority are considered least served first: their
// decayed past use plus what they run now, per share.
#include <algorithm>
#include <cmath>
#include <map>

#include "libsched/modules/modules.h"
#include "libsched/pool_usage.h"

namespace lsf::sched {
namespace {

struct Pool {
  std::vector<int> queues;  // configuration order
  int total = 0;
  int used = 0;  // slots of its queues' started jobs and placements
};

class SlotPoolModule final : public Module {
 public:
  // `pending`: pending jobs per queue when the view was made without them (bqueues -l);
  // empty: counted from the view.
  explicit SlotPoolModule(std::vector<int> pending = {}) : pending_(std::move(pending)) {}

  std::string_view name() const override { return "schmod_slotpool"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  void prepare(PassContext& ctx) override {
    const auto& queues = ctx.policy.queues;
    std::map<std::string, int> index;
    pool_of_.assign(queues.size(), -1);
    for (size_t q = 0; q < queues.size(); ++q) {
      if (queues[q].slot_pool.empty()) continue;
      auto [it, fresh] = index.try_emplace(queues[q].slot_pool, static_cast<int>(pools_.size()));
      if (fresh) pools_.emplace_back();
      pools_[static_cast<size_t>(it->second)].queues.push_back(static_cast<int>(q));
      pool_of_[q] = it->second;
    }
    if (pools_.empty()) return;
    used_.assign(queues.size(), 0);
    entitled_.assign(queues.size(), -1);
    if (pending_.empty()) {
      pending_.assign(queues.size(), 0);
      for (const auto& j : ctx.view.pending) ++pending_[static_cast<size_t>(j.queue)];
    }
    for (const auto& r : ctx.view.running) add_use(r.queue, static_cast<int>(r.hosts.size()));
    for (auto& pool : pools_) {
      pool.total = total(ctx, pool);
      entitle(ctx, pool);
    }
  }

  // Pool queues of one priority, least served per share first; the rest keep their order.
  bool active(const PassContext&) const override { return !pools_.empty(); }

  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    if (entitled_.empty()) return;
    std::vector<double> served(ctx.policy.queues.size(), 0);
    for (size_t q = 0; q < served.size(); ++q) {
      const QueuePolicy& qp = ctx.policy.queues[q];
      if (qp.slot_pool.empty() || qp.slot_share <= 0) continue;
      double past = 0;
      if (ctx.view.share_history) past = ctx.view.share_history->use(qp.name, "", ctx.now, qp.hist_hours).run_s;
      served[q] = (past / 3600 + used_[q]) / qp.slot_share;
    }
    auto pooled = [&](const JobView* j) { return !ctx.policy.queues[static_cast<size_t>(j->queue)].slot_pool.empty(); };
    for (size_t begin = 0; begin < jobs.size();) {
      // A run of jobs of pool queues with one priority: reorder its queue segments.
      int prio = ctx.policy.queues[static_cast<size_t>(jobs[begin]->queue)].priority;
      size_t end = begin;
      while (end < jobs.size() && pooled(jobs[end]) &&
             ctx.policy.queues[static_cast<size_t>(jobs[end]->queue)].priority == prio)
        ++end;
      if (end - begin > 1)
        std::stable_sort(jobs.begin() + static_cast<std::ptrdiff_t>(begin),
                         jobs.begin() + static_cast<std::ptrdiff_t>(end), [&](const JobView* a, const JobView* b) {
                           if (a->queue == b->queue) return false;
                           double sa = served[static_cast<size_t>(a->queue)],
                                  sb = served[static_cast<size_t>(b->queue)];
                           return sa != sb ? sa < sb : a->queue < b->queue;
                         });
      begin = std::max(end, begin + 1);
    }
  }

  std::optional<std::string> admit(PassContext&, const JobView& job) override {
    if (entitled_.empty() || second_round_) return std::nullopt;
    const size_t q = static_cast<size_t>(job.queue);
    if (entitled_[q] < 0 || used_[q] + job.min_slots <= entitled_[q]) return std::nullopt;
    if (job.min_slots > entitled_[q] && pools_[static_cast<size_t>(pool_of_[q])].used == 0) return std::nullopt;
    return "The queue's share of its slot pool has been reached (" + std::to_string(used_[q]) + " of " +
           std::to_string(entitled_[q]) + " slots in use)";
  }

  bool defers(const PassContext& ctx, const JobView& job) override {
    const size_t q = static_cast<size_t>(job.queue);
    if (entitled_.empty() || entitled_[q] < 0) return false;
    const Pool& pool = pools_[static_cast<size_t>(pool_of_[q])];  // its first queue decides
    return ctx.policy.queues[static_cast<size_t>(pool.queues.front())].use_priority_in_pool;
  }
  void second_round(PassContext&) override { second_round_ = true; }

  void commit(PassContext&, const JobView& job, const Placement& p) override {
    if (!used_.empty()) add_use(job.queue, p.slots());
  }

  std::vector<PoolShare> report(const PassContext& ctx) const {
    std::vector<PoolShare> out;
    for (size_t q = 0; q < entitled_.size(); ++q) {
      const QueuePolicy& qp = ctx.policy.queues[q];
      if (qp.slot_pool.empty()) continue;
      out.push_back({static_cast<int>(q), qp.slot_pool, qp.slot_share, entitled_[q], used_[q],
                     pools_[static_cast<size_t>(pool_of_[q])].total});
    }
    return out;
  }

 private:
  void add_use(int queue, int slots) {
    used_[static_cast<size_t>(queue)] += slots;
    if (int p = pool_of_[static_cast<size_t>(queue)]; p >= 0) pools_[static_cast<size_t>(p)].used += slots;
  }

  static int total(const PassContext& ctx, const Pool& pool) {
    const QueuePolicy& first = ctx.policy.queues[static_cast<size_t>(pool.queues.front())];
    if (first.max_slots_in_pool) return *first.max_slots_in_pool;
    int sum = 0;
    for (size_t h = 0; h < ctx.view.hosts.size(); ++h) {
      if (!first.hosts.empty() && !first.hosts.count(ctx.view.hosts[h].name)) continue;
      int mxj = ctx.hosts[h].max_slots;
      sum += mxj < 0 ? std::max(1, ctx.view.hosts[h].ncpus) : mxj;
    }
    return sum;
  }

  void entitle(const PassContext& ctx, const Pool& pool) {
    const auto& queues = ctx.policy.queues;
    int left = pool.total;
    std::vector<int> sharing;
    for (int q : pool.queues) {
      if (pending_[static_cast<size_t>(q)] > 0 && queues[static_cast<size_t>(q)].slot_share > 0) {
        sharing.push_back(q);
      } else {
        entitled_[static_cast<size_t>(q)] = used_[static_cast<size_t>(q)];  // nothing more to run
        left -= used_[static_cast<size_t>(q)];
      }
    }
    std::stable_sort(sharing.begin(), sharing.end(), [&](int a, int b) {
      return queues[static_cast<size_t>(a)].priority > queues[static_cast<size_t>(b)].priority;
    });
    // Split what is left by share; a queue capped by QJOB_LIMIT takes its limit and the
    // others split again without it.
    while (!sharing.empty()) {
      left = std::max(0, left);
      double shares = 0;
      for (int q : sharing) shares += queues[static_cast<size_t>(q)].slot_share;
      std::vector<int> parts;
      int given = 0;
      for (int q : sharing) {
        double exact = left * queues[static_cast<size_t>(q)].slot_share / shares;
        int part = std::min(static_cast<int>(std::ceil(exact - 1e-9)), left - given);
        parts.push_back(part);
        given += part;
      }
      bool capped = false;
      for (size_t i = 0; i < sharing.size(); ++i) {
        const auto& limit = queues[static_cast<size_t>(sharing[i])].qjob_limit;
        if (limit && *limit < parts[i]) {
          entitled_[static_cast<size_t>(sharing[i])] = *limit;
          left -= *limit;
          sharing.erase(sharing.begin() + static_cast<std::ptrdiff_t>(i));
          capped = true;
          break;
        }
      }
      if (capped) continue;
      for (size_t i = 0; i < sharing.size(); ++i) entitled_[static_cast<size_t>(sharing[i])] = parts[i];
      break;
    }
  }

  std::vector<int> used_;      // per queue: slots of started jobs and of placements
  std::vector<int> entitled_;  // per queue: its part of its pool; -1 outside pools
  std::vector<int> pending_;   // per queue: pending jobs
  std::vector<Pool> pools_;
  std::vector<int> pool_of_;  // per queue: index into pools_; -1 outside pools
  bool second_round_ = false;
};

}  // namespace

std::unique_ptr<Module> make_schmod_slotpool() { return std::make_unique<SlotPoolModule>(); }
// Reorders a pool's queues as wholes, keeping the order FCFS and APS gave within each.
constinit const ModuleDecl kSchmodSlotpool{"schmod_slotpool", Phase::kLead, {"schmod_aps"}, make_schmod_slotpool};

std::vector<PoolShare> slot_pool_usage(const ClusterView& view, std::int64_t now, const std::vector<int>& pending) {
  std::vector<std::unique_ptr<Module>> modules;
  modules.push_back(std::make_unique<SlotPoolModule>(pending));
  PassContext ctx(view, now, modules);
  modules.front()->prepare(ctx);
  return static_cast<const SlotPoolModule&>(*modules.front()).report(ctx);
}

}  // namespace lsf::sched
