// schmod_parallel: where a job's slots go. -n min[,max] takes as many slots as the
// hosts give, up to max, and starts with at least min; span[hosts=1] puts them all on
// one host; span[ptile=n] at most n per host ('!': one per processor); same[res] keeps
// every host's value of res equal. Hosts are taken in the rank order the hosts hook
// gave (best first).
#include <algorithm>
#include <map>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

class ParallelModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_parallel"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext&, const JobView&) const override { return false; }

  Allocation allocate(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& out) override {
    const config::Span* span = job.res_req && job.res_req->span ? &*job.res_req->span : nullptr;
    bool same = job.res_req && !job.res_req->same.empty();
    if (job.max_slots == 1 && !same) return sequential(ctx, job, cands, out);

    std::vector<std::pair<int, int>> rooms;  // host, slots it may give
    Cursor& cursor = cursors_[&cands];
    advance(ctx, cands, cursor);
    count_skipped(cursor, out);
    for (int h : cursor.open) {
      const char* why = nullptr;
      int r = ctx.room(job, h, &why);
      if (r <= 0) {
        out.refuse(why ? why : reason::kHostFull, h);
        continue;
      }
      if (span && span->ptile) r = std::min(r, *span->ptile);
      if (span && span->ptile_per_cpu) r = std::min(r, std::max(1, ctx.view.hosts[h].ncpus));
      rooms.emplace_back(h, r);
    }
    if (!same) return place(job, span, rooms, out);

    // same[]: try each group of hosts with equal values, the group of the best host first.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::pair<int, int>>> groups;
    for (const auto& [h, r] : rooms) {
      std::string key;
      for (const auto& res : job.res_req->same) {
        auto v = ctx.lookup(h)(res);
        if (auto* s = std::get_if<std::string>(&v)) key += *s;
        if (auto* d = std::get_if<double>(&v)) key += std::to_string(*d);
        key += '\x1f';
      }
      auto [it, fresh] = groups.try_emplace(key);
      if (fresh) order.push_back(key);
      it->second.emplace_back(h, r);
    }
    for (const auto& key : order) {
      Placement attempt;
      if (place(job, span, groups[key], attempt) == Allocation::kPlaced) {
        out.hosts = std::move(attempt.hosts);
        return Allocation::kPlaced;
      }
    }
    for (const auto& [h, r] : rooms) out.refuse(reason::kHostNotSame, h);
    return Allocation::kNoRoom;
  }

 private:
  // Hosts no job can use any more this pass (full, or running an exclusive job) stay
  // skipped for every later job of the host match: room only shrinks within a pass.
  // The skipped lists keep the match's rank order, as if each job had refused them.
  struct Cursor {
    bool started = false;
    size_t placed = 0;           // placements of the pass when last swept: hosts fill only by them
    std::vector<int> open;       // hosts that had a free slot when last looked at
    std::vector<int> rank;       // by host index: position in the match's order
    std::vector<int> full;       // hosts skipped for having no free slot
    std::vector<int> exclusive;  // hosts skipped for running an exclusive job
  };

  static void advance(const PassContext& ctx, const Candidates& cands, Cursor& cursor) {
    if (!cursor.started) {
      cursor.started = true;
      cursor.open = cands.hosts;
      cursor.rank.assign(ctx.view.hosts.size(), 0);
      for (size_t i = 0; i < cands.hosts.size(); ++i)
        cursor.rank[static_cast<size_t>(cands.hosts[i])] = static_cast<int>(i);
    } else if (cursor.placed == ctx.result.dispatches.size()) {
      return;
    }
    cursor.placed = ctx.result.dispatches.size();
    std::vector<int> full, exclusive;
    std::erase_if(cursor.open, [&](int h) {
      const HostState& hs = ctx.hosts[h];
      if (hs.free() > 0 && !hs.exclusive) return false;
      (hs.exclusive ? exclusive : full).push_back(h);
      return true;
    });
    auto merge = [&](std::vector<int>& into, const std::vector<int>& more) {
      if (more.empty()) return;
      size_t mid = into.size();
      into.insert(into.end(), more.begin(), more.end());
      std::inplace_merge(into.begin(), into.begin() + static_cast<std::ptrdiff_t>(mid), into.end(), [&](int a, int b) {
        return cursor.rank[static_cast<size_t>(a)] < cursor.rank[static_cast<size_t>(b)];
      });
    };
    merge(cursor.full, full);
    merge(cursor.exclusive, exclusive);
  }
  static void count_skipped(const Cursor& cursor, Placement& out) {
    if (!cursor.full.empty()) {
      out.why_not[reason::kHostFull] += static_cast<int>(cursor.full.size());
      out.skipped.emplace_back(reason::kHostFull, &cursor.full);
    }
    if (!cursor.exclusive.empty()) {
      out.why_not[reason::kHostExclusive] += static_cast<int>(cursor.exclusive.size());
      out.skipped.emplace_back(reason::kHostExclusive, &cursor.exclusive);
    }
  }

  Allocation sequential(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& out) {
    Cursor& cursor = cursors_[&cands];
    advance(ctx, cands, cursor);
    for (int h : cursor.open) {
      const char* why = nullptr;
      if (ctx.room(job, h, &why) > 0) {
        out.hosts.emplace_back(h, 1);
        return Allocation::kPlaced;
      }
      out.refuse(why ? why : reason::kHostFull, h);
    }
    count_skipped(cursor, out);
    return Allocation::kNoRoom;
  }

  static Allocation place(const JobView& job, const config::Span* span, const std::vector<std::pair<int, int>>& rooms,
                          Placement& out) {
    if (span && span->hosts && *span->hosts == 1) {
      for (const auto& [h, r] : rooms) {
        if (r >= job.min_slots) {
          out.hosts.emplace_back(h, std::min(r, job.max_slots));
          return Allocation::kPlaced;
        }
      }
      if (!rooms.empty()) out.reason = reason::kSpan;
      return Allocation::kNoRoom;
    }
    int need = job.max_slots;
    std::vector<std::pair<int, int>> take;
    for (const auto& [h, r] : rooms) {
      int n = std::min(r, need);
      take.emplace_back(h, n);
      need -= n;
      if (need == 0) break;
    }
    if (job.max_slots - need < job.min_slots) return Allocation::kNoRoom;
    out.hosts = std::move(take);
    return Allocation::kPlaced;
  }

  std::map<const Candidates*, Cursor> cursors_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_parallel() { return std::make_unique<ParallelModule>(); }

}  // namespace lsf::sched
