// schmod_default: the conditions every LSF job meets before it can run, and which host
// is best for it. A job waits for its begin time, dependencies and its queue's windows;
// a host must be usable (status, the queue's HOSTS, -m, select[], load under the host's
// and the queue's scheduling thresholds, dispatch window open), have a free slot, and
// not have just received a job (JOB_ACCEPT_INTERVAL). Eligible hosts are ranked by
// preference level (the job's -m, else its queue's HOSTS), then order[] (default r15s:pg).
//
// It also decides for started jobs: run windows closing suspend their queue's jobs and
// opening resumes them; a load index past a stop threshold suspends the host's
// lowest-priority job, one host action per SBD_SLEEP_TIME.
#include <algorithm>
#include <cmath>
#include <span>

#include "libsched/modules/host_matching.h"
#include "libsched/modules/modules.h"
#include "libsched/pass_carry.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

std::string index_description(const std::string& index) {
  static const std::map<std::string, std::string, std::less<>> kNames = {{"r15s", "15-second CPU run queue length"},
                                                                         {"r1m", "1-minute CPU run queue length"},
                                                                         {"r15m", "15-minute CPU run queue length"},
                                                                         {"ut", "CPU utilization"},
                                                                         {"pg", "Paging rate"},
                                                                         {"io", "Disk IO rate"},
                                                                         {"ls", "Number of login sessions"},
                                                                         {"it", "Idle time"},
                                                                         {"tmp", "Available temporary space"},
                                                                         {"swp", "Available swap space"},
                                                                         {"mem", "Available memory"}};
  auto it = kNames.find(index);
  return (it == kNames.end() ? index : it->second) + " (" + index + ")";
}

class DefaultModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_default"; }
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  void prepare(PassContext& ctx) override {
    // A caller that keeps what passes work out has the host matching carried over.
    if (ctx.view.accel.carry) matching_ = &ctx.view.accel.carry->part<HostMatching>(name());
    matching_->start(ctx, ctx.view.accel.carry != nullptr);
    array_running_ = ctx.view.array_running;
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      const bool preempted = job.state == RunState::kSsusp && job.cause == SuspendCause::kPreempted;
      for (auto [h, n] : ctx.slots_of(i)) {
        HostState& hs = ctx.hosts[h];
        hs.used += n;
        if (preempted) hs.preempted += n;
        ++hs.jobs;
        if (job.exclusive) hs.exclusive = true;
      }
    }
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    if (job.held) return reason::kHeld;
    if (job.begin_time > ctx.now) return reason::kBeginTime;
    if (job.retry_at > ctx.now) return reason::kPreExecFailed;
    if (job.dependency == DependencyState::kWaiting) return reason::kDependency;
    if (job.dependency == DependencyState::kNever) return reason::kDependencyNever;
    const QueuePolicy& q = ctx.queue_of(job);
    if (!ctx.view.queues[job.queue].active) return reason::kQueueInactive;
    if (window_closed(ctx, job.queue)) return reason::kQueueWindow;
    if (job.exclusive && !q.exclusive) return reason::kNotExclusiveQueue;
    if (job.array_limit > 0) {
      int running = array_running_[job.key.id];
      if (running >= job.array_limit)
        return std::string(reason::kArrayLimit) + " (" + std::to_string(running) + " of " +
               std::to_string(job.array_limit) + " running)";
    }
    return std::nullopt;
  }

  // Hosts are taken in rank order (-m preference, then order[]), so the candidates come
  // out ranked (host_matching.h).
  void hosts(PassContext& ctx, const JobView& job, Candidates& cands) override {
    matching_->candidates(ctx, job, cands);
  }
  bool replaces_hosts() const override { return true; }

  int room(const PassContext& ctx, const JobView& job, int h, const char** why) override {
    const char* no = refusal(ctx, job, h);
    if (!no && matching_->placed_rusage(h)) no = load_now(ctx, job, h);
    if (no) {
      *why = no;
      return 0;
    }
    return ctx.hosts[h].free();
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    // What the job holds per slot (rusage[]) lowers the host's values from here on:
    // host matching's facts (thresholds, select[]) are those of the pass's start and may
    // no longer hold, so later jobs check them again there (load_now).
    if (!ctx.demand(job.res_req.get()).per_slot.empty()) matching_->placing(ctx, p);
    for (auto [h, n] : p.hosts) {
      auto& hs = ctx.hosts[h];
      hs.used += n;
      ++hs.jobs;
      hs.accepted = true;
      if (job.exclusive) hs.exclusive = true;
    }
    if (job.array_limit > 0) ++array_running_[job.key.id];
  }

  void finish(PassContext& ctx) override {
    control_running(ctx);
    matching_->finish();
  }

 private:
  // Why a host can take no slot of the job now, or nullptr.
  static const char* refusal(const PassContext& ctx, const JobView& job, int h) {
    const HostState& hs = ctx.hosts[h];
    if (hs.exclusive) return reason::kHostExclusive;
    if (job.exclusive && hs.jobs > 0) return reason::kExclusive;
    int interval = ctx.queue_of(job).job_accept_interval.value_or(ctx.policy.job_accept_interval);
    if (interval > 0) {
      std::int64_t last = ctx.view.hosts[h].last_dispatch;
      if (hs.accepted || (last > 0 && ctx.now < last + std::int64_t{interval} * ctx.policy.mbd_sleep_time))
        return reason::kHostJustStarted;
    }
    if (hs.free() <= 0) return reason::kHostFull;
    return nullptr;
  }

  // Why a host on which this pass has reserved rusage[] no longer takes the job: its
  // loadSched thresholds or the job's select[], read with what is reserved now. Host
  // matching read them as the host was when the pass began.
  const char* load_now(const PassContext& ctx, const JobView& job, int h) {
    if (over_sched(ctx, h, ctx.host_policy(h).thresholds) || over_sched(ctx, h, ctx.queue_of(job).thresholds))
      return reason::kHostLoad;
    if (job.res_req && !job.res_req->select.empty() && !job.res_req->select.matches(reader(ctx).at(h)))
      return reason::kHostSelect;
    return nullptr;
  }

  SelectReader& reader(const PassContext& ctx) {
    if (!reader_) reader_.emplace(ctx);
    return *reader_;
  }

  bool window_closed(const PassContext& ctx, int queue) {
    if (closed_.empty()) {
      for (const auto& q : ctx.policy.queues)
        closed_.push_back(!q.run_window.is_open(ctx.view.week) || !q.dispatch_window.is_open(ctx.view.week));
    }
    return closed_[queue];
  }

  // Thresholds as read for every host: each index's column and direction found once
  // per threshold set and pass, not per host (loadSched for every host a queue may use,
  // loadStop for every host running jobs).
  struct IndexLimit {
    const std::string* index;
    const std::vector<double>* column;
    double limit;
    bool larger_better;
  };
  struct CompiledThresholds {
    std::vector<IndexLimit> sched, stop;
  };
  const CompiledThresholds& compiled(const PassContext& ctx, const config::Thresholds& t) {
    // Host after host asks about the same thresholds: the last set is kept at hand
    // rather than found in the map each time.
    if (&t != last_thresholds_) {
      auto [it, fresh] = compiled_.try_emplace(&t);
      if (fresh)
        for (const auto& [index, th] : t) {
          IndexLimit l{&index, &ctx.column(index), 0, config::larger_is_better(index)};
          if (th.sched) {
            l.limit = *th.sched;
            it->second.sched.push_back(l);
          }
          if (th.stop) {
            l.limit = *th.stop;
            it->second.stop.push_back(l);
          }
        }
      last_thresholds_ = &t;
      last_compiled_ = &it->second;
    }
    return *last_compiled_;
  }
  // A host's value of an index: as reported, less what is reserved there.
  static double value(const PassContext& ctx, int h, const std::string& index, const std::vector<double>& column) {
    return ctx.hosts[h].reserved.empty() ? column[h] : ctx.numeric(h, index);
  }
  static const IndexLimit* first_over(const PassContext& ctx, int h, const std::vector<IndexLimit>& limits,
                                      bool skip_pg) {
    for (const IndexLimit& l : limits) {
      if (skip_pg && *l.index == "pg") continue;
      double v = value(ctx, h, *l.index, *l.column);
      if (!std::isnan(v) && (l.larger_better ? v < l.limit : v > l.limit)) return &l;
    }
    return nullptr;
  }
  bool over_sched(const PassContext& ctx, int h, const config::Thresholds& t) {
    return !t.empty() && first_over(ctx, h, compiled(ctx, t).sched, false);
  }
  // The first stop threshold a host's load passes, or empty.
  std::string over_stop(const PassContext& ctx, int h, const config::Thresholds& t, bool skip_pg) {
    const IndexLimit* l = t.empty() ? nullptr : first_over(ctx, h, compiled(ctx, t).stop, skip_pg);
    return l ? *l->index : std::string();
  }

  // Run windows: a closed one suspends its queue's running jobs, an open one resumes
  // those it suspended. Then load-based suspension and resumption, per host, one
  // action per SBD_SLEEP_TIME: at most one job suspended, else at most one resumed.
  void control_running(PassContext& ctx) {
    RunningSurvey survey = survey_running(ctx);
    if (!survey.can_act) return;
    const std::vector<LoadLook> look = hosts_to_look_at(ctx, survey);
    if (look.empty()) return;
    const std::vector<const RunningJobView*> by_host = jobs_by_host(ctx, survey.begin);
    for (const LoadLook& l : look) {
      const auto h = static_cast<size_t>(l.host);
      std::span<const RunningJobView* const> jobs(by_host.data() + survey.begin[h],
                                                  by_host.data() + survey.begin[h + 1]);
      if (!suspend_for_load(ctx, l, jobs, survey.queue_stops)) resume_after_load(ctx, l.host, jobs);
    }
  }

  // What the started jobs could lead to, host by host, from one walk over them in view
  // order (by first execution host). The same walk emits the run windows' actions.
  struct RunningSurvey {
    enum : unsigned char { kRuns = 1, kQueueStops = 2, kWaits = 4 };
    std::vector<char> queue_stops;   // per queue: it has a stop threshold or STOP_COND
    std::vector<unsigned char> has;  // per host: kRuns | kQueueStops | kWaits
    std::vector<size_t> begin;       // per host, plus one: the count of jobs whose first host it is
    bool can_act = false;            // some stop threshold, STOP_COND or job to resume exists
  };
  RunningSurvey survey_running(PassContext& ctx) {
    RunningSurvey s;
    std::vector<char> queue_open;  // per queue, once rather than per running job
    for (const auto& q : ctx.policy.queues) queue_open.push_back(q.run_window.is_open(ctx.view.week));
    // Nothing to do without a stop threshold or STOP_COND to suspend for, or a job
    // suspended for load (or resumed by its owner) to resume.
    auto stops = [](const config::Thresholds& t) {
      return std::any_of(t.begin(), t.end(), [](const auto& e) { return e.second.stop.has_value(); });
    };
    for (const auto* hp : ctx.host_policies()) s.can_act = s.can_act || stops(hp->thresholds);
    // Most queues have no stop threshold of their own: their jobs are not looked at
    // against the load, host by host.
    s.queue_stops.resize(ctx.policy.queues.size());
    for (size_t q = 0; q < s.queue_stops.size(); ++q) {
      s.queue_stops[q] = stops(ctx.policy.queues[q].thresholds) || ctx.policy.queues[q].stop_cond.has_value();
      s.can_act = s.can_act || s.queue_stops[q];
    }
    const size_t nhosts = ctx.view.hosts.size();
    s.has.assign(nhosts, 0);
    s.begin.assign(nhosts + 1, 0);
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& j = ctx.view.running[i];
      const bool open = queue_open[static_cast<size_t>(j.queue)];
      if (!open && j.state == RunState::kRun && !j.forced)
        ctx.result.suspends.push_back({j.key, SuspendCause::kWindow, reason::kSuspWindow});
      else if (open && j.state == RunState::kSsusp && j.cause == SuspendCause::kWindow)
        ctx.result.resumes.push_back({j.key});
      const auto slots = ctx.slots_of(i);
      if (slots.empty()) continue;
      const auto h = static_cast<size_t>(slots.front().first);
      ++s.begin[h + 1];
      if (j.state == RunState::kRun)
        s.has[h] |= RunningSurvey::kRuns |
                    (!j.forced && s.queue_stops[static_cast<size_t>(j.queue)] ? RunningSurvey::kQueueStops : 0);
      else if (j.state == RunState::kSsusp && (j.cause == SuspendCause::kLoad || j.cause == SuspendCause::kUser))
        s.has[h] |= RunningSurvey::kWaits;
      s.can_act = s.can_act || (s.has[h] & RunningSurvey::kWaits);
    }
    return s;
  }

  // A host whose load control may act this pass: its idle time, and the first stop
  // threshold of its own its load passes (empty if none).
  struct LoadLook {
    int host;
    double it;
    bool idle_long;
    std::string over;
  };
  // A host whose load passes no stop threshold of its own, that runs no job of a queue
  // with one and holds no job to resume, needs nothing more: on a quiet cluster that is
  // every host, and its jobs are not read again.
  std::vector<LoadLook> hosts_to_look_at(const PassContext& ctx, const RunningSurvey& s) {
    const std::string kIt = "it";
    const std::vector<double>& idle_time = ctx.column(kIt);
    std::vector<LoadLook> look;
    for (size_t i = 0; i < s.has.size(); ++i) {
      const int h = static_cast<int>(i);
      if (!s.has[i]) continue;
      const HostView& host = ctx.view.hosts[i];
      if (host.status != HostStatus::kOk && host.status != HostStatus::kClosedAdm) continue;
      if (host.last_load_action > 0 && ctx.now < host.last_load_action + ctx.policy.sbd_sleep_time) continue;
      const double it = value(ctx, h, kIt, idle_time);
      const bool idle_long = !std::isnan(it) && it * 60 > ctx.policy.pg_susp_it;
      std::string host_over =
          (s.has[i] & RunningSurvey::kRuns) ? over_stop(ctx, h, ctx.host_policy(h).thresholds, idle_long) : "";
      if (!host_over.empty() || (s.has[i] & (RunningSurvey::kQueueStops | RunningSurvey::kWaits)))
        look.push_back({h, it, idle_long, std::move(host_over)});
    }
    return look;
  }

  // The started jobs grouped by first execution host; `begin` holds each host's count
  // and becomes each host's offset into the result.
  static std::vector<const RunningJobView*> jobs_by_host(const PassContext& ctx, std::vector<size_t>& begin) {
    const size_t nhosts = begin.size() - 1;
    for (size_t h = 0; h < nhosts; ++h) begin[h + 1] += begin[h];
    std::vector<const RunningJobView*> by_host(begin[nhosts]);
    std::vector<size_t> at(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < ctx.view.running.size(); ++i)
      if (auto slots = ctx.slots_of(i); !slots.empty())
        by_host[at[static_cast<size_t>(slots.front().first)]++] = &ctx.view.running[i];
    return by_host;
  }

  // The stop index a queue's thresholds see passed on the host being looked at (empty
  // if none), worked out once per queue and host.
  const std::string& queue_stop_index(const PassContext& ctx, const LoadLook& l, int queue) {
    auto known = std::find_if(queue_over_.begin(), queue_over_.end(), [&](const auto& e) { return e.first == queue; });
    if (known == queue_over_.end())
      known = queue_over_.insert(queue_over_.end(),
                                 {queue, over_stop(ctx, l.host, ctx.policy.queues[queue].thresholds, l.idle_long)});
    return known->second;
  }

  // Suspend the lowest-priority, most recently started running job whose host or queue
  // stop threshold (or STOP_COND) the load passes. The host's own stop thresholds, and
  // each queue's, are the same for all its jobs: on most hosts none is passed and no
  // job need be ranked. True when a job was suspended.
  bool suspend_for_load(PassContext& ctx, const LoadLook& l, std::span<const RunningJobView* const> jobs,
                        const std::vector<char>& queue_stops) {
    queue_over_.clear();
    std::vector<const RunningJobView*>& running = scratch_;
    running.clear();
    bool may_stop = !l.over.empty();
    for (auto* j : jobs) {
      if (j->state != RunState::kRun) continue;
      running.push_back(j);
      if (may_stop || j->forced) continue;
      if (ctx.policy.queues[j->queue].stop_cond) {
        may_stop = true;
        continue;
      }
      if (queue_stops[static_cast<size_t>(j->queue)]) may_stop = !queue_stop_index(ctx, l, j->queue).empty();
    }
    if (!may_stop) return false;
    auto priority_of = [&](const RunningJobView* j) { return ctx.policy.queues[j->queue].priority; };
    std::sort(running.begin(), running.end(), [&](auto* a, auto* b) {
      if (priority_of(a) != priority_of(b)) return priority_of(a) < priority_of(b);
      if (a->start_time != b->start_time) return a->start_time > b->start_time;
      return a->key > b->key;
    });
    for (auto* j : running) {
      if (j->forced) continue;  // brun -f
      // A host's only job is suspended only when someone uses the host (it < 1).
      if (running.size() == 1 && jobs.size() == 1 && !std::isnan(l.it) && l.it >= 1) return false;
      const std::string& index = l.over.empty() ? queue_stop_index(ctx, l, j->queue) : l.over;
      if (!index.empty()) {
        ctx.result.suspends.push_back(
            {j->key, SuspendCause::kLoad, std::string(reason::kSuspLoad) + ": " + index_description(index)});
        return true;
      }
      const QueuePolicy& q = ctx.policy.queues[j->queue];
      if (q.stop_cond && q.stop_cond->select.matches(reader(ctx).at(l.host))) {
        ctx.result.suspends.push_back({j->key, SuspendCause::kLoad, reason::kSuspStopCond});
        return true;
      }
    }
    return false;
  }

  // Resume the highest-priority job the system suspended for load (or that its owner
  // resumed), when load is under both scheduling thresholds and RESUME_COND.
  void resume_after_load(PassContext& ctx, int h, std::span<const RunningJobView* const> jobs) {
    std::vector<const RunningJobView*>& waiting = scratch_;
    waiting.clear();
    for (auto* j : jobs)
      if (j->state == RunState::kSsusp && (j->cause == SuspendCause::kLoad || j->cause == SuspendCause::kUser))
        waiting.push_back(j);
    auto priority_of = [&](const RunningJobView* j) { return ctx.policy.queues[j->queue].priority; };
    std::sort(waiting.begin(), waiting.end(), [&](auto* a, auto* b) {
      if (priority_of(a) != priority_of(b)) return priority_of(a) > priority_of(b);
      return a->start_time < b->start_time;
    });
    const auto& host_t = ctx.host_policy(h).thresholds;
    for (auto* j : waiting) {
      const QueuePolicy& q = ctx.policy.queues[j->queue];
      if (over_sched(ctx, h, host_t) || over_sched(ctx, h, q.thresholds)) continue;
      if (q.resume_cond && !q.resume_cond->select.matches(reader(ctx).at(h))) continue;
      ctx.result.resumes.push_back({j->key});
      return;
    }
  }

  std::map<std::int64_t, int> array_running_;
  std::map<const config::Thresholds*, CompiledThresholds> compiled_;
  const config::Thresholds* last_thresholds_ = nullptr;
  const CompiledThresholds* last_compiled_ = nullptr;
  std::vector<char> closed_;            // per queue: a run or dispatch window is closed
  std::optional<SelectReader> reader_;  // made at first use: most passes read no select[]
  // Load control's per-host scratch, reused from host to host.
  std::vector<const RunningJobView*> scratch_;
  std::vector<std::pair<int, std::string>> queue_over_;  // each queue's stop index passed
  HostMatching own_;                                     // when the caller carries none
  HostMatching* matching_ = &own_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_default() { return std::make_unique<DefaultModule>(); }
// First: its hosts hook makes each match's candidates from every host (replaces_hosts),
// which the pass asks of the first module only.
constinit const ModuleDecl kSchmodDefault{"schmod_default", Phase::kLead, {}, make_schmod_default};

}  // namespace lsf::sched
