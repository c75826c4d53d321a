// What jobs alike share within one pass, so that a pass costs classes x hosts rather
// than jobs x hosts. Internal to the engine (pass_steps.cc); modules never see it.
//
// Contract. Everything here lives for one pass: made by schedule() and freed, from one
// arena, when it returns. Keys hold addresses of what the view and the pass keep alive
// for as long (requirement and -m objects, jobs, matches, candidate lists). Each cache
// is valid for the whole pass because free room only shrinks within a pass: what could
// not be placed earlier cannot be placed later (the one exception, a job's own planned
// start, is a key of its own). Nothing is ever invalidated or evicted before the pass
// ends, and no entry is carried into the next pass (PassCarry is the modules' business).
//
//   host matches   keyed on MatchKey: queue, requirement object, -m object and
//                  exclusivity, and the job itself when it is kept off hosts by an
//                  exclusive requeue. Holds the candidates the hosts hooks made for the
//                  key's first job: the hosts hooks must answer alike for every job of a
//                  key. Matches whose candidates come out equal (requirements that differ
//                  only in what the hooks do not read: span[], rusage[], -n) share one
//                  HostList, found by content. Once no candidate has a free slot and no
//                  module acts when full (Module::acts_when_full), the match keeps its
//                  first failure (`when_full`) for every later job of it.
//   classes        keyed on ReqKey: the match; the job itself when it has a planned start
//                  (unbooking its plan makes room for it alone); whose job it is (user and
//                  project ids, or names where the caller gives no ids, and the service
//                  class), only when some active module sees users for the queue; -n; and
//                  the run limit, only once some job holds a reservation (before that it
//                  cannot change an outcome). Holds why the class's first job pended.
//   reasons        keyed on the candidate list; holds the text and hosts composed from
//                  the last failure on it, reused while the next failure refuses the same
//                  hosts for the same reasons (bulk-skipped lists only grow, so equal
//                  counts mean equal lists).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "libsched/pass_context.h"

namespace lsf::sched {

// Which jobs share a host match.
struct MatchKey {
  int queue;
  const void* res_req;
  const void* asked;
  bool exclusive;
  const void* own;  // the job itself when it matches alone
  bool operator==(const MatchKey&) const = default;
  static MatchKey of(const JobView& job) {
    return {job.queue, job.res_req.get(), job.asked_hosts.get(), job.exclusive,
            job.excluded_hosts.empty() ? nullptr : &job};
  }
};
struct MatchKeyHash {
  size_t operator()(const MatchKey& k) const {
    size_t h = std::hash<const void*>()(k.res_req);
    h ^= std::hash<const void*>()(k.asked) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= std::hash<const void*>()(k.own) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h ^ (static_cast<size_t>(k.queue) * 2 + k.exclusive);
  }
};

// Which jobs of a match share a failed placement.
struct ReqKey {
  const void* match;  // the Match: queue, requirement, -m, exclusivity
  const void* own;    // a job with a planned start: its plan makes room for it alone
  // Whose job: by the caller's ids where it gives them (its names are then not read),
  // else by name. A service class has guarantees of its own.
  int user_id, project_id;
  std::string_view user, project, sla;
  int min_slots, max_slots;
  std::int64_t run_limit, estimate;
  const void* gpu;  // the GPU requirement: jobs share one when they ask the same
  bool operator==(const ReqKey&) const = default;
  // `by_user`: some active module's answers for the job's queue depend on whose job it
  // is; `given_ids`: the view gives id tables; `held`: some job holds a reservation in
  // this pass (the run limit and estimate then matter for backfill around it).
  static ReqKey of(const JobView& job, const void* match, bool by_user, bool given_ids, bool held) {
    const bool ids = by_user && given_ids && job.user_id >= 0 && job.project_id >= 0;
    const std::string_view none;
    return {match,
            job.planned_start > 0 ? &job : nullptr,
            ids ? job.user_id : -1,
            ids ? job.project_id : -1,
            by_user && !ids ? std::string_view(job.user) : none,
            by_user && !ids ? std::string_view(job.project) : none,
            by_user ? std::string_view(job.sla) : none,
            job.min_slots,
            job.max_slots,
            held ? job.run_limit_s : 0,
            held ? job.estimate_s : 0,
            job.gpu.get()};
  }
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
    mix(static_cast<size_t>(k.estimate));
    mix(std::hash<const void*>()(k.gpu));
    return h;
  }
};

// A requirement class that could not be placed: later jobs of it pend for the same.
struct ReqClass {
  std::shared_ptr<const std::string> reason;
  std::shared_ptr<const HostReasons> hosts;
};

// Candidates as the hosts hooks left them, and how far they have filled. Host matches
// that come out the same share one: what modules work out per candidate list (which
// hosts are still open, the hosts a failure names) is then worked out once, and its
// walks over thousands of full hosts are not repeated.
struct HostList {
  Candidates cands;
  size_t open_from = 0;  // hosts before this one have no free slot
  // No candidate has a free slot (or all that have are exclusive) now; skips the hosts
  // found full for good, since free room only shrinks.
  bool full(const PassContext& ctx) {
    const auto& hosts = cands.hosts;
    while (open_from < hosts.size()) {
      const HostState& hs = ctx.hosts[hosts[open_from]];
      if (hs.free() > 0 && !hs.exclusive) break;
      ++open_from;
    }
    return open_from == hosts.size();
  }
};

// A host match. Once none of its hosts has a free slot, no job of it can start in
// this pass and every job fails for the same reasons (the hosts are full or exclusive
// whoever asks), unless a module can still act for the job (preempt): the first such
// failure is kept for the rest. A reservation needs a free slot to hold, so it is no
// exception.
struct Match {
  HostList* list = nullptr;  // null until the match's candidates are made (share())
  std::optional<ReqClass> when_full;
};

class PassCaches {
 public:
  PassCaches();
  PassCaches(const PassCaches&) = delete;
  PassCaches& operator=(const PassCaches&) = delete;

  // The match for `key`; `fresh` when it was made now and its candidates are still to
  // be made and given to share().
  Match& match(const MatchKey& key, bool& fresh) {
    MatchSlot& slot = recent_[MatchKeyHash()(key) & (recent_.size() - 1)];
    fresh = false;
    if (!slot.match || !(slot.key == key)) slot = {key, &find_or_make(key, fresh)};
    return *slot.match;
  }
  // Gives `match` the list equal to `made`, or `made` as a new one.
  void share(Match& match, Candidates&& made);

  // Why the class's first job pended; null while none has.
  const ReqClass* known(const ReqKey& key) const {
    auto it = classes_.find(key);
    return it == classes_.end() ? nullptr : &it->second;
  }
  void remember(const ReqKey& key, const ReqClass& outcome) { classes_.emplace(key, outcome); }

  // Why a placement on `cands` failed host by host, composed (host_reasons) unless the
  // last failure on the same list refused the same hosts for the same reasons.
  ReqClass composed(PassContext& ctx, const Candidates& cands, const Placement& placement);

 private:
  Match& find_or_make(const MatchKey& key, bool& fresh);

  struct LastReason {
    std::map<const char*, int> why_not;
    std::vector<std::pair<const char*, int>> refused;
    std::shared_ptr<const std::string> text;
    std::shared_ptr<const HostReasons> hosts;
  };
  // The matches met last, by their key's hash: nearly every job's is one of a few
  // hundred, found here by comparing a key rather than through the map's buckets.
  struct MatchSlot {
    MatchKey key{};
    Match* match = nullptr;
  };

  // Node-based: Candidates addresses stay valid as the maps grow (they key outcomes).
  // Their nodes live as long as the pass, so they come from one arena freed at its end
  // (under conservative backfill nearly every waiting job adds an outcome each pass).
  std::pmr::monotonic_buffer_resource arena_;
  std::pmr::unordered_map<MatchKey, Match, MatchKeyHash> matches_{&arena_};
  std::pmr::deque<HostList> lists_{&arena_};  // a deque: Candidates addresses stay
  std::pmr::unordered_multimap<size_t, HostList*> lists_by_hash_{&arena_};
  std::pmr::unordered_map<ReqKey, ReqClass, ReqKeyHash> classes_{&arena_};
  std::pmr::unordered_map<const Candidates*, LastReason> last_reason_{&arena_};
  std::array<MatchSlot, 256> recent_{};
};

}  // namespace lsf::sched
