// schmod_preemption: a job of a PREEMPTIVE queue that finds no room suspends running
// jobs of the queues it may preempt (lsb.queues PREEMPTION), as LSF does by default:
// the preempted jobs go SSUSP and keep their slots, and resume when the slots are free
// again. Victims are the lowest-priority queue's jobs first, the most recently started
// first among them. Slots are counted from the preemptive queue's point of view: jobs
// it may preempt, and jobs already suspended by preemption, leave room for it.
#include <algorithm>
#include <map>
#include <set>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

class PreemptionModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_preemption"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext& ctx, int queue) const override {
    return !ctx.policy.queues[queue].preempts.empty();
  }

  void prepare(PassContext& ctx) override {
    victims_.resize(ctx.view.hosts.size());
    // Who could be preempted matters only if some queue may preempt.
    if (std::all_of(ctx.policy.queues.begin(), ctx.policy.queues.end(), [](auto& q) { return q.preempts.empty(); }))
      return;
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      if (job.state != RunState::kRun) continue;
      for (auto [h, n] : ctx.slots_of(i)) victims_[h].push_back(&job);
    }
  }

  bool acts_when_full(const PassContext& ctx, int queue) const override {
    return !ctx.policy.queues[queue].preempts.empty();
  }

  bool preempt(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& out) override {
    const QueuePolicy& q = ctx.queue_of(job);
    if (q.preempts.empty()) return false;
    auto priority_of = [&](const RunningJobView* j) { return ctx.policy.queues[j->queue].priority; };

    int need = job.max_slots;
    std::vector<std::pair<int, int>> take;
    std::vector<const RunningJobView*> chosen;
    std::map<int, int> freed_here;  // slots the chosen victims free on each host
    for (int h : cands.hosts) {
      if (need == 0) break;
      const HostState& hs = ctx.hosts[h];
      if (hs.exclusive) continue;
      std::vector<const RunningJobView*> mine;
      for (auto* v : victims_[h])
        if (!taken_.count(v->key) && q.preempts.count(ctx.policy.queues[v->queue].name)) mine.push_back(v);
      std::sort(mine.begin(), mine.end(), [&](auto* a, auto* b) {
        if (priority_of(a) != priority_of(b)) return priority_of(a) < priority_of(b);
        if (a->start_time != b->start_time) return a->start_time > b->start_time;
        return a->key > b->key;
      });
      int have = hs.max_slots < 0 ? kUnlimited : hs.free() + hs.preempted + freed_here[h];
      size_t next = 0;
      int want = std::min(
          need, job.res_req && job.res_req->span && job.res_req->span->ptile ? *job.res_req->span->ptile : need);
      while (have < want && next < mine.size()) {
        const RunningJobView* v = mine[next++];
        if (std::find(chosen.begin(), chosen.end(), v) != chosen.end()) continue;
        chosen.push_back(v);
        for (const auto& name : v->hosts) {
          int vh = ctx.host_index(name);
          if (vh < 0) continue;
          ++freed_here[vh];
          if (vh == h) ++have;
        }
      }
      int n = std::min(std::max(0, have), want);
      if (n <= 0) continue;
      take.emplace_back(h, n);
      need -= n;
    }
    if (job.max_slots - need < job.min_slots) return false;

    for (auto* v : chosen) {
      taken_.insert(v->key);
      ctx.result.suspends.push_back({v->key, SuspendCause::kPreempted, reason::kSuspPreempted});
      ++ctx.result.stats.preempted;
      for (const auto& name : v->hosts) {
        int vh = ctx.host_index(name);
        if (vh >= 0) ++ctx.hosts[vh].preempted;
      }
    }
    out.hosts = std::move(take);
    return true;
  }

  // Jobs suspended by preemption resume, highest priority first, once their slots are
  // free again from their own point of view.
  void finish(PassContext& ctx) override {
    std::vector<const RunningJobView*> waiting;
    for (const auto& job : ctx.view.running)
      if (job.state == RunState::kSsusp && job.cause == SuspendCause::kPreempted) waiting.push_back(&job);
    std::sort(waiting.begin(), waiting.end(), [&](auto* a, auto* b) {
      int pa = ctx.policy.queues[a->queue].priority, pb = ctx.policy.queues[b->queue].priority;
      if (pa != pb) return pa > pb;
      return a->start_time < b->start_time;
    });
    for (auto* job : waiting) {
      std::map<int, int> per_host;
      for (const auto& name : job->hosts) {
        int h = ctx.host_index(name);
        if (h >= 0) ++per_host[h];
      }
      bool fits = true;
      for (auto [h, n] : per_host) {
        const HostState& hs = ctx.hosts[h];
        if (hs.max_slots >= 0 && hs.used - hs.preempted + n > hs.max_slots) fits = false;
      }
      if (!fits) continue;
      for (auto [h, n] : per_host) ctx.hosts[h].preempted -= n;
      ctx.result.resumes.push_back({job->key});
    }
  }

 private:
  std::vector<std::vector<const RunningJobView*>> victims_;
  std::set<JobKey> taken_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_preemption() { return std::make_unique<PreemptionModule>(); }
// In lsb.modules' order, when lsb.modules names it.
constinit const ModuleDecl kSchmodPreemption{"schmod_preemption", Phase::kConfigured, {}, make_schmod_preemption};

}  // namespace lsf::sched
