// schmod_reserve: what jobs hold besides slots, and what waiting jobs may hold.
//
//  - rusage[]: a started job holds its rusage[] amounts on its hosts (per slot) or,
//    for shared resources such as licences, in the cluster (per job), for the
//    clause's duration, decaying linearly with `decay`; later jobs see only what is
//    left, so a slowly growing job is not overcommitted.
//  - Slot reservation (SLOT_RESERVE = MAX_RESERVE_TIME[n]): a parallel job that cannot
//    start holds the free slots it could use, so a stream of small jobs cannot starve
//    it, for at most n dispatch turns (MBD_SLEEP_TIME each). RESERVATION_DEPTH in
//    lsb.params caps how many jobs reserve in one pass (default: every one that can).
//  - Backfill (BACKFILL = Y on the queue of the later job): a job with a run limit may
//    use reserved slots when it ends before the reserving job's estimated start, which
//    comes from the run limits of the jobs running on its hosts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "libsched/limit_usage.h"
#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct Held {
  size_t reservation;  // index into the pass's reservations
  int slots;
  std::int64_t until;  // the reserving job's estimated start (kNever: unknown)
};

class ReserveModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_reserve"; }

  void prepare(PassContext& ctx) override {
    held_.resize(ctx.view.hosts.size());
    borrowed_.assign(ctx.view.hosts.size(), 0);
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      Usage use = ctx.usage(job.res_req.get(), job.start_time);
      std::int64_t end = job.run_limit_s > 0 ? job.start_time + job.run_limit_s : kNever;
      for (auto [h, n] : ctx.slots_of(i)) {
        for (const auto& [res, amount] : use.per_slot) ctx.hosts[h].reserved[res] += amount * n;
        ends_.push_back({end, h, n});
      }
      for (const auto& [res, amount] : use.per_job) ctx.take_shared(res, amount);
    }
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    for (const auto& [res, amount] : ctx.demand(job.res_req.get()).per_job) {
      double left = ctx.shared_left(res);
      if (!std::isnan(left) && left + 1e-9 < amount)
        return std::string(reason::kHostRusage) + " (" + res + ": " + format_amount(std::max(0.0, left)) +
               " available, " + format_amount(amount) + " requested)";
    }
    return std::nullopt;
  }

  int room(const PassContext& ctx, const JobView& job, int h, const char** why) override {
    int least = kUnlimited;
    for (const auto& [res, amount] : ctx.demand(job.res_req.get()).per_slot) {
      if (amount <= 0) continue;
      double avail = ctx.numeric(h, res);
      int n = std::isnan(avail) ? 0 : static_cast<int>(std::floor(avail / amount + 1e-9));
      if (n < least) {
        least = std::max(0, n);
        *why = reason::kHostRusage;
      }
    }
    int held = 0;
    for (const auto& r : held_[h]) held += r.slots;
    if (held > 0) {
      int free = ctx.hosts[h].free() - held + backfill(ctx, job, h);
      if (free < least) {
        least = std::max(0, free);
        *why = reason::kHostReserved;
      }
    }
    return least;
  }

  int backfill(const PassContext& ctx, const JobView& job, int h) override {
    if (!ctx.queue_of(job).backfill || job.run_limit_s <= 0) return 0;
    std::int64_t ends = ctx.now + job.run_limit_s;
    int usable = 0;
    for (const auto& r : held_[h])
      if (r.until != kNever && ends <= r.until) usable += r.slots;
    return std::max(0, usable - borrowed_[h]);
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    const Usage& use = ctx.demand(job.res_req.get());
    std::int64_t end = job.run_limit_s > 0 ? ctx.now + job.run_limit_s : kNever;
    for (auto [h, n] : p.hosts) {
      for (const auto& [res, amount] : use.per_slot) ctx.hosts[h].reserved[res] += amount * n;
      ends_.push_back({end, h, n});
      sorted_ = false;
      // schmod_default (always first) has counted the slots: what went past the
      // unreserved free slots was borrowed from reservations by backfill.
      int held = 0;
      for (const auto& r : held_[h]) held += r.slots;
      borrowed_[h] = std::max(borrowed_[h], held - ctx.hosts[h].free());
    }
    for (const auto& [res, amount] : use.per_job) ctx.take_shared(res, amount);
  }

  bool reserve(PassContext& ctx, const JobView& job, const Candidates& cands) override {
    const QueuePolicy& q = ctx.queue_of(job);
    if (!q.slot_reserve_time || job.min_slots <= 1) return false;
    int depth = ctx.policy.reservation_depth;
    if (depth >= 0 && static_cast<int>(ctx.result.reservations.size()) >= depth) return false;
    std::int64_t since = job.reserving_since > 0 ? job.reserving_since : ctx.now;
    // MAX_RESERVE_TIME passed: the reservation lapses for this turn and begins anew.
    if (ctx.now - since > std::int64_t{*q.slot_reserve_time} * ctx.policy.mbd_sleep_time) return false;

    const config::Span* span = job.res_req && job.res_req->span ? &*job.res_req->span : nullptr;
    int need = job.min_slots;
    std::vector<std::pair<int, int>> take;
    // Hosts with a free slot, kept per host match and only ever shrinking in a pass.
    auto [it, fresh] = open_.try_emplace(&cands);
    std::vector<int>& open = it->second;
    if (fresh) open = cands.hosts;
    std::erase_if(open, [&](int h) { return ctx.hosts[h].free() <= 0 || ctx.hosts[h].exclusive; });
    for (int h : open) {
      if (need == 0) break;
      const char* why = nullptr;
      int r = ctx.room(job, h, &why);
      if (span && span->ptile) r = std::min(r, *span->ptile);
      if (r <= 0) continue;
      int n = std::min(r, need);
      take.emplace_back(h, n);
      need -= n;
    }
    // A job that cannot hold anything is not reserving; it waits with its reason.
    if (take.empty()) return false;
    std::int64_t start = estimate(ctx, cands, job, job.min_slots - need);
    Reservation res{job.key, {}, since, start == kNever ? 0 : start};
    size_t index = ctx.result.reservations.size();
    for (auto [h, n] : take) {
      held_[h].push_back({index, n, start});
      for (int i = 0; i < n; ++i) res.hosts.push_back(ctx.view.hosts[h].name);
    }
    ctx.result.reservations.push_back(std::move(res));
    ++ctx.result.stats.reserved;
    return true;
  }

 private:
  struct End {
    std::int64_t at;
    int host;
    int slots;
  };

  // When enough slots will be free on the job's hosts: the run limits of what runs
  // there say when each slot comes free. kNever when that depends on a job without one.
  std::int64_t estimate(const PassContext& ctx, const Candidates& cands, const JobView& job, int have) {
    if (have >= job.min_slots) return ctx.now;
    if (!sorted_) {
      std::sort(ends_.begin(), ends_.end(), [](const End& a, const End& b) { return a.at < b.at; });
      sorted_ = true;
    }
    std::vector<char>& usable = usable_[&cands];
    if (usable.empty()) {
      usable.assign(ctx.view.hosts.size(), 0);
      for (int h : cands.hosts) usable[h] = 1;
    }
    int free = have;
    for (const auto& e : ends_) {
      if (!usable[e.host]) continue;
      if (e.at == kNever) return kNever;
      free += e.slots;
      if (free >= job.min_slots) return std::max(e.at, ctx.now);
    }
    return kNever;
  }

  std::vector<std::vector<Held>> held_;
  std::vector<int> borrowed_;
  std::vector<End> ends_;
  bool sorted_ = false;
  std::map<const Candidates*, std::vector<char>> usable_;
  std::map<const Candidates*, std::vector<int>> open_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_reserve() { return std::make_unique<ReserveModule>(); }

std::map<std::string, double, std::less<>> shared_resource_usage(const ClusterView& view, std::int64_t now) {
  std::vector<std::unique_ptr<Module>> no_modules;
  PassContext ctx(view, now, no_modules);
  std::map<std::string, double, std::less<>> out;
  for (const auto& [name, total] : view.policy->shared_resources) out[name] = 0;
  for (const auto& job : view.running)
    for (const auto& [res, amount] : ctx.usage(job.res_req.get(), job.start_time).per_job)
      if (auto it = out.find(res); it != out.end()) it->second += amount;
  return out;
}

}  // namespace lsf::sched
