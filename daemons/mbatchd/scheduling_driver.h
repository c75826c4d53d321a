// SchedulingDriver: when and on what the scheduling pass runs, and what its decisions
// do to the state.
//
// A pass is requested by every change and starts a few milliseconds later, so a burst
// of changes shares one pass; MBD_SLEEP_TIME bounds the wait when nothing changes. The
// view is built on the state thread (ViewBuilder), the pass runs on the pass thread over
// that copy, and its result comes back to the state thread, where it is applied by
// libsched's rule (pass_apply.h): its decisions are checked again against the state of
// that moment, since jobs may have been killed and hosts closed in between. A JOB_START
// is recorded for each start, and the host is asked to start the job only once that
// record is durable.
//
// Owns: the pass timers and thread, the ViewBuilder, what passes leave for the next one
// (PassMemory, the PassCarry) and the last pass's reports (guarantees, throttles,
// counters). Nothing of it is persistent: a restarted mbatchd begins afresh, as LSF's.
// Thread: the state thread (the io_context), except sched::schedule(), which runs on
// the pass thread over the view and its own result only, one pass at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemons/common/asio.h"
#include "daemons/common/histogram.h"
#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/view_builder.h"
#include "libsched/pass.h"

namespace lsf::sched {
struct PassCarry;
}

namespace lsf::mbd {

struct SchedulingHooks {
  ViewHooks view;
  // Host tracking: sends StartJob for these started jobs, one call per first host.
  std::function<void(const std::vector<sched::JobKey>& jobs)> start_on_hosts;
  // Host tracking: sends `signal` to a running job (SIGSTOP, SIGCONT).
  std::function<void(const Job& job, int signal)> signal_on_host;
  // The event log: why it takes no change now (empty: it does), asked without counting
  // a refused request; and `done(ok)` once everything recorded so far is durable.
  std::function<std::string()> log_refusal;
  std::function<void(std::function<void(bool ok)> done)> when_durable;
};

// One pass as the dashboard lists the last few.
struct PassRecord {
  std::int64_t time = 0;  // when its result was applied (wall-clock seconds)
  double ms = 0;          // sched::schedule() alone
  int pending = 0, considered = 0, dispatched = 0;
};

// What badmin perfmon shows of the passes.
struct PassCounters {
  static constexpr std::size_t kRecent = 30;
  std::uint64_t passes = 0;
  std::chrono::microseconds last_took{0}, max_took{0}, total_took{0};  // sched::schedule() alone
  std::chrono::microseconds last_view_took{0};                         // building the view
  std::uint64_t dispatched_total = 0;
  std::uint64_t considered_total = 0;  // jobs the passes looked at, summed
  sched::PassStats last_stats;
  net::Histogram took_seconds;    // sched::schedule() alone, every pass
  std::deque<PassRecord> recent;  // the last kRecent passes, oldest first
};

class SchedulingDriver {
 public:
  SchedulingDriver(ComponentContext ctx, const ConfigIndex& index, net::asio::io_context& io, SchedulingHooks hooks);

  // Something changed: a pass soon (coalescing a burst), or again after the one
  // under way.
  void request_pass();
  // A pass no sooner than `delay` from now (a job's pre-exec retry pause ends then).
  void request_pass_after(std::chrono::seconds delay);
  // Stopping: no more passes are started.
  void cancel_timers();
  // Waits for a pass under way on the pass thread (its result is not applied).
  void join();

  // The view of the state now, without pending jobs when `with_pending` is false; see
  // ViewBuilder::build.
  sched::ClusterView build_view(bool with_pending = true, bool leases = true) const {
    return views_.build(with_pending, leases);
  }
  sched::ResourceMap host_resources(const std::string& host) const { return views_.host_resources(host); }
  void reconfigured() { views_.reconfigured(); }

  // What a pass hands back to the state thread.
  struct Outcome {
    sched::PassResult result;
    size_t running = 0;  // running jobs in its view (for the log)
    std::chrono::microseconds took{0};
    // The Job behind each of the view's pending jobs, valid while state.jobs_dropped()
    // is still `dropped`.
    std::vector<Job*> jobs;
    std::uint64_t dropped = 0;
    std::vector<sched::JobView> spare;  // the view's pending storage, for the next view
  };
  // Applies a pass's result to the state: starts (recorded, then sent once durable),
  // reservations, suspends and resumes, pending reasons; keeps its reports.
  void apply(Outcome outcome);

  // The last pass's reports.
  const std::map<sched::JobKey, sched::Reservation>& reservations() const { return memory_.reservations; }
  const std::map<std::string, std::int64_t>& last_dispatch() const { return memory_.last_dispatch; }
  const std::vector<sched::GuaranteeReport>& guarantees() const { return guarantees_; }
  const std::vector<sched::ThrottleUse>& throttles() const { return throttles_; }
  const PassCounters& counters() const { return counters_; }

 private:
  void run_pass();
  // On the pass thread.
  void schedule(std::shared_ptr<sched::ClusterView> view, std::shared_ptr<Outcome> outcome, std::int64_t now);
  // Starts d.job on d.hosts unless it or a host changed meanwhile; false: not started.
  bool start(const sched::Dispatch& d, std::vector<sched::JobKey>& started);
  void suspend(Job& job, const sched::Suspend& decision);
  void resume(Job& job);
  void keep_reports(sched::PassResult& result, const Outcome& outcome, std::int64_t now);
  void log_pass(const sched::PassResult& result, size_t running, std::chrono::microseconds applied) const;

  ComponentContext ctx_;
  net::asio::io_context& io_;
  SchedulingHooks hooks_;
  PassMemory memory_;
  ViewBuilder views_;
  net::asio::thread_pool pass_thread_{1};
  net::asio::steady_timer pass_timer_;   // the coalesced pass
  net::asio::steady_timer sleep_timer_;  // MBD_SLEEP_TIME after the last one
  net::asio::steady_timer retry_timer_;  // when a failed pre-exec may be retried
  bool pass_scheduled_ = false;
  bool pass_running_ = false;
  bool pass_again_ = false;
  // What each pass works out and the next one reuses (host matching, job slot limit
  // counts); passes only.
  std::shared_ptr<sched::PassCarry> pass_carry_;
  std::vector<sched::GuaranteeReport> guarantees_;  // as the last pass left them
  std::vector<sched::ThrottleUse> throttles_;       // the same, for blimits
  PassCounters counters_;
  // State-thread time of the last pass (view, applying) plus its run: passes space out
  // by it.
  std::chrono::microseconds last_pass_cost_{0};
};

}  // namespace lsf::mbd
