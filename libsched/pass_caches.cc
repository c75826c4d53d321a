#include "libsched/pass_caches.h"

#include <algorithm>

#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

// Lists found equal by hash are compared whole, so a sample of the hosts will do:
// hashing every host would be 800,000 steps a pass for 160 lists of 5,000.
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

}  // namespace

PassCaches::PassCaches() = default;

Match& PassCaches::find_or_make(const MatchKey& key, bool& fresh) {
  auto [it, made] = matches_.try_emplace(key);
  fresh = made;
  return it->second;
}

void PassCaches::share(Match& match, Candidates&& made) {
  const size_t hash = hash_of(made);
  auto [same, end] = lists_by_hash_.equal_range(hash);
  for (; same != end && !match.list; ++same)
    if (same->second->cands.hosts == made.hosts && same->second->cands.excluded == made.excluded)
      match.list = same->second;
  if (!match.list) {
    match.list = &lists_.emplace_back(HostList{std::move(made), 0});
    lists_by_hash_.emplace(hash, match.list);
  }
}

// Jobs of one host match usually fail for the same reasons on the same hosts: the text
// is composed once.
ReqClass PassCaches::composed(PassContext& ctx, const Candidates& cands, const Placement& placement) {
  LastReason& last = last_reason_[&cands];
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
  return {last.text, last.hosts};
}

}  // namespace lsf::sched
