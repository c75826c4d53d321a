#include "libsched/sim/simulator.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>

#include "libsched/pass_apply.h"
#include "libsched/pass_carry.h"
#include "libsched/runtime_estimate.h"

namespace lsf::sched::sim {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// A started job's clock: it advances only while the job runs (preemption suspends it).
struct Live {
  size_t index = 0;              // into the trace
  std::int64_t end = kNever;     // when it ends if it keeps running
  std::int64_t remaining = 0;    // while suspended: how long it still has to run
  std::uint64_t generation = 0;  // finish events of older generations are stale
};

struct Finish {
  std::int64_t at;
  std::uint64_t generation;
  JobKey key;
  bool operator>(const Finish& o) const { return at != o.at ? at > o.at : key.id > o.key.id; }
};

class Simulation {
 public:
  Simulation(ClusterView cluster, const std::vector<Job>& jobs) : view_(std::move(cluster)), jobs_(jobs) {
    if (!view_.pending.empty() || !view_.running.empty())
      throw std::invalid_argument("simulate: the cluster view must start without jobs");
    // The hosts never change here: every pass may share one table of them.
    view_.accel.host_table = make_host_table(view_);
    view_.accel.host_table_checked = true;
    view_.accel.fixed_columns = std::make_shared<ResourceColumns>();
    view_.accel.carry = std::make_shared<PassCarry>();
    for (const auto& q : view_.policy->queues) fairshare_ |= q.fairshare != nullptr;
    view_.share_history = history_;
    for (size_t i = 1; i < jobs_.size(); ++i)
      if (jobs_[i].submit < jobs_[i - 1].submit) throw std::invalid_argument("simulate: jobs not sorted by submit");
    result_.jobs.reserve(jobs_.size());
    for (size_t i = 0; i < jobs_.size(); ++i) {
      Outcome o;
      o.id = jobs_[i].id;
      o.submit = jobs_[i].submit;
      o.procs = jobs_[i].procs;
      result_.jobs.push_back(std::move(o));
      by_id_[jobs_[i].id] = i;
    }
  }

  Result run(const Observer& observe, const std::function<void(double)>& progress) {
    size_t next = 0;
    size_t reported = 0;
    while (true) {
      std::int64_t now = kNever;
      if (next < jobs_.size()) now = jobs_[next].submit;
      drop_stale();
      if (!finishes_.empty()) now = std::min(now, finishes_.top().at);
      // mbatchd passes every MBD_SLEEP_TIME; here a pass also comes when a planned start
      // (RESERVATION_MODEL = PLAN) is due, for nothing else need happen then.
      now = std::min(now, next_plan_);
      if (now == kNever) break;  // nothing will happen again: what still pends never starts

      while (!finishes_.empty() && finishes_.top().at == now) {
        Finish f = finishes_.top();
        finishes_.pop();
        auto it = live_.find(f.key);
        if (it == live_.end() || it->second.generation != f.generation) continue;
        Outcome& o = result_.jobs[it->second.index];
        o.end = now;
        charge(jobs_[it->second.index], o);
        o.killed = jobs_[it->second.index].run_limit > 0 && now - o.start >= jobs_[it->second.index].run_limit &&
                   jobs_[it->second.index].runtime > jobs_[it->second.index].run_limit;
        runtimes_.finished(jobs_[it->second.index].user, o.end - o.start);
        live_.erase(it);
        std::erase_if(view_.running, [&](const RunningJobView& r) { return r.key == f.key; });
      }
      while (next < jobs_.size() && jobs_[next].submit == now) view_.pending.push_back(pending(jobs_[next++]));
      if (progress && next - reported >= 1000) {
        reported = next;
        progress(static_cast<double>(next) / static_cast<double>(jobs_.size()));
      }

      if (fairshare_) count_cpu(now);
      PassResult pass = schedule(view_, now);
      ++result_.passes;
      apply_pass(pass, now);
      if (observe) observe(now, view_, pass);
    }
    if (progress) progress(1.0);
    return std::move(result_);
  }

 private:
  JobView pending(const Job& job) const {
    JobView v;
    v.key = {job.id, 0};
    v.queue = job.queue;
    v.order = job.id;
    v.user = job.user;
    v.project = job.project;
    v.sla = job.sla;
    v.min_slots = v.max_slots = std::max(1, job.procs);
    v.run_limit_s = job.run_limit;
    // RUNTIME_ESTIMATE = PREDICT: predicted when submitted, from the jobs ended before.
    if (view_.policy->queues[static_cast<size_t>(job.queue)].predict)
      v.estimate_s = predicted_estimate(runtimes_, job.user, job.run_limit);
    v.idle_since = job.submit;  // eligible from submission (APS queue time)
    return v;
  }

  void drop_stale() {
    while (!finishes_.empty()) {
      const Finish& f = finishes_.top();
      auto it = live_.find(f.key);
      if (it != live_.end() && it->second.generation == f.generation) return;
      finishes_.pop();
    }
  }

  void schedule_finish(const JobKey& key, Live& live, std::int64_t end) {
    live.end = end;
    ++live.generation;
    finishes_.push({end, live.generation, key});
  }

  // The pass's decisions as mbatchd applies them (pass_apply.h), with this simulation's
  // clocks: a started job's end is scheduled, a suspended one's stops, a resumed one's
  // goes on.
  void apply_pass(const PassResult& pass, std::int64_t now) {
    ViewHooks hooks;
    hooks.started = [&](const Dispatch& d, RunningJobView&) {
      size_t index = by_id_.at(d.job.id);
      const Job& job = jobs_[index];
      Outcome& o = result_.jobs[index];
      o.start = now;
      o.first_host = d.hosts.empty() ? "" : d.hosts.front();
      o.slots = static_cast<int>(d.hosts.size());
      std::int64_t runs = job.run_limit > 0 ? std::min(job.runtime, job.run_limit) : job.runtime;
      Live& live = live_[d.job];
      live.index = index;
      schedule_finish(d.job, live, now + std::max<std::int64_t>(0, runs));
    };
    hooks.suspended = [&](RunningJobView& r) {
      Live& live = live_.at(r.key);
      live.remaining = live.end - now;
      ++live.generation;  // its finish waits for the resume
    };
    hooks.resumed = [&](RunningJobView& r) {
      Live& live = live_.at(r.key);
      schedule_finish(r.key, live, now + live.remaining);
    };
    apply(view_, pass, now, hooks);
    // mbatchd passes every MBD_SLEEP_TIME; here a pass also comes when a planned start
    // is due.
    next_plan_ = kNever;
    for (const auto& r : pass.reservations)
      if (r.hosts.empty() && r.estimated_start > now) next_plan_ = std::min(next_plan_, r.estimated_start);
  }

  // Fairshare: a finished job's use goes to the history of its queue. Jobs are taken to
  // use their slots' CPU all the time they run (traces rarely say otherwise).
  void charge(const Job& job, const Outcome& o) {
    double slot_s = static_cast<double>(o.end - o.start) * static_cast<double>(o.slots);
    charge_finished(*history_, view_.policy->queues[static_cast<size_t>(job.queue)], job.user, "", {slot_s, slot_s},
                    o.end);
  }
  void count_cpu(std::int64_t now) {
    for (auto& r : view_.running)
      if (r.state == RunState::kRun)
        r.cpu_s = static_cast<double>(now - r.start_time) * static_cast<double>(r.hosts.size());
  }

  ClusterView view_;
  const std::vector<Job>& jobs_;
  bool fairshare_ = false;  // some queue has FAIRSHARE
  std::int64_t next_plan_ = kNever;
  std::shared_ptr<ShareHistory> history_ = std::make_shared<ShareHistory>();
  RuntimeHistory runtimes_;  // users' finished runtimes (RUNTIME_ESTIMATE = PREDICT)
  Result result_;
  std::map<std::int64_t, size_t> by_id_;
  std::map<JobKey, Live> live_;
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> finishes_;
};

}  // namespace

Result simulate(ClusterView cluster, const std::vector<Job>& jobs, const Observer& observe,
                const std::function<void(double)>& progress) {
  return Simulation(std::move(cluster), jobs).run(observe, progress);
}

}  // namespace lsf::sched::sim
