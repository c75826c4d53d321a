// schmod_aps: absolute priority scheduling (APS_PRIORITY in lsb.queues). Within a queue
// that has it, pending jobs go by a weighted sum of factors worked out as the pass
// begins, instead of by position (ties keep FCFS order); queue priority still orders
// the queues, and fairshare no longer picks the next job there (its priority is the FS
// factor instead), as in LSF.
//
//   APS = sum over factors f of W_f x min(L_f, sum over its subfactors s of
//         W_s x min(L_s, value_s))          (a factor without subfactors: its value)
//
// A factor or subfactor counts only once the job has been eligible for its grace
// period. bmod -aps "admin=v" adds v to the sum (the ADMIN factor); "system=v" replaces
// it, and such jobs go ahead of every calculated value, highest first.
//
// Values: FS the user's dynamic fairshare priority; FSTARGET (Maui) the account's target
// share less its share of use, percentage points; PROC the most slots asked (-n); MEM
// and SWAP rusage[] mem and swp x slots, MB; JPRIORITY the job's priority (bsub -sp;
// else MAX_USER_PRIORITY / 2); QPRIORITY the queue's PRIORITY; QUEUETIME minutes
// eligible (not while blocked: it counts from JobView::idle_since); XFACTOR 1 + queue
// time / run limit (Maui's expansion factor; 1 without a run limit); BYPASS how many
// jobs started after its turn while it waited (JobView::bypass_count); TARGETQUEUETIME
// 2^(10 r) for r = queue time / the service class's QUEUE_TIME_TARGET, doubling every
// tenth of the target, and past the target growing along the tangent at r = 1 (Maui:
// exponential as the target nears, slower after a miss); QOS the service class's
// PRIORITY.
#include "libsched/modules/schmod_aps.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "libsched/modules/modules.h"
#include "libsched/share_accounts.h"

namespace lsf::sched {
namespace {

double target_queue_time(double r) {
  if (r <= 1) return std::exp2(10 * r);
  return 1024 * (1 + 10 * std::log(2.0) * (r - 1));
}

class ApsModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_aps"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  bool active(const PassContext& ctx) const override {
    return std::any_of(ctx.policy.queues.begin(), ctx.policy.queues.end(), [](const auto& q) { return q.aps; });
  }

  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    // FCFS has grouped each queue's jobs: sort each APS queue's run by its values.
    for (size_t begin = 0; begin < jobs.size();) {
      size_t end = begin;
      while (end < jobs.size() && jobs[end]->queue == jobs[begin]->queue) ++end;
      const QueuePolicy& q = ctx.queue_of(*jobs[begin]);
      if (q.aps) {
        // (system value set, value): system values first, each part highest first.
        std::vector<std::pair<std::pair<bool, double>, const JobView*>> scored;
        scored.reserve(end - begin);
        for (size_t i = begin; i < end; ++i) {
          const ApsScore& sc = score(ctx, q, *jobs[i]);
          scored.push_back({{sc.system, sc.value}, jobs[i]});
        }
        std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t i = begin; i < end; ++i) jobs[i] = scored[i - begin].second;
      }
      begin = end;
    }
  }

 private:
  enum class Kind {
    kFs,
    kFsTarget,
    kProc,
    kMem,
    kSwap,
    kJPriority,
    kQPriority,
    kQueueTime,
    kXFactor,
    kBypass,
    kTargetQueueTime,
    kQos,
    kGroup
  };
  // A weighted factor or subfactor as the queue's APS_PRIORITY has it, worked out once
  // per pass: names point into ApsPriority::factors(), which lives for good.
  struct Term {
    std::string_view name;
    Kind kind = Kind::kGroup;
    double weight = 0;
    std::optional<double> limit;
    std::int64_t grace_s = 0;
  };
  struct Factor {
    Term head;
    std::vector<Term> parts;  // empty: the head has a value of its own
  };

  static Kind kind_of(std::string_view name) {
    static const std::pair<std::string_view, Kind> kKinds[] = {
        {"FS", Kind::kFs},
        {"FSTARGET", Kind::kFsTarget},
        {"PROC", Kind::kProc},
        {"MEM", Kind::kMem},
        {"SWAP", Kind::kSwap},
        {"JPRIORITY", Kind::kJPriority},
        {"QPRIORITY", Kind::kQPriority},
        {"QUEUETIME", Kind::kQueueTime},
        {"XFACTOR", Kind::kXFactor},
        {"BYPASS", Kind::kBypass},
        {"TARGETQUEUETIME", Kind::kTargetQueueTime},
        {"QOS", Kind::kQos},
    };
    for (const auto& [n, k] : kKinds)
      if (n == name) return k;
    return Kind::kGroup;
  }

  const std::vector<Factor>& plan(const config::ApsPriority& aps, int queue) {
    auto [it, fresh] = plans_.try_emplace(queue);
    if (!fresh) return it->second;
    auto term = [&](std::string_view name) {
      Term t{name, kind_of(name), aps.weight(name), std::nullopt, 0};
      if (auto found = aps.terms.find(name); found != aps.terms.end()) {
        t.limit = found->second.limit;
        t.grace_s = found->second.grace_s;
      }
      return t;
    };
    for (const auto& [factor, subs] : config::ApsPriority::factors()) {
      Factor f{term(factor), {}};
      if (f.head.weight == 0) continue;
      for (const auto& s : subs)
        if (Term t = term(s); t.weight != 0) f.parts.push_back(t);
      it->second.push_back(std::move(f));
    }
    return it->second;
  }

  const ApsScore& score(PassContext& ctx, const QueuePolicy& q, const JobView& job) {
    if (job.aps_system != 0) {
      ctx.result.aps.push_back(ApsScore{job.key, job.aps_system, true, {}});
      return ctx.result.aps.back();
    }
    std::int64_t eligible_s = job.idle_since >= 0 ? std::max<std::int64_t>(0, ctx.now - job.idle_since) : 0;
    ApsScore out{job.key, 0, false, {}};
    auto capped = [&](const Term& t, double v) {
      if (t.limit) v = std::min(v, *t.limit);
      return t.grace_s > eligible_s ? 0 : v;
    };
    for (const Factor& f : plan(*q.aps, job.queue)) {
      double sum = 0;
      if (f.parts.empty()) {
        sum = capped(f.head, value(ctx, q, job, f.head.kind, eligible_s));
        out.factors.emplace_back(f.head.name, sum);
      } else {
        for (const Term& t : f.parts) {
          double v = capped(t, value(ctx, q, job, t.kind, eligible_s));
          out.factors.emplace_back(t.name, v);
          sum += t.weight * v;
        }
        sum = capped(f.head, sum);
      }
      out.value += f.head.weight * sum;
    }
    if (job.aps_admin != 0) {
      out.factors.emplace_back("ADMIN", job.aps_admin);
      out.value += job.aps_admin;
    }
    ctx.result.aps.push_back(std::move(out));
    return ctx.result.aps.back();
  }

  double value(PassContext& ctx, const QueuePolicy& q, const JobView& job, Kind kind, std::int64_t eligible_s) {
    const SchedPolicy::Qos* qos = nullptr;
    if (kind == Kind::kQos || kind == Kind::kTargetQueueTime)
      if (auto it = ctx.policy.qos.find(job.sla); it != ctx.policy.qos.end()) qos = &it->second;
    switch (kind) {
      case Kind::kFs:
        return fairshare_priority(ctx, job);
      case Kind::kFsTarget:
        return fairshare_target(ctx, job);
      case Kind::kProc:
        return job.max_slots;
      case Kind::kMem:
      case Kind::kSwap: {
        double total = 0;
        for (const auto& [res, amount] : ctx.demand(job.res_req.get()).per_slot)
          if (res == (kind == Kind::kMem ? "mem" : "swp")) total += amount;
        return total * job.max_slots;
      }
      case Kind::kJPriority:
        return job.user_priority >= 0 ? job.user_priority : ctx.policy.max_user_priority / 2;
      case Kind::kQPriority:
        return q.priority;
      case Kind::kQueueTime:
        return static_cast<double>(eligible_s) / 60;
      case Kind::kXFactor:
        return job.run_limit_s > 0 ? 1 + static_cast<double>(eligible_s) / static_cast<double>(job.run_limit_s) : 1;
      case Kind::kBypass:
        return job.bypass_count;
      case Kind::kQos:
        return qos ? qos->priority : 0;
      case Kind::kTargetQueueTime:
        return qos && qos->queue_time_target_s > 0
                   ? target_queue_time(static_cast<double>(eligible_s) / static_cast<double>(qos->queue_time_target_s))
                   : 0;
      case Kind::kGroup:
        break;
    }
    return 0;
  }

  // The queue's share tree as the pass begins; null without FAIRSHARE (LSF ignores FS
  // there, and so do Maui's targets here).
  ShareAccounts* tree(const PassContext& ctx, const JobView& job) {
    if (!ctx.queue_of(job).fairshare) return nullptr;
    auto it = trees_.find(job.queue);
    if (it == trees_.end()) it = trees_.emplace(job.queue, ShareAccounts(ctx.view, job.queue, ctx.now)).first;
    return &it->second;
  }

  // The user's dynamic priority in the queue's share tree.
  double fairshare_priority(const PassContext& ctx, const JobView& job) {
    ShareAccounts* t = tree(ctx, job);
    int leaf = t ? t->leaf(job) : -1;
    return leaf < 0 ? 0 : t->priority(leaf);
  }

  // Maui's fairshare target: the account's target share of the machine (its shares over
  // its siblings', down the tree) less its share of the use (run time x slots, running
  // and decayed history, over every account's), in percentage points: positive below
  // its target, negative above.
  double fairshare_target(const PassContext& ctx, const JobView& job) {
    ShareAccounts* t = tree(ctx, job);
    int leaf = t ? t->leaf(job) : -1;
    if (leaf < 0) return 0;
    const auto& nodes = t->accounts();
    auto node = [&](int n) -> const ShareAccount& { return nodes[static_cast<size_t>(n)]; };
    double target = 1;
    for (int n = leaf; node(n).parent >= 0; n = node(n).parent) {
      double siblings = 0;
      for (int c : node(node(n).parent).children) siblings += node(c).shares;
      target *= siblings > 0 ? node(n).shares / siblings : 0;
    }
    // Every account's use, summed once per tree and pass.
    auto [it, fresh] = total_use_.try_emplace(t, 0.0);
    if (fresh)
      for (const auto& a : nodes)
        if (a.leaf) it->second += a.run_s + a.hist_run_s;
    const double all = it->second;
    double used = node(leaf).run_s + node(leaf).hist_run_s;
    return 100 * (target - (all > 0 ? used / all : 0));
  }

  std::map<int, std::vector<Factor>> plans_;  // by queue
  std::map<int, ShareAccounts> trees_;
  std::map<const ShareAccounts*, double> total_use_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_aps() { return std::make_unique<ApsModule>(); }
// Reorders jobs within the queues FCFS has ordered.
constinit const ModuleDecl kSchmodAps{"schmod_aps", Phase::kLead, {"schmod_fcfs"}, make_schmod_aps};

}  // namespace lsf::sched
