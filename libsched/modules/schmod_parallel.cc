// schmod_parallel: where a job's slots go. -n min[,max] takes as many slots as the
// hosts give, up to max, and starts with at least min; span[hosts=1] puts them all on
// one host; span[ptile=n] at most n per host ('!': one per processor); same[res] keeps
// every host's value of res equal, and a provider that refuses jobs spanning clusters
// (RECV_FROM=N) gets all of a job or none of it. Hosts are taken in the rank order the
// hosts hook gave (best first).
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
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  Allocation allocate(PassContext& ctx, const JobView& job, const Candidates& cands, Placement& out) override {
    const config::Span* span = job.res_req && job.res_req->span ? &*job.res_req->span : nullptr;
    bool same = job.res_req && !job.res_req->same.empty();
    if (job.max_slots == 1 && !same) return sequential(ctx, job, cands, out);

    std::vector<std::pair<int, int>> rooms;  // host, slots it may give
    Cursor& cursor = cursor_of(cands);
    walk(ctx, cursor, [&](int h) {
      const char* why = nullptr;
      int r = ctx.room(job, h, &why);
      if (r <= 0) {
        out.refuse(why ? why : reason::kHostFull, h);
        return false;
      }
      if (span && span->ptile) r = std::min(r, *span->ptile);
      if (span && span->ptile_per_cpu) r = std::min(r, std::max(1, ctx.view.hosts[h].ncpus));
      rooms.emplace_back(h, r);
      return false;
    });
    count_skipped(cursor, out);
    // A provider that does not run jobs spanning clusters has its hosts in a group of
    // their own, as if they had a same[] value of their own.
    bool apart = false;
    for (const auto& [h, r] : rooms) apart = apart || !ctx.view.hosts[h].spans_clusters;
    if (!same && !apart) return place(job, span, rooms, out);

    // Try each group of hosts with equal values, the group of the best host first.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::pair<int, int>>> groups;
    static const std::vector<std::string> kNoSame;
    const std::vector<std::string>& same_res = same ? job.res_req->same : kNoSame;  // not a copy per host
    SelectReader values(ctx);
    for (const auto& [h, r] : rooms) {
      std::string key;
      if (!ctx.view.hosts[h].spans_clusters) key = ctx.view.hosts[h].cluster + '\x1e';
      for (const auto& res : same_res) {
        const config::SelectValue v = values.at(h).value(res);
        if (v.kind == config::SelectValue::Kind::kText) key += v.text;
        if (v.kind == config::SelectValue::Kind::kNumber) key += std::to_string(v.number);
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
    if (!same) {
      Placement together;
      if (place(job, span, rooms, together) == Allocation::kPlaced) out.reason = reason::kOneCluster;
      return Allocation::kNoRoom;
    }
    for (const auto& [h, r] : rooms) out.refuse(reason::kHostNotSame, h);
    return Allocation::kNoRoom;
  }

 private:
  // Hosts no job can use any more this pass (full, or running an exclusive job) stay
  // skipped for every later job of the host match: room only shrinks within a pass.
  // A host leaves the open list the first time a job walks past it full, so a walk
  // costs what is still open. The skipped lists are in the order hosts filled, not
  // rank order: a pending reason's hosts are put in order when they are shown.
  struct Cursor {
    std::vector<int> open;       // hosts that had a free slot when last walked past
    std::vector<int> full;       // hosts skipped for having no free slot
    std::vector<int> exclusive;  // hosts skipped for running an exclusive job
  };

  // Calls visit(h) for each host still open, best first, moving those found full to
  // their lists as it passes them; stops after a visit that returns true.
  template <class Visit>
  static void walk(const PassContext& ctx, Cursor& c, Visit visit) {
    size_t keep = 0, i = 0;
    for (; i < c.open.size(); ++i) {
      int h = c.open[i];
      const HostState& hs = ctx.hosts[h];
      if (hs.free() <= 0 || hs.exclusive) {
        (hs.exclusive ? c.exclusive : c.full).push_back(h);
        continue;
      }
      c.open[keep++] = h;
      if (visit(h)) {
        ++i;
        break;
      }
    }
    c.open.erase(c.open.begin() + static_cast<std::ptrdiff_t>(keep), c.open.begin() + static_cast<std::ptrdiff_t>(i));
  }

  Cursor& cursor_of(const Candidates& cands) {
    auto [it, fresh] = cursors_.try_emplace(&cands);
    if (fresh) it->second.open = cands.hosts;
    return it->second;
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
    Cursor& cursor = cursor_of(cands);
    walk(ctx, cursor, [&](int h) {
      const char* why = nullptr;
      if (ctx.room(job, h, &why) > 0) {
        out.hosts.emplace_back(h, 1);
        return true;
      }
      out.refuse(why ? why : reason::kHostFull, h);
      return false;
    });
    if (!out.hosts.empty()) return Allocation::kPlaced;
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
// In lsb.modules' order, when lsb.modules names it.
constinit const ModuleDecl kSchmodParallel{"schmod_parallel", Phase::kConfigured, {}, make_schmod_parallel};

}  // namespace lsf::sched
