#include "libsched/pass_steps.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>

#include "libsched/pending_reason.h"
#include "libsched/runtime_estimate.h"

namespace lsf::sched {

PassState::PassState(const ClusterView& v, std::int64_t now)
    : view(v),
      modules(make_pipeline(v.policy->modules)),
      ctx(v, now, modules),
      given_ids(v.accel.user_ids && v.accel.project_ids),
      every_host(v.hosts.size()) {
  std::iota(every_host.begin(), every_host.end(), 0);
}

namespace {

// ---- The steps of one job -------------------------------------------------------------

// admit: whether every module lets the job be considered now. Each answer is made in
// place and read there: nearly every job is admitted by every module, and moving each
// empty answer into one variable would cost more than the checks of some modules.
bool admit(PassState& s, const JobView& job) {
  for (auto& m : s.modules) {
    const std::optional<std::string> refused = m->admit(s.ctx, job);
    if (!refused) continue;
    if (!s.second_round && m->defers(s.ctx, job)) {
      s.deferred.push_back(&job);
      return false;
    }
    s.ctx.pend(job, *refused).blocked = m->blocks();
    return false;
  }
  ++s.ctx.result.stats.jobs_considered;
  return true;
}

// match: the job's host match, its candidates made by the hosts hooks for the first
// job of its key and shared with matches whose candidates come out the same.
Match& match(PassState& s, const JobView& job) {
  bool fresh = false;
  Match& match = s.caches.match(MatchKey::of(job), fresh);
  if (fresh) {
    Candidates made;
    if (!s.modules.front()->replaces_hosts()) made.hosts = s.every_host;
    s.ctx.result.stats.host_matches += static_cast<int>(s.view.hosts.size());
    for (auto& m : s.modules) m->hosts(s.ctx, job, made);
    ++s.ctx.result.stats.classes;
    s.caches.share(match, std::move(made));
  }
  return match;
}

struct Class {
  ReqKey key{};
  bool full = false;                // no candidate has a free slot, and no module acts then
  const ReqClass* known = nullptr;  // the outcome the job shares, when one is known
};

// classify: the job's requirement class, and the outcome it shares when its match is
// full or its class has failed before.
Class classify(PassState& s, const JobView& job, Match& match) {
  const QueueTraits& traits = s.traits[static_cast<size_t>(job.queue)];
  Class c;
  c.full = match.list->full(s.ctx) && !traits.acts_when_full;
  if (c.full && match.when_full) {
    c.known = &*match.when_full;
    return c;
  }
  c.key = ReqKey::of(job, &match, traits.by_user, s.given_ids, !s.ctx.result.reservations.empty());
  c.known = s.caches.known(c.key);
  return c;
}

// Every slot of the job on the first candidates with room: what runs when no
// placement module (schmod_parallel) is configured.
Allocation first_fit(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& out) {
  int need = job.max_slots;
  for (int h : cands.hosts) {
    const char* why = nullptr;
    int r = ctx.room(job, h, &why);
    if (r <= 0) {
      out.refuse(why ? why : reason::kHostFull, h);
      continue;
    }
    int n = std::min(r, need);
    out.hosts.emplace_back(h, n);
    need -= n;
    if (need == 0) break;
  }
  if (job.max_slots - need >= job.min_slots) return Allocation::kPlaced;
  out.hosts.clear();
  return Allocation::kNoRoom;
}

struct Attempt {
  Allocation allocation = Allocation::kNotMine;
  std::shared_ptr<const std::string> cannot;  // a module's cannot_start refused it
};

// place: where the job's slots go, unless a module says no placement could pass.
Attempt place(PassState& s, const JobView& job, const Candidates& cands, Placement& placement) {
  for (auto& m : s.modules)
    if (auto cannot = m->cannot_start(s.ctx, job, cands)) return {Allocation::kNoRoom, std::move(cannot)};
  Allocation a = Allocation::kNotMine;
  for (auto& m : s.modules)
    if ((a = m->allocate(s.ctx, job, cands, placement)) != Allocation::kNotMine) break;
  if (a == Allocation::kNotMine) a = first_fit(s.ctx, job, cands, placement);
  if (a != Allocation::kPlaced) return {a, nullptr};
  for (auto& m : s.modules) {
    if (auto no = m->verify(s.ctx, job, cands, placement)) {
      placement.hosts.clear();
      placement.reason = *no;
      return {Allocation::kNoRoom, nullptr};
    }
  }
  for (auto& m : s.modules) {
    if (auto no = m->assign(s.ctx, job, placement)) {
      placement.hosts.clear();
      placement.gpus.clear();
      placement.reason = *no;
      return {Allocation::kNoRoom, nullptr};
    }
  }
  return {Allocation::kPlaced, nullptr};
}

// preempt: room freed for a job that cannot start, by the first module that can.
bool preempt(PassState& s, const JobView& job, const Candidates& cands, Placement& placement) {
  Placement freed;
  for (auto& m : s.modules) {
    if (m->preempt(s.ctx, job, cands, freed)) {
      placement = std::move(freed);
      return true;
    }
  }
  return false;
}

// reserve: a job that cannot start may hold or plan what the first willing module
// gives it; every module accounts for what is held.
void reserve(PassState& s, const JobView& job, const Candidates& cands) {
  for (auto& m : s.modules) {
    Placement held;
    if (!m->reserve(s.ctx, job, cands, held)) continue;
    for (auto& other : s.modules) other->hold(s.ctx, job, held);
    break;
  }
}

// record: a start, as the modules' commit and a dispatch naming each slot's host.
void record_start(PassState& s, const JobView& job, const Placement& placement) {
  for (auto& m : s.modules) m->commit(s.ctx, job, placement);
  Dispatch d{job.key, {}, placement.hosts, placement.gpus, job.estimate_s};
  d.hosts.reserve(static_cast<size_t>(placement.slots()));
  for (auto [h, n] : placement.hosts)
    for (int i = 0; i < n; ++i) d.hosts.push_back(s.view.hosts[h].name);
  s.ctx.result.dispatches.push_back(std::move(d));
  ++s.ctx.result.stats.dispatched;
}

// record: a job that got as far as host matching pends, passed over by later starts.
void record_pending(PassState& s, const JobView& job, const ReqClass& why) {
  s.ctx.pend(job, why.reason, why.hosts);
  s.passed_over.emplace_back(static_cast<std::uint32_t>(s.ctx.result.reasons.size() - 1),
                             static_cast<std::uint32_t>(s.ctx.result.dispatches.size()));
}

// Jobs that share a known outcome skip reserving, except where a module plans a start
// for each job.
void pend_alike(PassState& s, const JobView& job, const Candidates& cands, const ReqClass& known) {
  record_pending(s, job, known);
  if (s.traits[static_cast<size_t>(job.queue)].plans) reserve(s, job, cands);
}

// Why a job whose placement was tried pends: the module's refusal, the placement's
// reason for the job as a whole, or its hosts' reasons composed.
ReqClass why_not_placed(PassState& s, const Candidates& cands, const Attempt& a, const Placement& placement) {
  if (a.cannot) return {a.cannot, nullptr};
  if (!placement.reason.empty()) return {s.ctx.intern(placement.reason), nullptr};
  return s.caches.composed(s.ctx, cands, placement);
}

// Considers one job: true when it was placed (in `placement`), else it pends.
bool consider(PassState& s, const JobView& job, Placement& placement) {
  if (!admit(s, job)) return false;
  Match& m = match(s, job);
  const Candidates& cands = m.list->cands;
  const Class c = classify(s, job, m);
  if (c.known) {
    pend_alike(s, job, cands, *c.known);
    return false;
  }
  Attempt attempt = place(s, job, cands, placement);
  if (attempt.allocation != Allocation::kPlaced && preempt(s, job, cands, placement))
    attempt.allocation = Allocation::kPlaced;
  if (attempt.allocation == Allocation::kPlaced) {
    record_start(s, job, placement);
    return true;
  }
  const ReqClass why = why_not_placed(s, cands, attempt, placement);
  reserve(s, job, cands);
  if (c.full) m.when_full = why;
  s.caches.remember(c.key, why);
  record_pending(s, job, why);
  return false;
}

// ---- The walk over the jobs -------------------------------------------------------------

// How far ahead the walk over the jobs fetches: enough to cover a memory access while
// a job whose class is known (most of them) is considered.
constexpr size_t kAhead = 8;

// The fields every job's admission and class lookup read: the front of its JobView
// (the rest is read for few jobs, and fetching it would crowd out what is).
void prefetch_job(const JobView* job, size_t bytes) {
  const char* p = reinterpret_cast<const char*>(job);
  for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off);  // aligned: whole lines
}

// The jobs a picker hands out, each considered as it comes.
void walk_picked(PassState& s, JobPicker& picker) {
  while (const JobView* job = picker.next()) {
    Placement placement;
    if (consider(s, *job, placement)) picker.started(*job, placement);
  }
}

// BACKFILL_ORDER = SHORTEST: once RESERVATION_DEPTH jobs have reserved, no later job
// of the pass may reserve and the rest of the queue only backfills, so it is tried in
// the order that packs most around the reservations: the shortest planned length first
// (unknown last), ties in queue order. The queue's own order still decides who reserves,
// and jobs past BACKFILL_MAX_WAIT go before the others in it: sorted among themselves
// by length, the longest of them waited on for ever again.
void backfill_shortest_first(PassState& s, size_t from, int queue) {
  auto& jobs = s.jobs;
  size_t end = from;
  while (end < jobs.size() && jobs[end]->queue == queue) ++end;
  const QueuePolicy& q = s.view.policy->queues[static_cast<size_t>(queue)];
  const std::int64_t now = s.ctx.now;
  auto rank = [&](const JobView* j) {
    const std::int64_t len = planned_length(*j);
    if (overdue(q, *j, now)) return std::pair{0, std::int64_t{0}};
    return std::pair{1, len > 0 ? len : std::numeric_limits<std::int64_t>::max()};
  };
  std::stable_sort(jobs.begin() + static_cast<std::ptrdiff_t>(from), jobs.begin() + static_cast<std::ptrdiff_t>(end),
                   [&](const JobView* a, const JobView* b) { return rank(a) < rank(b); });
}

// The rest of the queue of jobs[begin], in order (pickers start where a queue's jobs
// start); returns where the next queue begins.
size_t walk_queue(PassState& s, size_t begin) {
  // With ids, a job's names are read only where a module needs them (a user met first).
  const size_t hot_bytes = s.given_ids ? kJobViewHotBytes : kJobViewNamedBytes;
  const auto& jobs = s.jobs;
  const int queue = jobs[begin]->queue;
  const int depth = s.view.policy->reservation_depth;
  bool reorder = depth >= 0 && s.view.policy->queues[static_cast<size_t>(queue)].shortest_first;
  for (; begin < jobs.size() && jobs[begin]->queue == queue; ++begin) {
    // A queue's jobs lie far apart in the view (jobs of other queues between): fetch
    // the next ones' fields while this one is considered.
    if (begin + kAhead < jobs.size()) prefetch_job(jobs[begin + kAhead], hot_bytes);
    Placement placement;
    consider(s, *jobs[begin], placement);
    if (reorder && static_cast<int>(s.ctx.result.reservations.size()) >= depth) {
      backfill_shortest_first(s, begin + 1, queue);
      reorder = false;
    }
  }
  return begin;
}

}  // namespace

// ---- The steps of the pass --------------------------------------------------------------

namespace steps {

void prepare(PassState& s) {
  for (auto& m : s.modules) m->prepare(s.ctx);
  // Modules whose policy this configuration does not use leave the pass: they would be
  // asked about every job and every host they have nothing to say about.
  std::erase_if(s.modules, [&](const auto& m) { return !m->active(s.ctx); });
  s.ctx.modules_settled();
  s.traits.assign(s.view.policy->queues.size(), QueueTraits{});
  for (size_t q = 0; q < s.traits.size(); ++q) {
    const int queue = static_cast<int>(q);
    QueueTraits& t = s.traits[q];
    for (const auto& m : s.modules) {
      t.plans = t.plans || m->plans(s.ctx, queue);
      t.acts_when_full = t.acts_when_full || m->acts_when_full(s.ctx, queue);
      t.by_user = t.by_user || m->sees_user(s.ctx, queue);
    }
  }
}

void order_jobs(PassState& s) {
  s.jobs.reserve(s.view.pending.size());
  for (const auto& j : s.view.pending) s.jobs.push_back(&j);
  for (auto& m : s.modules) m->order(s.ctx, s.jobs);
  s.ctx.result.stats.jobs_pending = static_cast<int>(s.jobs.size());
  // Nearly every job pends on a busy cluster: growing these by doubling would copy
  // them over and over.
  s.ctx.result.reasons.reserve(s.jobs.size());
  s.passed_over.reserve(s.jobs.size());
}

// In order, except where a module takes over the order of the next jobs while they
// start (fairshare, for a queue or a cross-queue set).
void walk(PassState& s) {
  for (size_t begin = 0; begin < s.jobs.size();) {
    std::span<const JobView* const> rest(s.jobs.data() + begin, s.jobs.size() - begin);
    std::unique_ptr<JobPicker> picker;
    size_t taken = 0;
    for (auto& m : s.modules)
      if ((picker = m->picker(s.ctx, rest, taken))) break;
    if (picker && taken > 0) {
      walk_picked(s, *picker);
      begin += taken;
    } else {
      begin = walk_queue(s, begin);
    }
  }
}

void second_round(PassState& s) {
  if (s.deferred.empty()) return;
  s.second_round = true;
  for (auto& m : s.modules) m->second_round(s.ctx);
  for (const JobView* job : s.deferred) {
    Placement placement;
    consider(s, *job, placement);
  }
}

void finish(PassState& s) {
  const int started = static_cast<int>(s.ctx.result.dispatches.size());
  for (auto [i, before] : s.passed_over) {
    if (static_cast<int>(before) == started) break;
    s.ctx.result.reasons[i].bypassed = started - static_cast<int>(before);
  }
  for (auto& m : s.modules) m->finish(s.ctx);
}

}  // namespace steps
}  // namespace lsf::sched
