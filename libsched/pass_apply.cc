#include "libsched/pass_apply.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <utility>

#include "libsched/pending_reason.h"

namespace lsf::sched {

namespace {

// The rule, with the reservations apart: the view's apply() reads them from a result
// it may not change.
void apply_rule(const PassResult& result, std::vector<Reservation>& reservations, const ApplyTarget& target) {
  for (const auto& d : result.dispatches) {
    if (!target.start(d)) continue;
    if (!target.dispatched) continue;
    // Hosts come one entry per slot, grouped by host: each is told once.
    for (size_t i = 0; i < d.hosts.size(); ++i)
      if (i == 0 || d.hosts[i] != d.hosts[i - 1]) target.dispatched(d.hosts[i]);
  }
  target.reservations(reservations);
  for (const auto& s : result.suspends) {
    auto job = target.find(s.job);
    if (!job || job->state != RunState::kRun) continue;  // ended or stopped meanwhile
    target.suspend(s);
    if (s.cause == SuspendCause::kLoad && !job->first_host.empty() && target.load_action)
      target.load_action(job->first_host);
  }
  for (const auto& r : result.resumes) {
    auto job = target.find(r.job);
    if (!job || job->state != RunState::kSsusp) continue;
    target.resume(r);
    const bool load_action = job->cause == SuspendCause::kLoad || job->cause == SuspendCause::kUser;
    if (load_action && !job->first_host.empty() && target.load_action) target.load_action(job->first_host);
  }
  if (target.pending)
    for (const auto& r : result.reasons) target.pending(r);
}

}  // namespace

void apply(PassResult& result, const ApplyTarget& target) { apply_rule(result, result.reservations, target); }

SuspendCause suspend_cause_of(bool system_suspended, std::string_view reason) {
  if (!system_suspended) return SuspendCause::kNone;
  if (reason == reason::kSuspPreempted) return SuspendCause::kPreempted;
  if (reason == reason::kSuspWindow) return SuspendCause::kWindow;
  if (reason == reason::kSuspStopCond || reason.starts_with(reason::kSuspLoad)) return SuspendCause::kLoad;
  return SuspendCause::kUser;  // resumed by its owner, waiting for the system
}

void carry_pending_mark(PendingMark& mark, const PendingReason& r, std::int64_t now) {
  if (r.blocked)
    mark.idle_since = -1;
  else if (mark.idle_since < 0)
    mark.idle_since = now;  // eligible again: queue time starts anew
  mark.bypass_count += r.bypassed;
}

namespace {

// The view as an ApplyTarget. Started jobs stay in `pending` until finish(), so that
// the reasons' positions (PendingReason::view_index) still name them.
class ViewTarget {
 public:
  ViewTarget(ClusterView& view, const PassResult& result, std::int64_t now, const ViewHooks& hooks)
      : view_(view), result_(result), now_(now), hooks_(hooks) {}

  ApplyTarget target() {
    ApplyTarget t;
    t.start = [this](const Dispatch& d) { return start(d); };
    t.dispatched = [this](const std::string& host) {
      if (HostView* h = host_named(host)) h->last_dispatch = now_;
    };
    t.reservations = [this](std::vector<Reservation>&) { reserve(result_.reservations); };
    t.find = [this](const JobKey& key) -> std::optional<StartedJob> {
      const RunningJobView* r = running(key);
      if (!r) return std::nullopt;
      return StartedJob{r->state, r->state == RunState::kSsusp ? r->cause : SuspendCause::kNone,
                        r->hosts.empty() ? std::string() : r->hosts.front()};
    };
    t.suspend = [this](const Suspend& s) {
      RunningJobView* r = running(s.job);
      r->state = RunState::kSsusp;
      r->cause = s.cause;
      if (hooks_.suspended) hooks_.suspended(*r);
    };
    t.resume = [this](const Resume& s) {
      RunningJobView* r = running(s.job);
      r->state = RunState::kRun;
      r->cause = SuspendCause::kNone;
      if (hooks_.resumed) hooks_.resumed(*r);
    };
    t.load_action = [this](const std::string& host) {
      if (HostView* h = host_named(host)) h->last_load_action = now_;
    };
    t.pending = [this](const PendingReason& r) {
      if (JobView* j = pending(r)) {
        PendingMark mark{j->idle_since, j->bypass_count};
        carry_pending_mark(mark, r, now_);
        j->idle_since = mark.idle_since;
        j->bypass_count = mark.bypass_count;
      }
    };
    return t;
  }

  // The started jobs leave `pending`.
  void finish() {
    if (started_.empty()) return;
    std::sort(started_.begin(), started_.end());
    size_t out = 0;
    for (size_t i = 0; i < view_.pending.size(); ++i)
      if (!std::binary_search(started_.begin(), started_.end(), i)) {
        if (out != i) view_.pending[out] = std::move(view_.pending[i]);
        ++out;
      }
    view_.pending.erase(view_.pending.begin() + static_cast<std::ptrdiff_t>(out), view_.pending.end());
  }

 private:
  bool start(const Dispatch& d) {
    const size_t at = pending_at(d.job);
    if (at == view_.pending.size()) return false;
    view_.running.push_back(started(view_.pending[at], d.hosts, now_));
    RunningJobView& run = view_.running.back();
    if (!d.gpus.empty()) run.gpus = std::make_shared<const GpuAllocation>(d.gpus);
    if (view_.accel.host_table) {
      // The pass's host indexes are the view's; a host named twice in a placement
      // counts once, as host_slots() would count it.
      std::vector<std::pair<int, int>> slots;
      for (auto [h, n] : d.slots) {
        // An init-capture: clang 14 cannot capture a structured binding.
        auto same = std::find_if(slots.begin(), slots.end(), [host = h](const auto& e) { return e.first == host; });
        if (same == slots.end())
          slots.emplace_back(h, n);
        else
          same->second += n;
      }
      run.accel.table = view_.accel.host_table;
      run.accel.slots = std::make_shared<const std::vector<std::pair<int, int>>>(std::move(slots));
    }
    started_.push_back(at);
    if (hooks_.started) hooks_.started(d, run);
    return true;
  }

  // The position of a pending job in the view; pending.size(): none. A pass starts a
  // few jobs among many pending: an index is made only when it starts several.
  size_t pending_at(const JobKey& key) {
    constexpr int kScanned = 4;
    if (++lookups_ <= kScanned) {
      auto it =
          std::find_if(view_.pending.begin(), view_.pending.end(), [&](const JobView& j) { return j.key == key; });
      return static_cast<size_t>(it - view_.pending.begin());
    }
    if (by_key_.empty() && !view_.pending.empty()) {
      by_key_.reserve(view_.pending.size());
      for (size_t i = 0; i < view_.pending.size(); ++i) by_key_.emplace_back(view_.pending[i].key, i);
      std::stable_sort(by_key_.begin(), by_key_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    auto it = std::lower_bound(by_key_.begin(), by_key_.end(), key,
                               [](const auto& e, const JobKey& k) { return e.first < k; });
    return it != by_key_.end() && it->first == key ? it->second : view_.pending.size();
  }

  void reserve(const std::vector<Reservation>& held_list) {
    // Under conservative backfill nearly every pending job holds one: a sorted vector,
    // not a map node per reservation per pass.
    std::vector<std::pair<JobKey, const Reservation*>> held;
    held.reserve(held_list.size());
    for (const auto& r : held_list) held.emplace_back(r.job, &r);
    std::stable_sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& j : view_.pending) {
      // The last of a job's reservations, should a pass make two.
      auto it =
          std::upper_bound(held.begin(), held.end(), j.key, [](const JobKey& k, const auto& e) { return k < e.first; });
      bool has = it != held.begin() && std::prev(it)->first == j.key;
      carry_reservation(j, has ? std::prev(it)->second : nullptr);
    }
  }

  RunningJobView* running(const JobKey& key) {
    for (auto& r : view_.running)
      if (r.key == key) return &r;
    return nullptr;
  }

  JobView* pending(const PendingReason& r) {
    const int v = r.view_index;
    if (v >= 0 && static_cast<size_t>(v) < view_.pending.size() && view_.pending[static_cast<size_t>(v)].key == r.job)
      return &view_.pending[static_cast<size_t>(v)];
    for (auto& j : view_.pending)
      if (j.key == r.job) return &j;
    return nullptr;
  }

  HostView* host_named(const std::string& name) {
    // A table made for exactly these hosts names their places; otherwise one map per
    // apply.
    if (view_.accel.host_table && view_.accel.host_table_checked) {
      const int h = view_.accel.host_table->find(name);
      return h < 0 ? nullptr : &view_.hosts[static_cast<size_t>(h)];
    }
    if (hosts_.empty())
      for (size_t i = 0; i < view_.hosts.size(); ++i) hosts_.emplace(view_.hosts[i].name, i);
    auto it = hosts_.find(name);
    return it == hosts_.end() ? nullptr : &view_.hosts[it->second];
  }

  ClusterView& view_;
  const PassResult& result_;
  const std::int64_t now_;
  const ViewHooks& hooks_;
  std::vector<size_t> started_;  // positions in `pending` of the jobs started
  int lookups_ = 0;
  std::vector<std::pair<JobKey, size_t>> by_key_;
  std::unordered_map<std::string, size_t> hosts_;
};

}  // namespace

void apply(ClusterView& view, const PassResult& result, std::int64_t now, const ViewHooks& hooks) {
  ViewTarget target(view, result, now, hooks);
  std::vector<Reservation> unused;  // the view reads the result's own
  apply_rule(result, unused, target.target());
  target.finish();
}

}  // namespace lsf::sched
