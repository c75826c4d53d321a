#include "daemons/mbatchd/scheduling_driver.h"

#include <algorithm>
#include <csignal>

#include "libsched/pass_apply.h"
#include "libsched/pass_carry.h"

namespace lsf::mbd {
namespace {

constexpr auto kCoalesce = std::chrono::milliseconds(3);
// A pass may cost the state thread (copying the view, applying results) at most about
// a third of its time: with 100,000 pending jobs passes space out instead of starving
// submissions; on a small cluster they stay 3 ms apart.
constexpr int kCostFactor = 2;
constexpr auto kMaxSpacing = std::chrono::milliseconds(2000);

std::chrono::microseconds since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t);
}

std::optional<sched::StartedJob> started_job(const Job* job) {
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
  out.cause = sched::suspend_cause_of(job->state == wire::JOB_SSUSP, job->reason);
  if (!job->exec_hosts.empty()) out.first_host = job->exec_hosts[0];
  return out;
}

}  // namespace

SchedulingDriver::SchedulingDriver(ComponentContext ctx, const ConfigIndex& index, net::asio::io_context& io,
                                   SchedulingHooks hooks)
    : ctx_(std::move(ctx)),
      io_(io),
      hooks_(std::move(hooks)),
      views_(ctx_, index, memory_, hooks_.view),
      pass_timer_(io),
      sleep_timer_(io),
      retry_timer_(io) {}

void SchedulingDriver::request_pass() {
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

void SchedulingDriver::request_pass_after(std::chrono::seconds delay) {
  retry_timer_.expires_after(delay);
  retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) request_pass();
  });
}

void SchedulingDriver::cancel_timers() {
  pass_timer_.cancel();
  sleep_timer_.cancel();
  retry_timer_.cancel();
}

void SchedulingDriver::join() { pass_thread_.join(); }

void SchedulingDriver::run_pass() {
  pass_running_ = true;
  pass_again_ = false;
  auto built = std::chrono::steady_clock::now();
  auto outcome = std::make_shared<Outcome>();
  outcome->dropped = ctx_.state.jobs_dropped();
  auto view = std::make_shared<sched::ClusterView>(views_.build(true, true, &outcome->jobs));
  // What the last pass worked out, for this one: only passes use it, one at a time.
  if (!pass_carry_) pass_carry_ = std::make_shared<sched::PassCarry>();
  view->accel.carry = pass_carry_;
  last_pass_cost_ = since(built);
  counters_.last_view_took = last_pass_cost_;
  const std::int64_t now = ctx_.sink.now();
  net::asio::post(pass_thread_, [this, view = std::move(view), outcome, now]() mutable {
    schedule(std::move(view), std::move(outcome), now);
  });
  // The periodic pass: MBD_SLEEP_TIME after the last one at the latest.
  sleep_timer_.expires_after(std::chrono::seconds(std::max(1, ctx_.conf().params.mbd_sleep_time)));
  sleep_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) request_pass();
  });
}

void SchedulingDriver::schedule(std::shared_ptr<sched::ClusterView> view, std::shared_ptr<Outcome> outcome,
                                std::int64_t now) {
  auto started = std::chrono::steady_clock::now();
  outcome->result = sched::schedule(*view, now);
  outcome->took = since(started);
  // Freed here rather than on the state thread: 100,000 JobViews take milliseconds.
  outcome->running = view->running.size();
  if (view.use_count() == 1) {
    view->pending.clear();
    outcome->spare = std::move(view->pending);
  }
  view.reset();
  net::asio::post(io_, [this, outcome = std::move(outcome)]() mutable { apply(std::move(*outcome)); });
}

void SchedulingDriver::apply(Outcome outcome) {
  views_.give_back(std::move(outcome.spare));
  auto applying = std::chrono::steady_clock::now();
  pass_running_ = false;
  ++counters_.passes;
  const std::int64_t now = ctx_.sink.now();
  std::vector<sched::JobKey> started;
  // The decisions, applied to the jobs' records by the rule of libsched/pass_apply.h.
  // No job starts while the event log refuses changes: its JOB_START could not be kept.
  const bool refused = !hooks_.log_refusal().empty();
  sched::ApplyTarget target;
  target.start = [&](const sched::Dispatch& d) { return !refused && start(d, started); };
  target.dispatched = [&](const std::string& host) { memory_.last_dispatch[host] = now; };
  // Reservations last while the pass renews them; the start of each is kept so
  // MAX_RESERVE_TIME can end it.
  target.reservations = [&](std::vector<sched::Reservation>& held) {
    std::map<sched::JobKey, sched::Reservation> kept;
    for (auto& r : held) kept[r.job] = std::move(r);
    memory_.reservations = std::move(kept);
  };
  target.find = [&](const sched::JobKey& key) { return started_job(ctx_.state.find_job(key)); };
  target.suspend = [&](const sched::Suspend& s) { suspend(*ctx_.state.find_job(s.job), s); };
  target.resume = [&](const sched::Resume& r) { resume(*ctx_.state.find_job(r.job)); };
  target.load_action = [&](const std::string& host) { memory_.last_load_action[host] = now; };
  // Pending jobs' marks go with their reasons in keep_reports, in one walk
  // (set_pending_reasons follows sched::carry_pending_mark's rule).
  sched::apply(outcome.result, target);
  keep_reports(outcome.result, outcome, now);
  const auto applied = since(applying);
  last_pass_cost_ += outcome.took + applied;
  counters_.last_stats = outcome.result.stats;
  counters_.last_took = outcome.took;
  counters_.max_took = std::max(counters_.max_took, outcome.took);
  counters_.total_took += outcome.took;
  counters_.took_seconds.observe(outcome.took);
  counters_.recent.push_back({now, std::chrono::duration<double, std::milli>(outcome.took).count(),
                              outcome.result.stats.jobs_pending, outcome.result.stats.jobs_considered,
                              static_cast<int>(started.size())});
  if (counters_.recent.size() > PassCounters::kRecent) counters_.recent.pop_front();
  counters_.dispatched_total += started.size();
  counters_.considered_total += static_cast<std::uint64_t>(std::max(0, outcome.result.stats.jobs_considered));
  if (!started.empty()) {
    // StartJob only once JOB_START is durable: a crash in between must not leave a job
    // running that the log says is pending.
    hooks_.when_durable([this, started = std::move(started)](bool ok) {
      if (ok) hooks_.start_on_hosts(started);
    });
  }
  log_pass(outcome.result, outcome.running, applied);
  if (pass_again_) request_pass();
}

bool SchedulingDriver::start(const sched::Dispatch& d, std::vector<sched::JobKey>& started) {
  Job* job = ctx_.state.find_job(d.job);
  if (!job || job->state != wire::JOB_PEND) return false;  // killed or stopped meanwhile
  // Hosts may have changed state while the pass ran.
  for (const auto& h : d.hosts) {
    const HostStatus s = hooks_.view.status_of(h);
    if (s != HostStatus::kOk && !sched::closed_by_pass(s)) return false;
  }
  wire::EventRecord ev;
  auto* e = ev.mutable_job_start();
  e->set_job_id(d.job.id);
  e->set_index(d.job.index);
  for (const auto& h : d.hosts) e->add_exec_hosts(h);
  add_gpu_uses(d.gpus, *e->mutable_gpus());
  e->set_run_estimate(d.estimate_s);
  ctx_.sink.record(ev);
  started.push_back(d.job);
  return true;
}

void SchedulingDriver::keep_reports(sched::PassResult& result, const Outcome& outcome, std::int64_t now) {
  guarantees_ = std::move(result.guarantees);
  throttles_ = std::move(result.throttles);
  // Jobs forgotten since the view was made: their pointers are gone, look every job up.
  const bool same_jobs = outcome.dropped == ctx_.state.jobs_dropped();
  ctx_.state.set_pending_reasons(result.reasons, now,
                                 same_jobs ? std::span<Job* const>(outcome.jobs) : std::span<Job* const>());
  ctx_.state.set_aps(result.aps);
}

void SchedulingDriver::log_pass(const sched::PassResult& result, size_t running,
                                std::chrono::microseconds applied) const {
  const auto& st = result.stats;
  if (st.jobs_considered == 0 && st.dispatched == 0 && result.suspends.empty() && result.resumes.empty()) return;
  ctx_.log->info(
      "pass {}: {} us (view {} us, applying {} us), {} pending, {} considered, {} dispatched, {} reserved, {} "
      "preempted, "
      "{} classes, {} running",
      counters_.passes, counters_.last_took.count(), counters_.last_view_took.count(), applied.count(), st.jobs_pending,
      st.jobs_considered, st.dispatched, st.reserved, st.preempted, st.classes, running);
}

void SchedulingDriver::suspend(Job& job, const sched::Suspend& decision) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  st->set_state(wire::JOB_SSUSP);
  st->set_reason(decision.reason);
  hooks_.signal_on_host(job, SIGSTOP);
  ctx_.sink.record(ev);
  ctx_.log->info("job {} suspended: {}", job_label(job.key), decision.reason);
}

void SchedulingDriver::resume(Job& job) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  st->set_state(wire::JOB_RUN);
  hooks_.signal_on_host(job, SIGCONT);
  ctx_.sink.record(ev);
  ctx_.log->info("job {} resumed", job_label(job.key));
}

}  // namespace lsf::mbd
