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
//  - RESERVATION_MODEL = PLAN (lsb.params) replaces holding with planning: each
//    reserving job (sequential ones too) books the earliest start at which its slots
//    stay free for its run limit, on the profile of its hosts' free slots over time
//    (libsched/slot_profile.h); any job may start now only if every booked start keeps
//    its slots for the job's whole run limit (for good when it has none), so BACKFILL
//    changes nothing there. Every job planning is conservative backfill;
//    RESERVATION_DEPTH = 1 is EASY as the literature states it. A queue's own
//    RESERVATION_MODEL overrides lsb.params'.
//  - Plans take a job that would start to run for its estimate (RUNTIME_ESTIMATE =
//    PREDICT: its user's recent runtimes, runtime_estimate.h), else its run limit. A
//    running job's slots are planned free at its run limit all the same: planned on
//    its prediction, the reserving job's start comes earlier, backfill must end before
//    it, and when the prediction was short the slots wait idle for a start that moves
//    (on CTC-SP2 the average bounded slowdown was 23.10 that way, 20.24 this way, and
//    the longest wait shorter too). Holding (not PLAN) waits for a running job's
//    estimate, extended once outlived. A job eligible for BACKFILL_MAX_WAIT or
//    longer reserves past RESERVATION_DEPTH, and its start is planned on run limits,
//    not estimates, on a second profile that every later start must keep whole with
//    its own run limit: a prediction that turns out short cannot delay it, while the
//    other jobs go on planning with predictions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "libsched/limit_usage.h"
#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"
#include "libsched/runtime_estimate.h"
#include "libsched/slot_profile.h"

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
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  void prepare(PassContext& ctx) override {
    held_.resize(ctx.view.hosts.size());
    borrowed_.assign(ctx.view.hosts.size(), 0);
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      Usage use = ctx.usage(job.res_req.get(), job.start_time);
      const std::int64_t end = planned_end(ctx, job);
      const std::int64_t limit = job.run_limit_s > 0 ? job.start_time + job.run_limit_s : kNever;
      for (auto [h, n] : ctx.slots_of(i)) {
        for (const auto& [res, amount] : use.per_slot) ctx.hosts[h].reserved[res] += amount * n;
        ends_.push_back({end, limit, h, n});
      }
      for (const auto& [res, amount] : use.per_job) ctx.take_shared(res, amount);
    }
    // BACKFILL_MAX_WAIT: is any job overdue? (Not asked of 100,000 pending jobs where no
    // queue sets it.)
    if (std::any_of(ctx.policy.queues.begin(), ctx.policy.queues.end(),
                    [](const QueuePolicy& q) { return q.max_wait_s > 0; }))
      guard_ = std::any_of(ctx.view.pending.begin(), ctx.view.pending.end(),
                           [&](const JobView& job) { return overdue(ctx.queue_of(job), job, ctx.now); });
    if (ctx.policy.reservation_plan) book_last_plans(ctx);
  }

  bool plans(const PassContext& ctx, int queue) const override {
    const QueuePolicy& q = ctx.policy.queues[static_cast<size_t>(queue)];
    return q.reservation_plan && q.slot_reserve_time;
  }

  std::optional<std::string> verify(const PassContext& ctx, const JobView& job, const Candidates& cands,
                                    const Placement& p) override {
    if (live_ == 0 && plans_.empty()) return std::nullopt;
    plan_set(ctx, cands);
    const std::int64_t until = end_of(ctx.now, length(job));
    const std::int64_t limit_until = end_of(ctx.now, limit_length(job));
    for (const auto& set : plans_) {
      int n = set.slots_in(p);
      if (n == 0) continue;
      std::int64_t left = set.left(ctx.now, until, limit_until);
      if (left < n) return *planned_away(left, n);
    }
    return std::nullopt;
  }

  // Every placement puts at least -n min slots on the job's own hosts, so fewer free
  // for its run limit there fails verify whatever the placement.
  std::shared_ptr<const std::string> cannot_start(PassContext& ctx, const JobView& job,
                                                  const Candidates& cands) override {
    if (live_ == 0 && plans_.empty()) return nullptr;
    std::int64_t left =
        plan_set(ctx, cands).left(ctx.now, end_of(ctx.now, length(job)), end_of(ctx.now, limit_length(job)));
    if (left < job.min_slots) return planned_away(left, job.min_slots);
    return nullptr;
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    if (live_ > 0) unbook(ctx, job);
    // Only shared resources are asked per job: without them, no requirement to look up.
    if (ctx.policy.shared_resources.empty()) return std::nullopt;
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
    const std::int64_t len = length(job);
    if (!ctx.queue_of(job).backfill || len == SlotProfile::kForever) return 0;
    std::int64_t ends = ctx.now + len;
    int usable = 0;
    for (const auto& r : held_[h])
      if (r.until != kNever && ends <= r.until) usable += r.slots;
    return std::max(0, usable - borrowed_[h]);
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    const Usage& use = ctx.demand(job.res_req.get());
    const std::int64_t len = length(job);
    std::int64_t end = len == SlotProfile::kForever ? kNever : ctx.now + len;
    const std::int64_t limit = job.run_limit_s > 0 ? ctx.now + job.run_limit_s : kNever;
    for (auto& set : plans_)
      if (int n = set.slots_in(p)) set.take(ctx.now, end, limit, -n);
    for (auto [h, n] : p.hosts) {
      for (const auto& [res, amount] : use.per_slot) ctx.hosts[h].reserved[res] += amount * n;
      ends_.push_back({end, limit, h, n});
      sorted_ = false;
      // schmod_default (always first) has counted the slots: what went past the
      // unreserved free slots was borrowed from reservations by backfill.
      int held = 0;
      for (const auto& r : held_[h]) held += r.slots;
      borrowed_[h] = std::max(borrowed_[h], held - ctx.hosts[h].free());
    }
    for (const auto& [res, amount] : use.per_job) ctx.take_shared(res, amount);
  }

  bool reserve(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& held) override {
    const QueuePolicy& q = ctx.queue_of(job);
    if (!q.slot_reserve_time || (job.min_slots <= 1 && !q.reservation_plan)) return false;
    int depth = ctx.policy.reservation_depth;
    if (depth >= 0 && static_cast<int>(ctx.result.reservations.size()) >= depth && !overdue(q, job, ctx.now))
      return false;
    std::int64_t since = job.reserving_since > 0 ? job.reserving_since : ctx.now;
    // MAX_RESERVE_TIME passed: the reservation lapses for this turn and begins anew.
    if (ctx.now - since > std::int64_t{*q.slot_reserve_time} * ctx.policy.mbd_sleep_time) return false;
    if (q.reservation_plan) return plan(ctx, job, cands, since);

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
    held.hosts = std::move(take);
    std::sort(held.hosts.begin(), held.hosts.end());
    return true;
  }

 private:
  struct End {
    std::int64_t at;     // the estimate's end, else the run limit's (holding's estimated start)
    std::int64_t limit;  // the run limit's (kNever: none)
    int host;
    int slots;
  };

  // One host set planned on in this pass (a host match's candidates) and its profile.
  struct PlanSet {
    const Candidates* cands;
    std::vector<char> member;  // by host index
    SlotProfile profile;       // every booking, held for its planned length
    // While a job is overdue: only overdue jobs' bookings, each held to its run limit,
    // and every start checked with its run limit. Both end running jobs at their limits.
    std::optional<SlotProfile> guard;
    int slots_in(const Placement& p) const {
      int n = 0;
      for (auto [h, s] : p.hosts) n += member[static_cast<size_t>(h)] ? s : 0;
      return n;
    }
    // Slots free to a start now that holds them to `until` as planned and to
    // `limit_until` at worst: the fewer the two profiles leave.
    std::int64_t left(std::int64_t now, std::int64_t until, std::int64_t limit_until) const {
      std::int64_t n = profile.min_free(now, until);
      if (guard) n = std::min(n, guard->min_free(now, limit_until));
      return n;
    }
    void take(std::int64_t from, std::int64_t to, std::int64_t limit_to, std::int64_t slots) {
      profile.add(from, to, slots);
      if (guard) guard->add(from, limit_to, slots);
    }
  };
  // A planned start. It counts against every host set's profile: a plan says how many
  // slots, not which, so where queues have different hosts it makes backfill into the
  // others more careful than it need be, never less.
  struct Booking {
    std::int64_t from, to;
    int slots;
    bool overdue = false;  // planned on run limits, and kept whole on the guard profile
    std::int64_t limit_to = 0;
    bool live = true;
  };

  // Composed once per pass for each (left, asked): every waiting job that cannot start
  // around the plans is refused with one, and formatting numbers into a new string
  // each time would be a twentieth of a simulation under conservative backfill.
  std::shared_ptr<const std::string> planned_away(std::int64_t left, int asked) {
    left = std::max<std::int64_t>(0, left);
    auto [it, fresh] = away_.try_emplace({left, asked});
    if (fresh)
      it->second = std::make_shared<const std::string>(std::string(reason::kHostReserved) + " (planned starts leave " +
                                                       std::to_string(left) + " of the job's " + std::to_string(asked) +
                                                       " slots free for its run limit)");
    return it->second;
  }

  // How long a job holds its slots once started, as plans see it.
  static std::int64_t length(const JobView& job) {
    return planned_length(job) > 0 ? planned_length(job) : SlotProfile::kForever;
  }
  // How long a job holds its slots at worst: its run limit (kForever: none).
  static std::int64_t limit_length(const JobView& job) {
    return job.run_limit_s > 0 ? job.run_limit_s : SlotProfile::kForever;
  }

  // When a running job is planned to end: its estimate, extended once it has outlived
  // it, else its run limit; kNever without either.
  static std::int64_t planned_end(const PassContext& ctx, const RunningJobView& job) {
    const std::int64_t len = job.estimate_s > 0
                                 ? extended_estimate(job.estimate_s, ctx.now - job.start_time, job.run_limit_s)
                                 : job.run_limit_s;
    return len > 0 ? job.start_time + len : kNever;
  }
  // Jobs are known by their place in the view's pending list.
  void book(const PassContext& ctx, const JobView& job, const Booking& b) {
    if (booking_of_.empty()) booking_of_.assign(ctx.view.pending.size(), -1);
    booking_of_[static_cast<size_t>(&job - ctx.view.pending.data())] = static_cast<int>(bookings_.size());
    ++live_;
    bookings_.push_back(b);
    for (auto& set : plans_) add_booking(set, b, -b.slots);
  }

  // The starts planned in the last pass stand until their jobs are considered: a job
  // considered before one of them may start now only around it. That is what keeps
  // every plan from moving later (conservative backfill's promise): each job replans
  // around all the others, and its own old start is still there.
  //
  // Not with RUNTIME_ESTIMATE = PREDICT: a plan made on predictions is no promise (a
  // running job that outlives its prediction moves every plan behind it), and a job's
  // old start standing while the jobs ahead of it replan would put it ahead of them.
  // There each pass plans afresh, in priority order.
  void book_last_plans(const PassContext& ctx) {
    for (const auto& job : ctx.view.pending) {
      const QueuePolicy& q = ctx.queue_of(job);
      if (job.planned_start <= 0 || !q.slot_reserve_time || !q.reservation_plan || q.predict) continue;
      std::int64_t from = std::max(job.planned_start, ctx.now);
      book(ctx, job, {from, end_of(from, length(job)), job.min_slots, false, end_of(from, limit_length(job))});
    }
  }

  void unbook(const PassContext& ctx, const JobView& job) {
    int& index = booking_of_[static_cast<size_t>(&job - ctx.view.pending.data())];
    if (index < 0) return;
    Booking& b = bookings_[static_cast<size_t>(index)];
    b.live = false;
    for (auto& set : plans_) add_booking(set, b, b.slots);
    index = -1;
    --live_;
  }

  static void add_booking(PlanSet& set, const Booking& b, int slots) {
    set.profile.add(b.from, b.to, slots);
    if (set.guard && b.overdue) set.guard->add(b.from, b.limit_to, slots);
  }

  PlanSet& plan_set(const PassContext& ctx, const Candidates& cands) {
    for (auto& s : plans_)
      if (s.cands == &cands) return s;
    std::vector<char> member(ctx.view.hosts.size(), 0);
    std::int64_t free = 0;
    for (int h : cands.hosts) {
      member[static_cast<size_t>(h)] = 1;
      if (!ctx.hosts[h].exclusive) free += std::max(0, ctx.hosts[h].free());
    }
    // Slots come free when their jobs reach their run limits; one past it already is
    // about to be killed.
    // Bookings go in with the ends (a booking takes at its start and gives back at its
    // end): one sort, where adding each to the profile would walk it each time.
    auto profile = [&](bool guard) {
      std::vector<std::pair<std::int64_t, std::int64_t>> ends;
      for (const auto& e : ends_) {
        if (member[static_cast<size_t>(e.host)] && e.limit != kNever)
          ends.emplace_back(std::max(e.limit, ctx.now + 1), e.slots);
      }
      for (const auto& b : bookings_) {
        if (!b.live || (guard && !b.overdue)) continue;
        const std::int64_t to = guard ? b.limit_to : b.to;
        ends.emplace_back(b.from, -b.slots);
        if (to != SlotProfile::kForever) ends.emplace_back(to, b.slots);
      }
      return SlotProfile(ctx.now, free, std::move(ends));
    };
    SlotProfile planned = profile(false);
    std::optional<SlotProfile> guard;
    if (guard_) guard.emplace(profile(true));
    plans_.push_back(PlanSet{&cands, std::move(member), std::move(planned), std::move(guard)});
    return plans_.back();
  }

  bool plan(PassContext& ctx, const JobView& job, const Candidates& cands, std::int64_t since) {
    PlanSet& set = plan_set(ctx, cands);
    const std::int64_t len = length(job), limit_len = limit_length(job);
    // A job past BACKFILL_MAX_WAIT is planned as plain EASY plans: on the run limits of
    // what runs and of the other overdue jobs' bookings, so that nothing started on a
    // prediction can delay it.
    const bool late = set.guard && overdue(ctx.queue_of(job), job, ctx.now);
    std::int64_t start =
        late ? set.guard->earliest(job.min_slots, limit_len) : set.profile.earliest(job.min_slots, len);
    // Room now means something other than planned starts refused the job (a resource,
    // a host limit): holding it would only keep other jobs off it.
    if (start == SlotProfile::kForever || start <= ctx.now) return false;
    book(ctx, job, {start, end_of(start, len), job.min_slots, late, end_of(start, limit_len)});
    ctx.result.reservations.push_back(Reservation{job.key, {}, since, start});
    ++ctx.result.stats.reserved;
    return true;
  }

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
  std::vector<PlanSet> plans_;  // RESERVATION_MODEL = PLAN
  std::vector<Booking> bookings_;
  std::vector<int> booking_of_;  // by index in the view's pending jobs, into bookings_; -1: none
  size_t live_ = 0;              // bookings not yet unbooked
  bool guard_ = false;           // a job waits past BACKFILL_MAX_WAIT: plan sets keep a guard profile
  std::map<std::pair<std::int64_t, int>, std::shared_ptr<const std::string>> away_;  // planned_away's texts
};

}  // namespace

std::unique_ptr<Module> make_schmod_reserve() { return std::make_unique<ReserveModule>(); }
// In lsb.modules' order, when lsb.modules names it.
constinit const ModuleDecl kSchmodReserve{"schmod_reserve", Phase::kConfigured, {}, make_schmod_reserve};

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
