// HostTracker: mbatchd's side of the sbatchds. It takes their registrations and load
// reports, works out a host's status (HostStatus, host_status.h) when asked, notices
// hosts that stop reporting (unreach after two report intervals, unavail after
// MAX_SBD_FAIL more, as LSF's mbatchd does) and makes the calls to them: StartJob and
// SignalJob, with the retries their failures need.
//
// Owns: a HostLink per host that registered or sent its clock; the StartJobs whose
// outcome is unknown and the signals not yet delivered; its two timers (host checks,
// start retries), and since when each lost host has been lost. Reads SBD_SLEEP_TIME,
// MAX_SBD_FAIL, REMOVE_HUNG_JOBS_FOR, JOB_TERMINATE_INTERVAL, LSB_USE_SEQUENTIAL_SIGNAL
// and the state's jobs and hosts; records the requeues of jobs a host lost or never
// started, and ends those a lost host held too long (check_hosts()). What a job's end
// means (requeue on exit, pre-exec retries, acct) is not here: finish_job and
// make_launch are hooks.
// Thread: the state thread (the io_context). Calls to a host run on the outbound pool,
// one at a time and in order per host (a strand each), and their results are posted
// back to the io_context before `done` runs.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemons/common/asio.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/host_status.h"
#include "libsched/model/policy.h"

namespace lsf::mbd {

// The exit reason of a job ended because its host was lost (REMOVE_HUNG_JOBS_FOR).
inline constexpr std::string_view kRemovedHung = "TERM_REMOVE_HUNG_JOB";

// What mbatchd knows about an sbatchd beyond the persistent HostState.
struct HostLink {
  std::string address;
  std::uint16_t port = 0;
  bool registered = false;
  // Declared lost (unavail): only a registration brings it back, since that is what
  // tells mbatchd which runs it still has. A late job report must not revive it.
  bool lost = false;
  std::chrono::steady_clock::time_point last_report{};
  wire::LoadIndices load;
  // Calls to this sbatchd run one at a time, in order, off the state thread.
  std::unique_ptr<net::asio::strand<net::asio::thread_pool::executor_type>> strand;
  std::shared_ptr<net::RpcClient> client;
  // StartJobs this sbatchd refused or could not be sent, in a row: the host is not
  // used (unreach) until `unreach_until`, twice as long after each, up to a minute.
  int start_failures = 0;
  std::chrono::steady_clock::time_point unreach_until{};
  std::chrono::steady_clock::time_point last_refusal_log{};  // of its registration
  std::string last_refusal;
  // The master's clock minus the host's, as its last report measured it (transit
  // included): job times the host reports are moved by it.
  std::int64_t clock_offset_ms = 0;
  // The offsets of its last reports. Each is the clock difference plus the time the
  // request took to be read (never less), which can be seconds on a busy master: the
  // smallest is the estimate. A registration starts them afresh.
  std::array<std::int64_t, 8> clock_samples{};
  int clock_sample_count = 0;
  int clock_sample_next = 0;
  bool clock_warned = false;
  // Its last request was refused for its clock: what that request claimed, unproven,
  // so shown by bhosts -l but never used to move job times.
  bool clock_refused = false;
  std::int64_t refused_clock_offset_ms = 0;
  std::chrono::steady_clock::time_point last_refused_clock_log{};
};

// A signal a host could not be sent, sent again when the host registers.
struct UndeliveredSignal {
  int signal = 0;
  std::string exit_reason;
  std::optional<int> terminate_interval_s;
};

// Load indices and host sizes an sbatchd reports, by the names select[], order[] and
// thresholds use; NaN for a name it does not report.
inline constexpr std::string_view kReportedLoad[] = {"r15s", "r1m", "r15m", "ut",    "pg",     "ls",     "it",
                                                     "tmp",  "swp", "mem",  "ncpus", "maxmem", "maxswp", "maxtmp"};
double load_value(const wire::LoadIndices& load, std::string_view index);

// Ok when mbatchd can reach an sbatchd at the address it advertises; else why not.
daemon::Status check_advertised(const wire::RegisterHostRequest& r, const net::Peer& peer);

struct HostTrackerHooks {
  // The scheduling policy of the configuration in force (MXJ, thresholds, windows).
  std::function<const sched::SchedPolicy&()> policy;
  std::function<void()> request_pass;
  // Whether a job lost with its host goes back to PEND (bsub -r, else profile, queue).
  std::function<bool(const Job&)> rerunnable;
  // Ends a job (its record, its lsb.acct line): one its host no longer knows.
  std::function<void(Job&, wire::JobState, int wait_status, const std::string& reason)> finish_job;
  // The StartJob launch of a job that runs; false when it no longer does.
  std::function<bool(const sched::JobKey&, wire::JobLaunch&)> make_launch;
  // Runs `then` once what was recorded so far is durable (true), or never will be.
  std::function<void(std::function<void(bool)> then)> when_durable;
  // Runs before each host check (every 500 ms): mbatchd watches its event log there.
  // False stops the checks. Empty: always go on.
  std::function<bool()> before_check;
  // MultiCluster; empty: no borrowed hosts and no consumers' jobs.
  // The cluster a host is borrowed from ("hostA@provider": "provider"); empty: ours.
  std::function<std::string(const std::string& host)> borrowed_from;
  // A borrowed host's status as its provider last offered it (bhosts' word).
  std::function<std::string(const std::string& host)> borrowed_status;
  std::function<void(const std::string& host, wire::RequestEnvelope, std::function<void(const net::CallResult&)>)>
      relay_to_provider;
  // A job a registering sbatchd runs for a consumer cluster: true when it is one (then
  // taken as leased, and leases_changed runs once after the registration's jobs).
  std::function<bool(const std::string& host, const wire::RunningJob&)> adopt_lease_job;
  std::function<void()> leases_changed;
  // Clocks, for tests; empty: the system's. Steady: report ages and backoff; wall (ms):
  // how far a host's clock is from ours.
  std::function<std::chrono::steady_clock::time_point()> steady_now;
  std::function<std::int64_t()> wall_ms;
};

class HostTracker {
 public:
  // `outbound`: the pool calls to hosts run on; `key`: signs them.
  HostTracker(ComponentContext ctx, net::asio::io_context& io, net::asio::thread_pool& outbound,
              std::optional<net::ClusterKey> key, HostTrackerHooks hooks);

  // Checks hosts every 500 ms from now on; stop() ends that and the start retries.
  void start();
  // The master's term, carried by every call to an sbatchd (master_role.h).
  void set_master_epoch(std::int64_t epoch) { master_epoch_ = epoch; }
  void stop();

  // --- what sbatchds send (host_tracker.cc)
  void on_register_host(const wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  void on_load_report(const wire::RequestEnvelope& request, const net::Responder& respond);
  // A job report from `host`: it is alive, as a load report would say.
  void note_report(const std::string& host);
  // The host reported on the job: its StartJob arrived.
  void start_confirmed(const sched::JobKey& key) { start_unknown_.erase(key); }
  // Notes how far `host`'s clock (in ms, as it sent it) is from ours; logs a large gap
  // once. `refused`: its requests are refused for it (unsigned data: shown, not used).
  void note_clock(const std::string& host, std::int64_t host_clock_ms, bool refused = false);
  // When the host says the job's event happened, on the master's clock; 0: it did not say.
  std::int64_t reported_time(const Job& job, const wire::JobStatusRequest& report) const;

  // --- host status (host_tracker.cc)
  // Worked out now; a borrowed host's as its provider last offered it.
  HostStatus status_of(const std::string& host) const;
  // The same by name, as bhosts shows it; a borrowed host keeps the name its provider sent.
  std::string host_status(const std::string& host) const;
  int host_max_slots(const std::string& host) const;  // MXJ as the policy resolved it
  std::chrono::milliseconds report_interval() const;  // SBD_SLEEP_TIME
  // Compares each host's status with the last check's and logs changes; handles lost
  // hosts (below); asks for a pass when anything changed.
  //
  // A host is lost once it is unavail: silent for 2 + 2 x MAX_SBD_FAIL report
  // intervals, or, for one that has not registered since this mbatchd started (every
  // host after a whole-cluster restart), that long after the start. Its rerunnable
  // jobs (and those whose start it never confirmed) go back to PEND at once; the others
  // show UNKWN and, REMOVE_HUNG_JOBS_FOR's host_unavail wait_time later, end EXIT
  // (TERM_REMOVE_HUNG_JOB). Should the host come back with such a job still running,
  // its registration has that copy killed: the job is never counted twice.
  void check_hosts();
  const HostLink* link(const std::string& host) const;
  const std::map<std::string, HostLink>& links() const { return links_; }

  // --- calls to sbatchds (host_calls.cc)
  void call_host(const std::string& host, wire::RequestEnvelope request,
                 std::function<void(const net::CallResult&)> done);
  // Sends StartJob for these jobs, one call per first execution host.
  void start_on_hosts(const std::vector<sched::JobKey>& keys);
  // A StartJob that may or may not have arrived: asked again until the host answers
  // (a report, or its registration), or requeued once the host is unavail.
  void start_unknown(const sched::JobKey& key, const std::string& host, const std::string& why);
  void recheck_unknown_starts();
  // A StartJob the host certainly did not take: the job is requeued and the host rests.
  void start_failed(const std::vector<sched::JobKey>& keys, const std::string& host, const std::string& why);
  // Kills a run of a job that is no longer the job's current one (a late StartJob).
  void kill_stale_run(const wire::JobStatusRequest& report);
  // `terminate_interval_s`: LSF's TERMINATE action (SIGINT, SIGTERM, SIGKILL that many
  // seconds apart, run by sbatchd) instead of `signal` alone.
  void signal_on_host(const Job& job, int signal, const std::string& exit_reason,
                      std::optional<int> terminate_interval_s = std::nullopt);
  // bkill: the TERMINATE action, JOB_TERMINATE_INTERVAL apart, or SIGKILL alone for a
  // parallel job unless LSB_USE_SEQUENTIAL_SIGNAL=Y, as in LSF.
  void terminate_on_host(const Job& job, const std::string& exit_reason);
  // The interval the TERMINATE action uses for `job`; -1 for SIGKILL alone.
  int terminate_interval(const Job& job) const;
  // Signals a host could not be sent (not registered yet), sent when it registers.
  void resend_signals(const std::string& host);
  const std::map<sched::JobKey, UndeliveredSignal>& undelivered() const { return undelivered_; }
  // Started jobs whose StartJob's outcome is unknown, with the attempt it was for.
  const std::map<sched::JobKey, std::int32_t>& starts_unknown() const { return start_unknown_; }

 private:
  // A host that stopped answering for good takes its rerunnable jobs, and those it
  // never confirmed, back to PEND.
  // True when it recorded anything.
  bool requeue_lost_jobs(const std::string& host);
  // Ends the jobs still started on a host lost for longer than REMOVE_HUNG_JOBS_FOR
  // allows; true when it ended any.
  bool remove_hung_jobs(const std::string& host);
  bool is_lost(const std::string& host, std::chrono::steady_clock::time_point now) const;
  std::chrono::steady_clock::duration unavail_after() const;
  void arm_check();
  void arm_start_retry();
  std::chrono::steady_clock::time_point steady_now() const;
  std::string borrowed_from(const std::string& host) const;

  ComponentContext ctx_;
  net::asio::io_context& io_;
  net::asio::thread_pool& outbound_;
  std::optional<net::ClusterKey> key_;
  HostTrackerHooks hooks_;
  std::map<std::string, HostLink> links_;
  std::int64_t master_epoch_ = 0;
  std::map<std::string, HostStatus> last_statuses_;  // as the last check saw them
  // Since when each lost host has been lost (check_hosts()).
  std::map<std::string, std::chrono::steady_clock::time_point> lost_since_;
  // When this mbatchd began to expect registrations (construction, then start()).
  std::chrono::steady_clock::time_point expecting_since_;
  std::map<sched::JobKey, UndeliveredSignal> undelivered_;
  std::map<sched::JobKey, std::int32_t> start_unknown_;
  net::asio::steady_timer check_timer_;
  net::asio::steady_timer start_retry_timer_;
};

}  // namespace lsf::mbd
