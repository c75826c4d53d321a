#include "libsched/pass.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

// Free slots of a host for the rest of this pass; -1 slots means unlimited.
struct HostRoom {
  int free = 0;  // INT_MAX-like when unlimited
  bool exclusive_taken = false;
  bool busy = false;  // something runs or was placed here (for exclusive jobs)
};

constexpr int kUnlimited = 1 << 30;

bool host_allowed(const std::vector<std::string>& list, const std::string& host) {
  return list.empty() || std::find(list.begin(), list.end(), host) != list.end();
}

class Pass {
 public:
  Pass(const ClusterView& view, std::int64_t now) : view_(view), now_(now) {
    room_.resize(view.hosts.size());
    for (size_t h = 0; h < view.hosts.size(); ++h) {
      const auto& host = view.hosts[h];
      room_[h].free = host.max_slots < 0 ? kUnlimited : std::max(0, host.max_slots - host.used_slots);
      room_[h].exclusive_taken = host.running_exclusive;
      room_[h].busy = host.used_slots > 0;
    }
    used_here_.assign(view.hosts.size(), 0);
    array_running_ = view.array_running;
    queue_used_.resize(view.queues.size());
    for (size_t q = 0; q < view.queues.size(); ++q) queue_used_[q] = view.queues[q].used_slots;
  }

  PassResult run() {
    // Queue priority first (higher first, configuration order on ties), then FCFS.
    std::vector<size_t> order(view_.pending.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto& ja = view_.pending[a];
      const auto& jb = view_.pending[b];
      int pa = view_.queues[ja.queue].priority, pb = view_.queues[jb.queue].priority;
      if (pa != pb) return pa > pb;
      if (ja.queue != jb.queue) return ja.queue < jb.queue;
      return ja.order < jb.order;
    });
    for (size_t i : order) consider(view_.pending[i]);
    return std::move(result_);
  }

 private:
  void pend(const JobView& job, std::string text) { result_.reasons.push_back({job.key, std::move(text)}); }

  void consider(const JobView& job) {
    const QueueView& queue = view_.queues[job.queue];
    if (job.held) return pend(job, reason::kHeld);
    if (job.begin_time > now_) return pend(job, reason::kBeginTime);
    if (job.dependency == DependencyState::kWaiting) return pend(job, reason::kDependency);
    if (job.dependency == DependencyState::kNever) return pend(job, reason::kDependencyNever);
    if (!queue.dispatching) return pend(job, queue.inactive_reason.empty() ? reason::kQueueInactive : queue.inactive_reason);
    if (queue.qjob_limit >= 0 && queue_used_[job.queue] + job.slots > queue.qjob_limit)
      return pend(job, reason::kQueueSlotLimit);
    if (job.array_limit > 0 && array_running_[job.key.id] >= job.array_limit) return pend(job, reason::kArrayLimit);
    ++result_.stats.jobs_considered;

    // Hosts that could take part of this job, each with why not when it cannot.
    std::map<std::string, int> why_not;
    std::vector<size_t> candidates;
    for (size_t h = 0; h < view_.hosts.size(); ++h) {
      const HostView& host = view_.hosts[h];
      const char* no = nullptr;
      if (host.status == "unreach")
        no = reason::kHostUnreach;
      else if (host.status == "unavail")
        no = reason::kHostUnavail;
      else if (host.status == "closed_Adm")
        no = reason::kHostClosedAdm;
      else if (!host_allowed(queue.hosts, host.name))
        no = reason::kHostNotInQueue;
      else if (!host_allowed(job.asked_hosts, host.name))
        no = reason::kHostNotAsked;
      else if (job.res_req && !job.res_req->select.empty() && !job.res_req->select.matches(lookup(host)))
        no = reason::kHostSelect;
      else if (room_[h].exclusive_taken)
        no = reason::kHostExclusive;
      else if (job.exclusive && room_[h].busy)
        no = reason::kHostFull;
      else if (room_[h].free <= 0)
        no = reason::kHostFull;
      if (no) {
        ++why_not[no];
        continue;
      }
      candidates.push_back(h);
    }

    // Emptier hosts first, then by name: spreads work and stays deterministic.
    std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
      return view_.hosts[a].used_slots + used_here_[a] < view_.hosts[b].used_slots + used_here_[b];
    });

    int ptile = kUnlimited;
    bool one_host = false;
    if (job.res_req && job.res_req->span) {
      if (job.res_req->span->ptile) ptile = *job.res_req->span->ptile;
      one_host = job.res_req->span->hosts == 1;
    }

    std::vector<std::pair<size_t, int>> take;
    int need = job.slots;
    for (size_t h : candidates) {
      int n = std::min({room_[h].free, ptile, need});
      if (one_host && n < job.slots) continue;
      take.emplace_back(h, n);
      need -= n;
      if (need == 0) break;
    }
    if (need > 0) {
      if (one_host && !candidates.empty()) return pend(job, reason::kSpan);
      if (why_not.empty()) {
        why_not[reason::kHostFull] += static_cast<int>(candidates.size());
      }
      return pend(job, host_reasons(why_not));
    }

    Dispatch d{job.key, {}};
    for (auto [h, n] : take) {
      for (int i = 0; i < n; ++i) d.hosts.push_back(view_.hosts[h].name);
      if (room_[h].free != kUnlimited) room_[h].free -= n;
      room_[h].busy = true;
      used_here_[h] += n;
      if (job.exclusive) room_[h].exclusive_taken = true;
    }
    queue_used_[job.queue] += job.slots;
    if (job.array_limit > 0) ++array_running_[job.key.id];
    result_.dispatches.push_back(std::move(d));
    ++result_.stats.dispatched;
  }

  static std::string host_reasons(const std::map<std::string, int>& why_not) {
    // LSF lists each host-level reason with its count; the most common first.
    std::vector<std::pair<std::string, int>> items(why_not.begin(), why_not.end());
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [text, n] : items) {
      if (!out.empty()) out += "; ";
      out += text + ": " + std::to_string(n) + (n == 1 ? " host" : " hosts");
    }
    return out.empty() ? reason::kResReq : out;
  }

  static config::ResourceLookup lookup(const HostView& host) {
    return [&host](std::string_view name) -> config::ResourceValue {
      auto it = host.resources.find(name);
      if (it == host.resources.end()) return std::monostate{};
      return it->second;
    };
  }

  const ClusterView& view_;
  std::int64_t now_;
  std::vector<HostRoom> room_;
  std::vector<int> queue_used_;
  std::map<std::int64_t, int> array_running_;
  std::vector<int> used_here_;
  PassResult result_;
};

}  // namespace

PassResult schedule(const ClusterView& view, std::int64_t now) { return Pass(view, now).run(); }

}  // namespace lsf::sched
