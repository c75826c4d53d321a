// When and on what the scheduling pass runs. A pass is requested by every change and
// starts a few milliseconds later, so a burst of changes shares one pass; MBD_SLEEP_TIME
// bounds the wait when nothing changes. The pass runs on its own thread over a view
// copied from the state, and its decisions are checked again against the state of the
// moment they come back, since jobs may have been killed in between.
#include <chrono>
#include <csignal>
#include <unordered_map>

#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libsched/pass_apply.h"
#include "libsched/pass_carry.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {
namespace {
constexpr auto kCoalesce = std::chrono::milliseconds(3);
// A pass may cost the state thread (copying the view, applying results) at most about
// a third of its time: with 100,000 pending jobs passes space out instead of starving
// submissions; on a small cluster they stay 3 ms apart.
constexpr int kCostFactor = 2;
constexpr auto kMaxSpacing = std::chrono::milliseconds(2000);
}  // namespace

void Mbatchd::request_pass() {
  if (pass_running_) {
    pass_again_ = true;
    return;
  }
  if (pass_scheduled_) return;
  pass_scheduled_ = true;
  auto spacing = std::max<std::chrono::microseconds>(kCoalesce, last_pass_cost_ * kCostFactor);
  pass_timer_.expires_after(std::min<std::chrono::microseconds>(spacing, kMaxSpacing));
  pass_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    pass_scheduled_ = false;
    run_pass();
  });
}

sched::DependencyState Mbatchd::dependency_state(const Job& job) const {
  const auto& dep = job.submission->dependency;
  if (!dep) return sched::DependencyState::kNone;
  return evaluate_dependency(*dep);
}

sched::DependencyState Mbatchd::evaluate_dependency(const sched::DependencyExpr& dep) const {
  auto phase = [](const Job& j) {
    using P = sched::DependencyJob::Phase;
    switch (j.state) {
      case wire::JOB_PEND:
        return P::kPending;
      case wire::JOB_PSUSP:
        return P::kHeld;
      case wire::JOB_DONE:
        return P::kDone;
      case wire::JOB_EXIT:
        return P::kExit;
      default:
        return P::kRunning;
    }
  };
  return dep.evaluate([&](const sched::DependencyRef& ref) {
    std::vector<sched::DependencyJob> out;
    auto add = [&](const Job& j) {
      int code = WIFEXITED(j.exit_status) ? WEXITSTATUS(j.exit_status) : 128 + WTERMSIG(j.exit_status);
      out.push_back({phase(j), code});
    };
    if (ref.name.empty()) {
      if (ref.index > 0) {
        if (const Job* j = state_.find_job({ref.job_id, ref.index})) add(*j);
      } else {
        for (const Job* j : state_.elements(ref.job_id)) add(*j);
      }
    } else {
      auto ids = state_.jobs_named(ref.name);
      // JOB_DEP_LAST_SUB: a name means its latest job; otherwise every job of that name.
      if (config_->params.job_dep_last_sub && !ids.empty()) ids.resize(1);
      for (auto id : ids)
        for (const Job* j : state_.elements(id)) add(*j);
    }
    return out;
  });
}

ConfigIndex index_config(const config::ClusterConfig& cfg) {
  ConfigIndex index;
  for (const auto& h : cfg.hosts) {
    auto& res = index.host_static[h.name];
    for (const char* name : {"hname", "type", "model", "cpuf", "server", "ndisks"}) {
      auto v = config::static_host_resource(cfg, h, name);
      if (!std::holds_alternative<std::monostate>(v)) res[name] = v;
    }
    for (const auto& r : h.resources) {
      auto eq = r.find('=');
      if (eq == std::string::npos)
        res[r.substr(r[0] == '!' ? 1 : 0)] = 1.0;
      else
        res[r.substr(0, eq)] = r.substr(eq + 1);
    }
  }
  index.policy = sched::build_policy(cfg);
  return index;
}

// -m names hosts, host groups, `others` and `all`, with +preference levels.
std::shared_ptr<const sched::AskedHosts> Mbatchd::resolve_asked_hosts(const wire::JobSpec& spec) const {
  std::string text;
  for (const auto& h : spec.asked_hosts()) text += h + " ";
  auto out = std::make_shared<sched::AskedHosts>();
  auto items = config::parse_host_list(text);
  if (!items) return out;  // checked at submission; a reconfig may have removed a group
  for (const auto& h : config::resolve_host_list(*config_, *items)) out->preference[h] = 0;
  // Borrowed hosts by name (`-m hostA@provider`); what is offered decides whether they run.
  for (const auto& item : *items)
    if (item.kind == config::HostListItem::Kind::kName && !item.cluster.empty() && !item.exclude &&
        item.cluster != config_->cluster_name)
      out->preference[item.name + "@" + item.cluster] = item.preference;
  for (auto item : *items) {
    if (!item.has_preference || item.exclude) continue;
    int level = item.preference;
    item.has_preference = false;
    item.preference = 0;
    for (const auto& h : config::resolve_host_list(*config_, {item})) {
      auto it = out->preference.find(h);
      if (it != out->preference.end()) it->second = std::max(it->second, level);
    }
  }
  return out;
}

std::int64_t default_run_limit_s(const config::Queue& queue) {
  if (!queue.run_limit) return 0;
  const auto& rl = queue.run_limit->default_value ? *queue.run_limit->default_value : queue.run_limit->maximum;
  return std::int64_t{rl.minutes} * 60;
}

// The profile's limits override the queue's default but not its maximum.
std::int64_t app_run_limit_s(const config::Application& app, const config::Queue* queue) {
  std::int64_t limit = std::int64_t{app.run_limit->minutes} * 60;
  if (queue && queue->run_limit && queue->run_limit->maximum.minutes > 0)
    limit = std::min(limit, std::int64_t{queue->run_limit->maximum.minutes} * 60);
  return limit;
}

const config::Application* Mbatchd::application(const Job& job) const {
  return job.spec().app().empty() ? nullptr : config_->find_application(job.spec().app());
}

std::int64_t Mbatchd::effective_run_limit(const Job& job) const {
  if (job.spec().run_limit_s() > 0) return job.spec().run_limit_s();
  const config::Queue* queue = config_->find_queue(job.queue);
  if (const auto* app = application(job); app && app->run_limit) return app_run_limit_s(*app, queue);
  return queue ? default_run_limit_s(*queue) : 0;
}

bool Mbatchd::rerunnable(const Job& job) const {
  if (job.spec().not_rerunnable()) return false;
  if (job.spec().rerunnable()) return true;
  if (const auto* app = application(job); app && app->rerunnable) return *app->rerunnable;
  const config::Queue* queue = config_->find_queue(job.queue);
  return queue && queue->rerunnable;
}

namespace {

sched::SuspendCause cause_of(const Job& job) {
  return sched::suspend_cause_of(job.state == wire::JOB_SSUSP, job.reason);
}

}  // namespace

sched::ResourceMap Mbatchd::host_resources(const std::string& host) const {
  auto res = config_index_.host_static.at(host);
  if (auto link = links_.find(host); link != links_.end() && link->second.registered)
    for (auto index : kReportedLoad) res[std::string(index)] = load_value(link->second.load, index);
  return res;
}

sched::ClusterView Mbatchd::build_view(bool with_pending, bool leases, std::vector<Job*>* jobs) const {
  sched::ClusterView view;
  view.policy = leases ? policy_with_leased_resources() : config_index_.policy;
  view.week = config::local_week_instant();
  for (const auto& q : config_->queues) view.queues.push_back({state_.queues().at(q.name).active});
  for (const auto& h : config_->hosts) {
    if (!h.server) continue;
    sched::HostView hv;
    hv.name = h.name;
    hv.status = status_of(h.name);
    // The pass works out the closed_* states other than closed_Adm itself: it counts
    // slots and reads windows and thresholds, with the reasons that go with them.
    if (sched::closed_by_pass(hv.status)) hv.status = sched::HostStatus::kOk;
    hv.resources = host_resources(h.name);
    if (auto it = last_dispatch_.find(h.name); it != last_dispatch_.end()) hv.last_dispatch = it->second;
    if (auto it = last_load_action_.find(h.name); it != last_load_action_.end()) hv.last_load_action = it->second;
    if (auto link = links_.find(h.name); link != links_.end() && link->second.registered)
      hv.ncpus = std::max(1, static_cast<int>(link->second.load.ncpus()));
    hv.lent_slots = lent_slots(h.name);
    view.hosts.push_back(std::move(hv));
  }
  const size_t own_hosts = view.hosts.size();
  add_borrowed_hosts(view);
  // Borrowed hosts come and go with the offers: the table must name the same hosts.
  bool same_hosts = host_table_ && host_table_->names->size() == view.hosts.size();
  for (size_t i = own_hosts; same_hosts && i < view.hosts.size(); ++i)
    same_hosts = (*host_table_->names)[i] == view.hosts[i].name;
  // Remade after each reconfig, and while guarantee pool membership waits on hosts that
  // have not reported (RES_SELECT needs their values).
  if (!same_hosts || host_table_generation_ != config_generation_ || host_table_->undecided) {
    host_table_ = sched::make_host_table(view);
    host_table_generation_ = config_generation_;
  }
  view.accel.host_table = host_table_;
  view.accel.host_table_checked = true;  // own hosts are config_->hosts; borrowed ones compared above
  const auto& policy = *config_index_.policy;
  // Per queue, once per view: its index in the policy and its default run limit.
  struct QueueFacts {
    int index = -1;
    std::int64_t run_limit_s = 0;
    const config::Queue* queue = nullptr;
  };
  std::unordered_map<std::string, QueueFacts> queues;
  for (const auto& q : config_->queues) {
    QueueFacts f{policy.queue_index(q.name), default_run_limit_s(q), &q};
    queues.emplace(q.name, f);
  }
  // Consecutive jobs mostly share a queue: the last one found is tried first.
  const std::string* last_name = nullptr;
  const QueueFacts* last_facts = nullptr;
  auto facts = [&](const Job& job) -> const QueueFacts* {
    if (last_name && *last_name == job.queue) return last_facts;
    auto it = queues.find(job.queue);
    last_name = &job.queue;
    last_facts = it == queues.end() ? nullptr : &it->second;
    return last_facts;
  };
  auto run_limit = [this](const Job& job, const QueueFacts& q) {
    if (job.spec().run_limit_s() > 0) return job.spec().run_limit_s();
    if (const auto* app = application(job); app && app->run_limit) return app_run_limit_s(*app, q.queue);
    return q.run_limit_s;
  };
  auto requirement = [&](const Job& job, const QueueFacts& qf) -> std::shared_ptr<const config::ResourceRequirement> {
    auto& cached = job.submission->derived;
    if (cached.generation == config_generation_ && cached.queue == qf.index) return cached.requirement;
    auto key = std::make_tuple(job.spec().res_req(), job.spec().app(), job.queue);
    auto it = merged_requirements_.find(key);
    if (it == merged_requirements_.end()) {
      const auto* app = application(job);
      std::shared_ptr<const config::ResourceRequirement> merged;
      if (auto combined = config::combine_requirements(job.submission->res_req.get(),
                                                       app && app->res_req ? &*app->res_req : nullptr,
                                                       qf.queue->res_req ? &*qf.queue->res_req : nullptr))
        merged = std::make_shared<const config::ResourceRequirement>(std::move(*combined));
      // Distinct -R strings are few in practice; a flood of unique ones must not grow
      // the cache without bound (dropping it only costs re-merging).
      if (merged_requirements_.size() > 100000) merged_requirements_.clear();
      it = merged_requirements_.emplace(key, merged).first;
    }
    cached.generation = config_generation_;
    cached.queue = qf.index;
    cached.requirement = it->second;
    cached.project = job.spec().project();
    return it->second;
  };
  // The job's user and project (as the view names them) as ids, found once per
  // submission.
  auto give_ids = [this](const Job& job, auto& v) {
    auto& d = job.submission->derived;
    if (d.user_id < 0) {
      d.user_id = user_ids_.insert(v.user).first;
      d.project_id = project_ids_.insert(v.project).first;
    }
    v.user_id = d.user_id;
    v.project_id = d.project_id;
  };
  static const ClusterState::JobIndex kNoPending;
  const auto& pending = with_pending ? state_.pending() : kNoPending;
  std::unordered_map<std::string, int> group_index;  // empty unless some job group has a limit
  add_job_groups(view, group_index);
  if (jobs) {  // the pass's view (the only one that hands its storage back)
    view.pending = std::move(spare_pending_);
    view.pending.clear();
    jobs->reserve(pending.size());
  }
  view.pending.reserve(pending.size());
  // The walk is bound by memory latency: each job is an index node, a Job and a
  // Submission, each somewhere else. Asking for them some jobs ahead overlaps the waits.
  constexpr int kJobAhead = 16, kSubmissionAhead = 8;
  auto job_ahead = pending.begin(), submission_ahead = pending.begin();
  for (int i = 0; i < kJobAhead && job_ahead != pending.end(); ++i) ++job_ahead;
  for (int i = 0; i < kSubmissionAhead && submission_ahead != pending.end(); ++i) ++submission_ahead;
  for (const auto& [key, job_ptr] : pending) {
    if (job_ahead != pending.end()) {
      __builtin_prefetch(job_ahead->second);
      __builtin_prefetch(reinterpret_cast<const char*>(job_ahead->second) + 64);
      ++job_ahead;
    }
    if (submission_ahead != pending.end()) {
      const Submission* sub = submission_ahead->second->submission.get();
      __builtin_prefetch(sub);
      __builtin_prefetch(&sub->spec);
      __builtin_prefetch(&sub->user);
      __builtin_prefetch(&sub->derived);
      ++submission_ahead;
    }
    const Job& job = *job_ptr;
    const QueueFacts* qf = facts(job);
    if (!qf || qf->index < 0) continue;  // queue removed by reconfig: stays pending
    sched::JobView jv;
    jv.key = key;
    jv.queue = qf->index;
    jv.order = job.position;
    if (!job.excluded_hosts.empty()) jv.excluded_hosts = job.excluded_hosts;
    jv.user = job.user();
    jv.res_req = requirement(job, *qf);
    if (const auto& project = job.submission->derived.project; !project.empty()) jv.project = project;
    give_ids(job, jv);
    jv.min_slots = std::max(1, job.spec().min_processors());
    jv.max_slots = std::max(jv.min_slots, job.spec().max_processors());
    if (job.spec().asked_hosts_size() > 0) {
      // Resolved once per submission and configuration; array elements share it.
      auto& cached = job.submission->derived;
      if (cached.asked_generation != config_generation_) {
        cached.asked_hosts = resolve_asked_hosts(job.spec());
        cached.asked_generation = config_generation_;
      }
      jv.asked_hosts = cached.asked_hosts;
    }
    jv.exclusive = job.spec().exclusive();
    jv.run_limit_s = run_limit(job, *qf);
    jv.begin_time = job.spec().begin_time();
    jv.retry_at = job.retry_at;
    jv.dependency = dependency_state(job);
    jv.held = job.state == wire::JOB_PSUSP;
    jv.array_limit = job.spec().array_limit();
    if (auto r = reservations_.find(key); r != reservations_.end()) sched::carry_reservation(jv, &r->second);
    jv.share_group = job.spec().user_group();
    jv.sla = job.spec().service_class();
    // A blocked job accrues no queue time; it starts anew when it is eligible again.
    jv.idle_since = job.blocked ? -1 : job.idle_since > 0 ? job.idle_since : job.submission->submit_time;
    jv.aps_system = job.spec().aps_system();
    jv.aps_admin = job.spec().aps_admin();
    if (!group_index.empty() && !job.spec().job_group().empty())
      if (auto g = group_index.find(job.spec().job_group()); g != group_index.end()) jv.job_group = g->second;
    jv.bypass_count = job.bypass_count;
    jv.user_priority = job.spec().user_priority() > 0 ? job.spec().user_priority() : -1;
    if (jv.array_limit > 0 && !view.array_running.count(key.id)) {
      int running = 0;
      for (const Job* e : state_.elements(key.id))
        if (e->state == wire::JOB_RUN || e->state == wire::JOB_SSUSP || e->state == wire::JOB_USUSP) ++running;
      view.array_running[key.id] = running;
    }
    view.pending.push_back(std::move(jv));
    if (jobs) jobs->push_back(job_ptr);
  }
  view.running.reserve(state_.started().size());
  for (const auto& [key, job_ptr] : state_.started()) {
    const Job& job = *job_ptr;
    const QueueFacts* qf = facts(job);
    if (!qf || qf->index < 0) continue;
    sched::RunningJobView rv;
    rv.key = key;
    rv.queue = qf->index;
    rv.user = job.user();
    if (!job.spec().project().empty()) rv.project = job.spec().project();
    give_ids(job, rv);
    rv.hosts = job.exec_hosts;
    if (job.placed.table != host_table_ || job.placed.attempt != job.attempt) {
      job.placed.table = host_table_;
      job.placed.attempt = job.attempt;
      job.placed.slots =
          std::make_shared<const std::vector<std::pair<int, int>>>(sched::host_slots(*host_table_, job.exec_hosts));
    }
    rv.accel.table = job.placed.table;
    rv.accel.slots = job.placed.slots;
    rv.state = job.state == wire::JOB_RUN     ? sched::RunState::kRun
               : job.state == wire::JOB_SSUSP ? sched::RunState::kSsusp
                                              : sched::RunState::kUsusp;
    rv.cause = cause_of(job);
    rv.start_time = job.start_time;
    rv.run_limit_s = run_limit(job, *qf);
    rv.exclusive = job.spec().exclusive();
    rv.forced = job.forced;
    rv.res_req = requirement(job, *qf);
    rv.cpu_s = job.cpu_time;
    rv.share_group = job.spec().user_group();
    rv.sla = job.spec().service_class();
    view.running.push_back(std::move(rv));
  }
  view.share_history = state_.share_history();
  if (!user_ids_copy_ || user_ids_copy_->size() != user_ids_.size())
    user_ids_copy_ = std::make_shared<const sched::NameIndex>(user_ids_);
  if (!project_ids_copy_ || project_ids_copy_->size() != project_ids_.size())
    project_ids_copy_ = std::make_shared<const sched::NameIndex>(project_ids_);
  view.accel.user_ids = user_ids_copy_;
  view.accel.project_ids = project_ids_copy_;
  return view;
}

void Mbatchd::run_pass() {
  pass_running_ = true;
  pass_again_ = false;
  auto built = std::chrono::steady_clock::now();
  auto jobs = std::make_shared<PassJobs>();
  jobs->dropped = state_.jobs_dropped();
  auto view = std::make_shared<sched::ClusterView>(build_view(true, true, &jobs->jobs));
  // What the last pass worked out, for this one: only passes use it, one at a time.
  if (!pass_carry_) pass_carry_ = std::make_shared<sched::PassCarry>();
  view->accel.carry = pass_carry_;
  last_pass_cost_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - built);
  last_view_took_ = last_pass_cost_;
  std::int64_t t = now();
  net::asio::post(sched_thread_, [this, view, jobs, t]() mutable {
    auto started = std::chrono::steady_clock::now();
    auto result = sched::schedule(*view, t);
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    // Freed here rather than on the state thread: 100,000 JobViews take milliseconds.
    const size_t running = view->running.size();
    std::vector<sched::JobView> spare;
    if (view.use_count() == 1) {
      view->pending.clear();
      spare = std::move(view->pending);
    }
    view.reset();
    net::asio::post(io_, [this, running, jobs, result = std::move(result), took, spare = std::move(spare)]() mutable {
      apply_pass(running, std::move(result), took, *jobs, std::move(spare));
    });
  });
  // The periodic pass: MBD_SLEEP_TIME after the last one at the latest.
  sleep_timer_.expires_after(std::chrono::seconds(std::max(1, config_->params.mbd_sleep_time)));
  sleep_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) request_pass();
  });
}

void Mbatchd::apply_pass(size_t running, sched::PassResult result, std::chrono::microseconds took, const PassJobs& jobs,
                         std::vector<sched::JobView> spare) {
  spare_pending_ = std::move(spare);
  auto applying = std::chrono::steady_clock::now();
  pass_running_ = false;
  ++passes_;
  std::int64_t t = now();
  std::vector<sched::JobKey> started;
  // The decisions, applied to the jobs' records by the rule of libsched/pass_apply.h.
  // No job starts while the event log refuses changes: its JOB_START could not be kept.
  const bool refused = !event_log_->refusal().empty();
  sched::ApplyTarget target;
  target.start = [&](const sched::Dispatch& d) {
    if (refused) return false;
    Job* job = state_.find_job(d.job);
    if (!job || job->state != wire::JOB_PEND) return false;  // killed or stopped meanwhile
    // Hosts may have changed state while the pass ran.
    for (const auto& h : d.hosts) {
      const HostStatus s = status_of(h);
      if (s != HostStatus::kOk && !sched::closed_by_pass(s)) return false;
    }
    wire::EventRecord ev;
    auto* e = ev.mutable_job_start();
    e->set_job_id(d.job.id);
    e->set_index(d.job.index);
    for (const auto& h : d.hosts) e->add_exec_hosts(h);
    record(ev);
    started.push_back(d.job);
    return true;
  };
  target.dispatched = [&](const std::string& host) { last_dispatch_[host] = t; };
  // Reservations last while the pass renews them; the start of each is kept so
  // MAX_RESERVE_TIME can end it.
  target.reservations = [&](std::vector<sched::Reservation>& held) {
    std::map<sched::JobKey, sched::Reservation> kept;
    for (auto& r : held) kept[r.job] = std::move(r);
    reservations_ = std::move(kept);
  };
  target.find = [&](const sched::JobKey& key) -> std::optional<sched::StartedJob> {
    const Job* job = state_.find_job(key);
    if (!job) return std::nullopt;
    sched::StartedJob out;
    switch (job->state) {
      case wire::JOB_RUN:
        out.state = sched::RunState::kRun;
        break;
      case wire::JOB_SSUSP:
        out.state = sched::RunState::kSsusp;
        break;
      case wire::JOB_USUSP:
        out.state = sched::RunState::kUsusp;
        break;
      default:
        return std::nullopt;
    }
    out.cause = cause_of(*job);
    if (!job->exec_hosts.empty()) out.first_host = job->exec_hosts[0];
    return out;
  };
  target.suspend = [&](const sched::Suspend& s) { suspend_by_system(*state_.find_job(s.job), s); };
  target.resume = [&](const sched::Resume& r) { resume_by_system(*state_.find_job(r.job)); };
  target.load_action = [&](const std::string& host) { last_load_action_[host] = t; };
  // Pending jobs' marks go with their reasons below, in one walk (set_pending_reasons
  // follows sched::carry_pending_mark's rule).
  sched::apply(result, target);
  guarantees_ = std::move(result.guarantees);
  throttles_ = std::move(result.throttles);
  // Jobs forgotten since the view was made: their pointers are gone, look every job up.
  const bool same_jobs = jobs.dropped == state_.jobs_dropped();
  state_.set_pending_reasons(result.reasons, t, same_jobs ? std::span<Job* const>(jobs.jobs) : std::span<Job* const>());
  state_.set_aps(result.aps);
  const auto applied =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - applying);
  last_pass_cost_ += took + applied;
  last_stats_ = result.stats;
  last_pass_took_ = took;
  max_pass_took_ = std::max(max_pass_took_, took);
  total_pass_took_ += took;
  dispatched_total_ += started.size();
  if (!started.empty()) {
    // StartJob only once JOB_START is durable: a crash in between must not leave a job
    // running that the log says is pending.
    event_log_->when_durable([this, started = std::move(started)](bool ok) {
      if (!ok) return;
      start_on_hosts(started);
    });
  }
  const auto& st = result.stats;
  if (st.jobs_considered > 0 || st.dispatched > 0 || !result.suspends.empty() || !result.resumes.empty())
    log_->info(
        "pass {}: {} us (view {} us, applying {} us), {} pending, {} considered, {} dispatched, {} reserved, {} "
        "preempted, "
        "{} classes, {} running",
        passes_, took.count(), last_view_took_.count(), applied.count(), st.jobs_pending, st.jobs_considered,
        st.dispatched, st.reserved, st.preempted, st.classes, running);
  if (pass_again_) request_pass();
}

void Mbatchd::suspend_by_system(Job& job, const sched::Suspend& decision) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  st->set_state(wire::JOB_SSUSP);
  st->set_reason(decision.reason);
  signal_on_host(job, SIGSTOP, {});
  record(ev);
  log_->info("job {} suspended: {}", job_label(job.key), decision.reason);
}

void Mbatchd::resume_by_system(Job& job) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  st->set_state(wire::JOB_RUN);
  signal_on_host(job, SIGCONT, {});
  record(ev);
  log_->info("job {} resumed", job_label(job.key));
}

}  // namespace lsf::mbd
