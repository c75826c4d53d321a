// When and on what the scheduling pass runs. A pass is requested by every change and
// starts a few milliseconds later, so a burst of changes shares one pass; MBD_SLEEP_TIME
// bounds the wait when nothing changes. The pass runs on its own thread over a view
// copied from the state, and its decisions are checked again against the state of the
// moment they come back, since jobs may have been killed in between.
#include <chrono>

#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {
namespace {
constexpr auto kCoalesce = std::chrono::milliseconds(3);
// A pass may cost the state thread (copying the view, applying results) at most about
// a third of its time: with 100,000 pending jobs passes space out instead of starving
// submissions; on a small cluster they stay 3 ms apart.
constexpr int kCostFactor = 2;
constexpr auto kMaxSpacing = std::chrono::milliseconds(2000);
}

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
  auto phase = [](const Job& j) {
    using P = sched::DependencyJob::Phase;
    switch (j.state) {
      case wire::JOB_PEND: return P::kPending;
      case wire::JOB_PSUSP: return P::kHeld;
      case wire::JOB_DONE: return P::kDone;
      case wire::JOB_EXIT: return P::kExit;
      default: return P::kRunning;
    }
  };
  return dep->evaluate([&](const sched::DependencyRef& ref) {
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
  for (const auto& q : cfg.queues) {
    if (q.hosts.empty()) continue;
    auto hosts = config::resolve_host_list(cfg, q.hosts);
    auto& out = index.queue_hosts[q.name];
    out.assign(hosts.begin(), hosts.end());
    if (out.empty()) out.push_back("-");  // matches no host
  }
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
  return index;
}

// -m names hosts, host groups, `others` and `all`, with +preference levels: the pass
// gets host names. Preferences are not ranked yet (the scheduling-pass issue).
std::vector<std::string> Mbatchd::resolve_asked_hosts(const wire::JobSpec& spec) const {
  std::string text;
  for (const auto& h : spec.asked_hosts()) text += h + " ";
  auto items = config::parse_host_list(text);
  if (!items) return {"-"};  // checked at submission; a reconfig may have removed a group
  auto hosts = config::resolve_host_list(*config_, *items);
  std::vector<std::string> out(hosts.begin(), hosts.end());
  if (out.empty()) out.push_back("-");
  return out;
}

sched::ClusterView Mbatchd::build_view() const {
  sched::ClusterView view;
  std::map<std::string, int> queue_index;
  auto week = config::local_week_instant();
  for (const auto& q : config_->queues) {
    sched::QueueView qv;
    qv.name = q.name;
    qv.priority = q.priority;
    const auto& st = state_.queues().at(q.name);
    if (!st.active) {
      qv.dispatching = false;
      qv.inactive_reason = sched::reason::kQueueInactive;
    } else if (!q.run_window.is_open(week) || !q.dispatch_window.is_open(week)) {
      qv.dispatching = false;
      qv.inactive_reason = sched::reason::kQueueWindow;
    }
    if (auto qh = config_index_.queue_hosts.find(q.name); qh != config_index_.queue_hosts.end()) qv.hosts = qh->second;
    qv.accepts_exclusive = q.exclusive;
    qv.qjob_limit = q.qjob_limit.value_or(-1);
    qv.used_slots = st.counts.run + st.counts.ssusp + st.counts.ususp;
    queue_index[q.name] = static_cast<int>(view.queues.size());
    view.queues.push_back(std::move(qv));
  }
  for (const auto& h : config_->hosts) {
    if (!h.server) continue;
    sched::HostView hv;
    hv.name = h.name;
    hv.status = host_status(h.name);
    const auto& st = state_.hosts().at(h.name);
    hv.max_slots = host_max_slots(h.name);
    hv.used_slots = st.counts.run + st.counts.ssusp + st.counts.ususp;
    hv.running_exclusive = st.exclusive_jobs > 0;
    hv.resources = config_index_.host_static.at(h.name);
    if (auto link = links_.find(h.name); link != links_.end() && link->second.registered) {
      const auto& l = link->second.load;
      hv.resources["r15s"] = l.r15s();
      hv.resources["r1m"] = l.r1m();
      hv.resources["r15m"] = l.r15m();
      hv.resources["ut"] = l.ut();
      hv.resources["pg"] = l.pg();
      hv.resources["ls"] = l.ls();
      hv.resources["it"] = l.it();
      hv.resources["tmp"] = l.tmp_mb();
      hv.resources["swp"] = l.swp_mb();
      hv.resources["mem"] = l.mem_mb();
      hv.resources["ncpus"] = static_cast<double>(l.ncpus());
      hv.resources["maxmem"] = l.maxmem_mb();
      hv.resources["maxswp"] = l.maxswp_mb();
      hv.resources["maxtmp"] = l.maxtmp_mb();
    }
    view.hosts.push_back(std::move(hv));
  }
  // Array elements share their submission, so each -m list is resolved once per pass.
  std::map<const Submission*, std::vector<std::string>> asked;
  view.pending.reserve(state_.pending().size());
  for (const auto& key : state_.pending()) {
    const Job& job = *state_.find_job(key);
    auto qi = queue_index.find(job.queue);
    if (qi == queue_index.end()) continue;  // queue removed by reconfig: stays pending
    sched::JobView jv;
    jv.key = key;
    jv.queue = qi->second;
    jv.order = key.id;
    jv.slots = job.slots();
    if (job.spec().asked_hosts_size() > 0) {
      auto it = asked.find(job.submission.get());
      if (it == asked.end()) it = asked.emplace(job.submission.get(), resolve_asked_hosts(job.spec())).first;
      jv.asked_hosts = it->second;
    }
    jv.exclusive = job.spec().exclusive();
    jv.res_req = job.submission->res_req;
    jv.begin_time = job.spec().begin_time();
    jv.dependency = dependency_state(job);
    jv.held = job.state == wire::JOB_PSUSP;
    jv.array_limit = job.spec().array_limit();
    if (jv.array_limit > 0 && !view.array_running.count(key.id)) {
      int running = 0;
      for (const Job* e : state_.elements(key.id))
        if (e->state == wire::JOB_RUN || e->state == wire::JOB_SSUSP || e->state == wire::JOB_USUSP) ++running;
      view.array_running[key.id] = running;
    }
    view.pending.push_back(std::move(jv));
  }
  return view;
}

void Mbatchd::run_pass() {
  pass_running_ = true;
  pass_again_ = false;
  auto built = std::chrono::steady_clock::now();
  auto view = std::make_shared<sched::ClusterView>(build_view());
  last_pass_cost_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - built);
  std::int64_t t = now();
  net::asio::post(sched_thread_, [this, view, t] {
    auto started = std::chrono::steady_clock::now();
    auto result = sched::schedule(*view, t);
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    net::asio::post(io_, [this, view, result = std::move(result), took]() mutable {
      apply_pass(*view, std::move(result), took);
    });
  });
  // The periodic pass: MBD_SLEEP_TIME after the last one at the latest.
  sleep_timer_.expires_after(std::chrono::seconds(std::max(1, config_->params.mbd_sleep_time)));
  sleep_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) request_pass();
  });
}

void Mbatchd::apply_pass(const sched::ClusterView& view, sched::PassResult result, std::chrono::microseconds took) {
  auto applying = std::chrono::steady_clock::now();
  pass_running_ = false;
  ++passes_;
  std::vector<sched::JobKey> started;
  for (auto& d : result.dispatches) {
    Job* job = state_.find_job(d.job);
    if (!job || job->state != wire::JOB_PEND) continue;  // killed or stopped meanwhile
    // Hosts may have changed state while the pass ran.
    bool still_ok = true;
    for (const auto& h : d.hosts) {
      auto s = host_status(h);
      if (s != "ok") {
        still_ok = false;
        break;
      }
    }
    if (!still_ok) continue;
    wire::EventRecord ev;
    auto* e = ev.mutable_job_start();
    e->set_job_id(d.job.id);
    e->set_index(d.job.index);
    for (const auto& h : d.hosts) e->add_exec_hosts(h);
    record(ev);
    started.push_back(d.job);
  }
  for (auto& r : result.reasons) state_.set_pending_reason(r.job, std::move(r.text));
  last_pass_cost_ += took + std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - applying);
  if (!started.empty()) {
    // StartJob only once JOB_START is durable: a crash in between must not leave a job
    // running that the log says is pending.
    event_log_->when_durable([this, started = std::move(started)](bool ok) {
      if (!ok) return;
      start_on_hosts(started);
    });
  }
  if (result.stats.jobs_considered > 0 || !result.dispatches.empty())
    log_->debug("pass {}: {} pending, {} considered, {} dispatched in {} us", passes_, view.pending.size(),
                result.stats.jobs_considered, result.stats.dispatched, took.count());
  if (pass_again_) request_pass();
}

}  // namespace lsf::mbd
