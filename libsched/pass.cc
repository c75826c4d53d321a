// The engine of the pass: runs the modules' hooks over the pending jobs in order.
//
// Requirement classes keep the pass proportional to classes x hosts rather than
// jobs x hosts: jobs with the same queue, resource requirement, -m list and
// exclusivity share one host match, and host matches whose candidates come out the
// same share those (a HostList); jobs of a match that also share slot counts, (once
// some job holds a reservation) run limit, and user, project and service class (when
// some active module tells them apart) share the outcome of a failed placement (a
// ReqClass). Within a pass free room only shrinks, so once a class cannot be placed no
// later job of it can, and each costs one lookup; once no host of a match has a free
// slot, its jobs share one outcome whoever submitted them. The one exception is a job
// with a planned start (RESERVATION_MODEL = PLAN): unbooking its own plan makes room for
// it alone, so it is a class by itself.
#include "libsched/pass.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory_resource>
#include <numeric>
#include <unordered_map>

#include "libsched/module.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

struct MatchKey {
  int queue;
  const void* res_req;
  const void* asked;
  bool exclusive;
  const void* own;  // the job itself when it matches alone
  bool operator==(const MatchKey&) const = default;
};
struct MatchKeyHash {
  size_t operator()(const MatchKey& k) const {
    size_t h = std::hash<const void*>()(k.res_req);
    h ^= std::hash<const void*>()(k.asked) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= std::hash<const void*>()(k.own) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h ^ (static_cast<size_t>(k.queue) * 2 + k.exclusive);
  }
};
struct ReqKey {
  const void* match;  // the Match: queue, requirement, -m, exclusivity
  const void* own;    // a job with a planned start: its plan makes room for it alone
  // Whose job: by the caller's ids where it gives them (its names are then not read),
  // else by name. A service class has guarantees of its own.
  int user_id, project_id;
  std::string_view user, project, sla;
  int min_slots, max_slots;
  std::int64_t run_limit;
  bool operator==(const ReqKey&) const = default;
};
struct ReqKeyHash {
  size_t operator()(const ReqKey& k) const {
    size_t h = std::hash<const void*>()(k.match) ^ std::hash<const void*>()(k.own);
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(static_cast<size_t>(static_cast<unsigned>(k.user_id)) << 32 | static_cast<unsigned>(k.project_id));
    mix(std::hash<std::string_view>()(k.user));
    mix(std::hash<std::string_view>()(k.project));
    mix(std::hash<std::string_view>()(k.sla));
    mix(static_cast<size_t>(k.min_slots) * 31 + static_cast<size_t>(k.max_slots));
    mix(static_cast<size_t>(k.run_limit));
    return h;
  }
};

// A requirement class that could not be placed: later jobs of it pend for the same.
struct ReqClass {
  std::shared_ptr<const std::string> reason;
  std::shared_ptr<const HostReasons> hosts;
};

// Candidates as the hosts hooks left them, and how far they have filled. Host matches
// that come out the same (queues' jobs whose requirements differ only in what the
// hooks do not read: span[], rusage[], -n) share one: what modules work out per
// candidate list (which hosts are still open, the hosts a failure names) is then
// worked out once, and its walks over thousands of full hosts are not repeated.
struct HostList {
  Candidates cands;
  size_t open_from = 0;  // hosts before this one have no free slot
};

// Lists found equal by hash are compared whole, so a sample of the hosts will do:
// hashing every host of 160 lists of 5,000 took 7 M instructions a pass.
size_t hash_of(const Candidates& c) {
  size_t h = c.hosts.size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  const size_t step = std::max<size_t>(1, c.hosts.size() / 32);
  for (size_t i = 0; i < c.hosts.size(); i += step) mix(static_cast<size_t>(c.hosts[i]));
  for (const auto& [why, list] : c.excluded) {
    mix(std::hash<std::string>()(why));
    mix(list.size());
    if (!list.empty()) mix(static_cast<size_t>(list.front()) * 31 + static_cast<size_t>(list.back()));
  }
  return h;
}

// A host match. Once none of its hosts has a free slot, no job of it can start in
// this pass and every job fails for the same reasons (the hosts are full or exclusive
// whoever asks), unless a module can still act for the job (preempt): the first such
// failure is kept for the rest. A reservation needs a free slot to hold, so it is no
// exception.
struct Match {
  HostList* list = nullptr;
  std::optional<ReqClass> when_full;
};

bool no_free_slot(const PassContext& ctx, HostList& l) {
  const auto& hosts = l.cands.hosts;
  while (l.open_from < hosts.size()) {
    const HostState& hs = ctx.hosts[hosts[l.open_from]];
    if (hs.free() > 0 && !hs.exclusive) break;
    ++l.open_from;
  }
  return l.open_from == hosts.size();
}

struct LastReason {
  std::map<const char*, int> why_not;
  std::vector<std::pair<const char*, int>> refused;
  std::shared_ptr<const std::string> text;
  std::shared_ptr<const HostReasons> hosts;
};

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

// How far ahead the walk over the jobs fetches: enough to cover a memory access while
// a job whose class is known (most of them) is considered.
constexpr size_t kAhead = 8;

// The fields every job's admission and class lookup read: the front of its JobView
// (the rest is read for few jobs, and fetching it would crowd out what is).
void prefetch_job(const JobView* job, size_t bytes) {
  const char* p = reinterpret_cast<const char*>(job);
  for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off);  // aligned: whole lines
}

}  // namespace

PassResult schedule(const ClusterView& view, std::int64_t now) {
  auto modules = make_pipeline(view.policy->modules);
  PassContext ctx(view, now, modules);
  for (auto& m : modules) m->prepare(ctx);
  // Modules whose policy this configuration does not use leave the pass: they would be
  // asked about every job and every host they have nothing to say about.
  std::erase_if(modules, [&](const auto& m) { return !m->active(ctx); });
  ctx.modules_settled();
  // What the modules say of a queue's jobs as a whole, asked once per queue rather than
  // three times per module for each of 100,000 jobs.
  struct QueueTraits {
    bool plans = false, acts_when_full = false, by_user = false;
  };
  std::vector<QueueTraits> traits(view.policy->queues.size());
  for (size_t q = 0; q < traits.size(); ++q) {
    const int queue = static_cast<int>(q);
    for (const auto& m : modules) {
      traits[q].plans = traits[q].plans || m->plans(ctx, queue);
      traits[q].acts_when_full = traits[q].acts_when_full || m->acts_when_full(ctx, queue);
      traits[q].by_user = traits[q].by_user || m->sees_user(ctx, queue);
    }
  }

  std::vector<const JobView*> jobs;
  jobs.reserve(view.pending.size());
  for (const auto& j : view.pending) jobs.push_back(&j);
  for (auto& m : modules) m->order(ctx, jobs);
  ctx.result.stats.jobs_pending = static_cast<int>(jobs.size());
  // Nearly every job pends on a busy cluster: growing these by doubling would copy
  // them over and over.
  ctx.result.reasons.reserve(jobs.size());

  // Node-based: Candidates addresses stay valid as the map grows (they key outcomes).
  // Their nodes live as long as the pass, so they come from one arena freed at its end
  // (under conservative backfill nearly every waiting job adds an outcome each pass).
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_map<MatchKey, Match, MatchKeyHash> matches(&arena);
  std::pmr::deque<HostList> host_lists(&arena);  // a deque: Candidates addresses stay
  std::pmr::unordered_multimap<size_t, HostList*> lists_by_hash(&arena);
  std::pmr::unordered_map<ReqKey, ReqClass, ReqKeyHash> outcomes(&arena);
  std::pmr::unordered_map<const Candidates*, LastReason> last_reason(&arena);
  // The matches met last, by their key's hash: nearly every job's is one of a few
  // hundred, found here by comparing a key rather than through the map's buckets.
  struct MatchSlot {
    MatchKey key{};
    Match* match = nullptr;
  };
  std::array<MatchSlot, 256> recent{};
  const bool given_ids = view.user_ids && view.project_ids;  // jobs' ids mean names in these

  // Jobs a module refused for now but lets try again after everyone's first turn
  // (USE_PRIORITY_IN_POOL: slots a pool's queues left unused).
  std::vector<const JobView*> deferred;
  // Where each class's candidates start, before the hosts hooks filter and rank them.
  std::vector<int> every_host(view.hosts.size());
  std::iota(every_host.begin(), every_host.end(), 0);
  bool second_round = false;

  // A job that cannot start may hold or plan what the first willing module gives it.
  auto reserve = [&](const JobView& job, const Candidates& cands) {
    for (auto& m : modules) {
      Placement held;
      if (!m->reserve(ctx, job, cands, held)) continue;
      for (auto& other : modules) other->hold(ctx, job, held);
      break;
    }
  };
  // A job that got as far as host matching and pends: every job started after it
  // passes it over. Kept as (its reason, the starts so far) until the pass ends; the
  // starts so far only grow along the list, so only the reasons before the last start
  // are written again, not 100,000 of them long since out of the cache.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> passed_over;
  passed_over.reserve(jobs.size());
  auto pend_considered = [&](const JobView& job, const std::shared_ptr<const std::string>& text,
                             const std::shared_ptr<const HostReasons>& hosts) {
    ctx.pend(job, text, hosts);
    passed_over.emplace_back(static_cast<std::uint32_t>(ctx.result.reasons.size() - 1),
                             static_cast<std::uint32_t>(ctx.result.dispatches.size()));
  };
  // Jobs that share a known outcome skip reserving, except where a module plans a start
  // for each job.
  auto pend_alike = [&](const JobView& job, const Candidates& cands, const ReqClass& known) {
    pend_considered(job, known.reason, known.hosts);
    if (traits[static_cast<size_t>(job.queue)].plans) reserve(job, cands);
  };

  // Considers one job: true when it was placed (in `placement`), else it pends.
  auto consider = [&](const JobView& job, Placement& placement) -> bool {
    // Each answer is made in place and read there: nearly every job is admitted by
    // every module, and moving each empty answer into one variable cost more than the
    // checks of some modules.
    for (auto& m : modules) {
      const std::optional<std::string> refused = m->admit(ctx, job);
      if (!refused) continue;
      if (!second_round && m->defers(ctx, job)) {
        deferred.push_back(&job);
        return false;
      }
      ctx.pend(job, *refused).blocked = m->blocks();
      return false;
    }
    ++ctx.result.stats.jobs_considered;

    // Jobs excluded from hosts by an exclusive requeue match on their own.
    MatchKey mk{job.queue, job.res_req.get(), job.asked_hosts.get(), job.exclusive,
                job.excluded_hosts.empty() ? nullptr : &job};
    MatchSlot& slot = recent[MatchKeyHash()(mk) & (recent.size() - 1)];
    bool fresh = false;
    if (!slot.match || !(slot.key == mk)) {
      auto [mit, made] = matches.try_emplace(mk);
      slot = {mk, &mit->second};
      fresh = made;
    }
    Match& match = *slot.match;
    if (fresh) {
      Candidates made;
      if (!modules.front()->replaces_hosts()) made.hosts = every_host;
      ctx.result.stats.host_matches += static_cast<int>(view.hosts.size());
      for (auto& m : modules) m->hosts(ctx, job, made);
      ++ctx.result.stats.classes;
      const size_t hash = hash_of(made);
      auto [same, end] = lists_by_hash.equal_range(hash);
      for (; same != end && !match.list; ++same)
        if (same->second->cands.hosts == made.hosts && same->second->cands.excluded == made.excluded)
          match.list = same->second;
      if (!match.list) {
        match.list = &host_lists.emplace_back(HostList{std::move(made), 0});
        lists_by_hash.emplace(hash, match.list);
      }
    }
    Candidates& cands = match.list->cands;
    bool full = no_free_slot(ctx, *match.list);
    const QueueTraits& queue_traits = traits[static_cast<size_t>(job.queue)];
    if (full) full = !queue_traits.acts_when_full;
    if (full && match.when_full) {
      pend_alike(job, cands, *match.when_full);
      return false;
    }

    // The run limit matters only for backfill into slots reservations hold: before
    // any job holds slots in this pass it cannot change a job's outcome.
    std::int64_t backfill_key = ctx.result.reservations.empty() ? 0 : job.run_limit_s;
    // Whose job it is matters only to modules that count or order by user, project or
    // service class; without them a class holds every user's jobs alike.
    const bool by_user = queue_traits.by_user;
    const bool ids = by_user && given_ids && job.user_id >= 0 && job.project_id >= 0;
    std::string_view none;
    ReqKey rk{&match,
              job.planned_start > 0 ? &job : nullptr,
              ids ? job.user_id : -1,
              ids ? job.project_id : -1,
              by_user && !ids ? std::string_view(job.user) : none,
              by_user && !ids ? std::string_view(job.project) : none,
              by_user ? std::string_view(job.sla) : none,
              job.min_slots,
              job.max_slots,
              backfill_key};
    if (auto known = outcomes.find(rk); known != outcomes.end()) {
      pend_alike(job, cands, known->second);
      return false;
    }

    Allocation a = Allocation::kNotMine;
    std::shared_ptr<const std::string> cannot;
    for (auto& m : modules) {
      if ((cannot = m->cannot_start(ctx, job, cands))) {
        a = Allocation::kNoRoom;
        break;
      }
    }
    if (a == Allocation::kNotMine)
      for (auto& m : modules)
        if ((a = m->allocate(ctx, job, cands, placement)) != Allocation::kNotMine) break;
    if (a == Allocation::kNotMine) a = first_fit(ctx, job, cands, placement);
    if (a == Allocation::kPlaced) {
      for (auto& m : modules) {
        if (auto no = m->verify(ctx, job, cands, placement)) {
          placement.hosts.clear();
          placement.reason = *no;
          a = Allocation::kNoRoom;
          break;
        }
      }
    }
    if (a != Allocation::kPlaced) {
      Placement freed;
      for (auto& m : modules) {
        if (m->preempt(ctx, job, cands, freed)) {
          placement = std::move(freed);
          a = Allocation::kPlaced;
          break;
        }
      }
    }
    if (a == Allocation::kPlaced) {
      for (auto& m : modules) m->commit(ctx, job, placement);
      Dispatch d{job.key, {}, placement.hosts};
      d.hosts.reserve(static_cast<size_t>(placement.slots()));
      for (auto [h, n] : placement.hosts)
        for (int i = 0; i < n; ++i) d.hosts.push_back(view.hosts[h].name);
      ctx.result.dispatches.push_back(std::move(d));
      ++ctx.result.stats.dispatched;
      return true;
    }

    std::shared_ptr<const std::string> text;
    std::shared_ptr<const HostReasons> hosts;
    if (cannot) {
      text = std::move(cannot);
    } else if (!placement.reason.empty()) {
      text = ctx.intern(placement.reason);
    } else {
      // Jobs of one host match usually fail for the same reasons on the same hosts:
      // compose the text once. Bulk-skipped host lists only grow, so equal counts mean
      // equal lists.
      LastReason& last = last_reason[&cands];
      if (!last.text || last.why_not != placement.why_not || last.refused != placement.refused) {
        auto all = cands.excluded;
        for (const auto& [why, list] : placement.skipped) all[why].insert(all[why].end(), list->begin(), list->end());
        for (const auto& [why, h] : placement.refused) all[why].push_back(h);
        auto composed = host_reasons(ctx, all);
        last.text = ctx.intern(composed.text.empty() ? std::string(reason::kResReq) : composed.text);
        last.hosts = std::make_shared<const HostReasons>(std::move(composed.hosts));
        last.why_not = placement.why_not;
        last.refused = placement.refused;
      }
      text = last.text;
      hosts = last.hosts;
    }
    reserve(job, cands);
    if (full) match.when_full = ReqClass{text, hosts};
    outcomes.emplace(rk, ReqClass{text, hosts});
    pend_considered(job, text, hosts);
    return false;
  };

  // With ids, a job's names are read only where a module needs them (a user met first).
  const size_t hot_bytes = given_ids ? kJobViewHotBytes : kJobViewNamedBytes;
  // In order, except where a module takes over the order of the next jobs while they
  // start (fairshare, for a queue or a cross-queue set).
  for (size_t begin = 0; begin < jobs.size();) {
    std::span<const JobView* const> rest(jobs.data() + begin, jobs.size() - begin);
    std::unique_ptr<JobPicker> picker;
    size_t taken = 0;
    for (auto& m : modules)
      if ((picker = m->picker(ctx, rest, taken))) break;
    if (picker && taken > 0) {
      while (const JobView* job = picker->next()) {
        Placement placement;
        if (consider(*job, placement)) picker->started(*job, placement);
      }
      begin += taken;
    } else {
      // Pickers start where a queue's jobs start: take the rest of this queue as it is.
      const int queue = jobs[begin]->queue;
      for (; begin < jobs.size() && jobs[begin]->queue == queue; ++begin) {
        // A queue's jobs lie far apart in the view (jobs of other queues between):
        // fetch the next ones' fields while this one is considered.
        if (begin + kAhead < jobs.size()) prefetch_job(jobs[begin + kAhead], hot_bytes);
        Placement placement;
        consider(*jobs[begin], placement);
      }
    }
  }

  if (!deferred.empty()) {
    second_round = true;
    for (auto& m : modules) m->second_round(ctx);
    for (const JobView* job : deferred) {
      Placement placement;
      consider(*job, placement);
    }
  }

  const int started = static_cast<int>(ctx.result.dispatches.size());
  for (auto [i, before] : passed_over) {
    if (static_cast<int>(before) == started) break;
    ctx.result.reasons[i].bypassed = started - static_cast<int>(before);
  }
  for (auto& m : modules) m->finish(ctx);
  return std::move(ctx.result);
}

void carry_reservation(JobView& job, const Reservation* r) {
  job.reserving_since = r ? r->since : 0;
  job.reserved_slots = r ? static_cast<int>(r->hosts.size()) : 0;
  job.planned_start = r && r->hosts.empty() ? r->estimated_start : 0;
}

RunningJobView started(const JobView& job, std::vector<std::string> hosts, std::int64_t now) {
  RunningJobView r;
  r.key = job.key;
  r.queue = job.queue;
  r.user = job.user;
  r.project = job.project;
  r.user_id = job.user_id;
  r.project_id = job.project_id;
  r.hosts = std::move(hosts);
  r.start_time = now;
  r.run_limit_s = job.run_limit_s;
  r.exclusive = job.exclusive;
  r.res_req = job.res_req;
  r.share_group = job.share_group;
  r.sla = job.sla;
  return r;
}

}  // namespace lsf::sched
