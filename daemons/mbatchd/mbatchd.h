// mbatchd: owns the cluster's state, serves requests, logs every change before it is
// acknowledged, and runs the scheduling pass.
//
// Threads: one runs the io_context and is the only one that touches state; the event
// log has its writer thread (group commit); the scheduling pass runs on its own thread
// over a snapshot of the state; calls to sbatchds run on a small pool, in order per
// host. Results of the last three come back to the io_context by asio::post.
//
// Parts with their own header: the request table (router.h, filled in routes.cc),
// the event sink changes are recorded through (event_sink.h), the lifecycle
// (lifecycle.h), host statuses (host_status.h), the state itself (cluster_state.h) and
// the event log (event_log_writer.h, event_log_reader.h), and the components split
// out of this class: Queries (queries.h: bhist, bacct), JobQueries (job_queries.h:
// bjobs, bwait), ConfigQueries (config_queries.h: bqueues, bhosts, bparams, busers,
// blimits and the other configuration and usage queries), ClusterLinks (cluster_links.h:
// MultiCluster offers, leases, relays, shared resources), HostTracker (host_tracker.h:
// the sbatchds' registrations and load reports, host status, and the StartJob and
// SignalJob calls to them), the SchedulingDriver (scheduling_driver.h: the view, the
// pass on its thread, applying its result; with view_builder.h and job_policy.h). The
// member functions below are grouped by the file that defines them.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <spdlog/logger.h>

#include "daemons/common/asio.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/common/thread_owner.h"
#include "daemons/mbatchd/cluster_links.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/config_queries.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "daemons/mbatchd/event_sink.h"
#include "daemons/mbatchd/host_status.h"
#include "daemons/mbatchd/host_tracker.h"
#include "daemons/mbatchd/job_id_mark.h"
#include "daemons/mbatchd/job_policy.h"
#include "daemons/mbatchd/job_queries.h"
#include "daemons/mbatchd/lifecycle.h"
#include "daemons/mbatchd/master_role.h"
#include "daemons/mbatchd/queries.h"
#include "daemons/mbatchd/router.h"
#include "daemons/mbatchd/scheduling_driver.h"
#include "libconfig/cluster_config.h"
#include "libsched/pass.h"

namespace lsf::mbd {

// Ok when `path` can name a job group ("/a/b": letters, digits, _ - .); else why not.
daemon::Status check_job_group_path(const std::string& path);
// Whether a job of `job_group` is in the group `path`: that group or one below it.
bool in_job_group(const std::string& job_group, const std::string& path);

struct MbatchdOptions {
  std::filesystem::path envdir;
  std::shared_ptr<const config::ClusterConfig> config;
  std::string host_name;  // this host's name in logs and lsid
  std::string listen_address = "0.0.0.0";
  std::shared_ptr<spdlog::logger> log;
  std::optional<net::ClusterKey> key;                // signs calls to sbatchd, checks calls from them
  bool trust_unsigned = false;                       // LSF_AUTH=none
  std::map<std::string, net::ClusterKey> pair_keys;  // MultiCluster: the key shared with each remote cluster
  net::ServerOptions limits;                         // connection limits and timeouts (lsf.conf)
  // The previous run stopped on a failed write to the event log: the recovered state
  // goes into a fresh lsb.snapshot and lsb.events before any change is taken.
  bool fresh_snapshot = false;
  // How lsb.events is written. Tests replace its DiskOps (a failing disk; the fuzz
  // harness makes fdatasync a no-op); the daemon keeps the defaults. snapshot_first
  // comes from fresh_snapshot.
  EventLogOptions event_log;
  // This mbatchd's term as master, acquired before recover() (master_role.h); none in
  // tests that make an Mbatchd without failover.
  std::shared_ptr<MasterRole> role;
};

// Where lsb.events, lsb.snapshot and lsb.acct live.
std::filesystem::path logdir_of(const config::ClusterConfig& config);

class Mbatchd {
 public:
  explicit Mbatchd(MbatchdOptions options);
  ~Mbatchd();

  // Replays lsb.snapshot and lsb.events; else why mbatchd must not start.
  daemon::Status recover();
  // Opens the event log and the port.
  daemon::Status start();
  void run();   // until stop()
  void stop();  // from any thread

  std::uint16_t port() const { return server_ ? server_->port() : 0; }
  // The request fuzz harness (tests/fuzz/request_fuzz.cc) calls handle() directly and
  // runs io_ itself, as the RPC server and run() would; nothing else may.
  friend struct MbatchdFuzzAccess;
  // After run() returns: badmin mbdrestart asked for a fresh process.
  bool restart_requested() const { return lifecycle_.restart_requested(); }
  // After run() returns: it stopped because a write to the event log failed after the
  // change was applied (see event_log_writer.h); it must start again from the log, with
  // fresh_snapshot.
  bool event_log_failed() const { return lifecycle_.event_log_failed(); }
  // After run() returns: another master took a later term; this one stepped down.
  bool fenced() const { return lifecycle_.was_fenced(); }

 private:
  // --- state changes, recovery, start and stop (mbatchd.cc; record, reply_when_durable and
  // the refusals forward to sink_, event_sink.h)
  std::int64_t now() const;
  // Stamps (with `at`, when the event happened earlier, else now), applies, appends.
  void record(wire::EventRecord& event, std::int64_t at = 0);
  void reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply);
  // Empty while state changes may be made; else the refusal to send ("cannot write the
  // event log: No space left on device"), logged once per interval, not per request.
  std::string log_refusal();
  void note_refusal(const std::string& cause);
  // A write the state already reflects failed: stops mbatchd (once). When the cause is
  // a later master's term, mbatchd steps down instead of restarting.
  void on_event_log_failure();
  // Each EXINTERVAL: the master's lease is renewed; a later term makes it step down.
  void renew_lease();
  void step_down();  // fenced: a later term exists
  void maybe_snapshot();
  wire::Snapshot snapshot_now() const;  // the state, stamped with this master's term
  // Queues the rotation fresh_snapshot asks for, and again each second until it is made.
  void write_fresh_snapshot();
  void finish_job(Job& job, wire::JobState state, int wait_status, double cpu, std::int64_t rss,
                  const std::string& reason, std::int64_t at = 0);
  // --- the request table (routes.cc; router.h states its rules)
  std::unique_ptr<RequestRouter> make_router();
  void handle(wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  // --- bsub, bkill, host and queue control, badmin reconfig, bmove, brun
  // (request_handlers.cc)
  void on_submit(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_submit_pack(const wire::RequestEnvelope& request, const net::Responder& respond);
  // Checks and records one submission; else the refusal.
  daemon::Status submit_one(const wire::JobSpec& spec, const wire::Identity& caller, wire::SubmitReply& out);
  void on_signal_jobs(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_host_control(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_queue_control(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_reconfig(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_job_move(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_force_run(const wire::RequestEnvelope& request, const net::Responder& respond);
  // The job's requirement merged with its application's and queue's (job_queries.h).
  std::optional<config::ResourceRequirement> merged_requirement(const Job& job) const {
    return mbd::merged_requirement(*config_, job);
  }
  daemon::Status check_submission(const wire::JobSpec& spec, std::string& queue, bool& default_queue,
                                  std::vector<std::int32_t>& indices) const;
  // -app: the profile exists, and -n falls within its PROCLIMIT (without -n, the job
  // takes the profile's default). Fills those defaults into `spec`.
  daemon::Status check_application(wire::JobSpec& spec) const;
  // --- brequeue, bswitch, bmod, bmig (job_changes.cc)
  // Tells a running job's sbatchd its run and memory limits as the spec now sets them.
  void send_limits(const Job& job);
  void on_requeue(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_switch(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_modify(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_migrate(const wire::RequestEnvelope& request, const net::Responder& respond);
  // Ok when `queue` takes a job with this spec, as it would at submission; else why not.
  daemon::Status check_in_queue(const wire::JobSpec& spec, const std::string& queue,
                                std::string* resolved = nullptr) const;
  // The jobs a control request names: each reference's job or elements; job id 0:
  // every unfinished job of `user_for_zero` ("all": everyone's). Unknown ids get a
  // failed result in `out`.
  std::vector<Job*> named_jobs(const google::protobuf::RepeatedPtrField<wire::JobRef>& refs,
                               const std::string& user_for_zero, wire::SignalJobsReply* out);
  // --- job input and bpeek, answered by the job's host (info_handlers.cc)
  void on_job_input(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_peek(const wire::RequestEnvelope& request, const net::Responder& respond);
  // --- what job_queries_ and config_queries_ ask of the rest of mbatchd (query_hooks.cc)
  JobQueriesHooks job_queries_hooks();
  ConfigQueriesHooks config_queries_hooks();
  // --- job groups (job_groups.cc)
  void on_job_group_control(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_job_groups(const wire::RequestEnvelope& request, const net::Responder& respond);
  // Records the groups of `path` that do not exist yet (parents first), owned by `user`.
  void ensure_job_group(const std::string& path, const std::string& user);
  // The job groups the pass must count (those with a limit and those below them),
  // with each group's index by path.
  void add_job_groups(sched::ClusterView& view, std::unordered_map<std::string, int>& index) const;
  // --- job status reports from sbatchds (host_links.cc); the hosts themselves are
  // hosts_'s (host_tracker.h)
  void on_job_status(const wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  void apply_job_status(const wire::JobStatusRequest& report);
  bool requeue_on_exit(Job& job, int exit_code);
  void pre_exec_failed(Job& job, int wait_status);
  // A running job's StartJob launch: its spec with its profile's and queue's commands
  // and limits; false when it does not run.
  bool make_launch(const sched::JobKey& key, wire::JobLaunch& launch) const;
  // What hosts_ asks of the rest of mbatchd.
  HostTrackerHooks host_tracker_hooks();
  // Forwards to hosts_ for the files that call them.
  void start_on_hosts(const std::vector<sched::JobKey>& keys) { hosts_.start_on_hosts(keys); }
  void signal_on_host(const Job& job, int signal, const std::string& exit_reason,
                      std::optional<int> terminate_interval_s = std::nullopt) {
    hosts_.signal_on_host(job, signal, exit_reason, terminate_interval_s);
  }
  void terminate_on_host(const Job& job, const std::string& exit_reason) { hosts_.terminate_on_host(job, exit_reason); }
  void resend_signals(const std::string& host) { hosts_.resend_signals(host); }
  void call_host(const std::string& host, wire::RequestEnvelope request,
                 std::function<void(const net::CallResult&)> done) {
    hosts_.call_host(host, std::move(request), std::move(done));
  }
  HostStatus status_of(const std::string& host) const { return hosts_.status_of(host); }
  std::string host_status(const std::string& host) const { return hosts_.host_status(host); }
  int host_max_slots(const std::string& host) const { return hosts_.host_max_slots(host); }
  std::chrono::milliseconds report_interval() const { return hosts_.report_interval(); }
  // --- MultiCluster: ClusterLinks (cluster_links.h) does it; what the other files call
  ClusterLinksHooks cluster_links_hooks();  // mbatchd.cc
  std::string borrowed_from(const std::string& host) const { return cluster_links_.borrowed_from(host); }
  std::string borrowed_host_status(const std::string& host) const { return cluster_links_.borrowed_host_status(host); }
  std::map<std::string, wire::OfferedHost> borrowed_hosts() const { return cluster_links_.borrowed_hosts(); }
  void add_borrowed_hosts(sched::ClusterView& view) const { cluster_links_.add_borrowed_hosts(view, last_dispatch()); }
  void relay_to_provider(const std::string& host, wire::RequestEnvelope request,
                         std::function<void(const net::CallResult&)> done) {
    cluster_links_.relay_to_provider(host, std::move(request), std::move(done));
  }
  // `done` gets empty once all consumers have them, else why not.
  void forward_lease_reports(const std::vector<wire::JobStatusRequest>& reports,
                             std::function<void(std::string)> done) {
    cluster_links_.forward_lease_reports(reports, [done](daemon::Status s) { done(s.message()); });
  }
  std::pair<std::string, std::int64_t> lease_job_owner(std::int64_t id) const {
    return cluster_links_.lease_job_owner(id);
  }
  static bool is_lease_job_id(std::int64_t id) { return ClusterLinks::is_lease_job_id(id); }
  void add_leased_job(const std::string& consumer, const std::string& host, wire::JobLaunch launch,
                      std::optional<bool> stopped = std::nullopt) {
    cluster_links_.add_leased_job(consumer, host, std::move(launch), stopped);
  }
  bool is_leased_job(const sched::JobKey& ref) const { return cluster_links_.is_leased_job(ref); }
  void add_leased_jobs(const wire::JobsRequest& q, const std::string& user, wire::JobsReply& out) const {
    cluster_links_.add_leased_jobs(q, user, out);
  }
  void update_lent_slots() { cluster_links_.update_lent_slots(); }
  int lent_slots(const std::string& host) const { return cluster_links_.lent_slots(host); }
  void offer_to_consumers() { cluster_links_.offer_to_consumers(); }
  std::shared_ptr<const sched::SchedPolicy> policy_with_leased_resources() const {
    return cluster_links_.policy_with_leased_resources();
  }
  // --- scheduling: forwards to scheduling_ (scheduling_driver.h) and job_policy.h,
  // and the driver's hooks (scheduling_hooks.cc)
  SchedulingHooks scheduling_hooks();
  void request_pass() { scheduling_.request_pass(); }
  // A pass when a failed pre-exec may be retried.
  void request_pass_after(std::chrono::seconds delay) { scheduling_.request_pass_after(delay); }
  // Without pending jobs (`with_pending` false) for queries that count only what runs;
  // `leases`: with shared resources as leases change them (ViewBuilder::build).
  sched::ClusterView build_view(bool with_pending = true, bool leases = true) const {
    return scheduling_.build_view(with_pending, leases);
  }
  sched::ResourceMap host_resources(const std::string& host) const { return scheduling_.host_resources(host); }
  const std::map<sched::JobKey, sched::Reservation>& reservations() const { return scheduling_.reservations(); }
  const std::vector<sched::GuaranteeReport>& guarantees() const { return scheduling_.guarantees(); }
  const std::vector<sched::ThrottleUse>& throttles() const { return scheduling_.throttles(); }
  const std::map<std::string, std::int64_t>& last_dispatch() const { return scheduling_.last_dispatch(); }
  const PassCounters& pass_counters() const { return scheduling_.counters(); }
  sched::DependencyState dependency_state(const Job& job) const { return mbd::dependency_state(*config_, state_, job); }
  sched::DependencyState evaluate_dependency(const sched::DependencyExpr& dep) const {
    return mbd::evaluate_dependency(*config_, state_, dep);
  }
  std::int64_t effective_run_limit(const Job& job) const { return mbd::effective_run_limit(*config_, job); }
  const config::Application* application(const Job& job) const { return mbd::application(*config_, job); }
  bool rerunnable(const Job& job) const { return mbd::rerunnable(*config_, job); }
  // --- who may do what (permissions.cc)
  bool is_admin(const wire::Identity& caller) const;  // root or a ClusterAdmin
  // `name` is the user, `all`, or an lsb.users group the user is in (nested groups expanded).
  bool names_user(const std::string& name, const std::string& user) const;
  // An LSF administrator, or one of the queue's ADMINISTRATORS.
  bool is_queue_admin(const wire::Identity& caller, const std::string& queue) const;
  // bsub/bmod -sp: enabled by MAX_USER_PRIORITY, which only administrators may pass.
  daemon::Status check_user_priority(int priority, const wire::Identity& caller, const std::string& queue) const;
  // Whether the caller acts on this job with an administrator's authority (what the
  // job's end reason and suspend reason then say).
  bool acts_as_admin(const wire::Identity& caller, const Job& job) const;
  bool may_control(const wire::Identity& caller, const Job& job) const;  // owner or admin

  MbatchdOptions options_;
  std::shared_ptr<const config::ClusterConfig> config_;
  ConfigIndex config_index_;
  Queries queries_{config_, options_.host_name};  // bhist, bacct (queries.h)
  std::shared_ptr<spdlog::logger> log_;
  net::asio::io_context io_;
  net::asio::executor_work_guard<net::asio::io_context::executor_type> work_;
  net::asio::thread_pool outbound_{2};
  ClusterState state_;
  // The thread that may touch state_ and everything below: the one that runs io_
  // (run() binds it; before, the one that recovers and starts). Debug builds check it
  // in handle() and record().
  daemon::ThreadOwner state_thread_;
  std::unique_ptr<EventLogWriter> event_log_;
  std::unique_ptr<net::asio::steady_timer> lease_timer_;  // renew_lease(), with options_.role
  LogEventSink sink_;                                     // record() and the refusals go through it (event_sink.h)
  // MultiCluster links, leases and exports; declared after what it is built with.
  ClusterLinks cluster_links_{ComponentContext{config_, state_, sink_, log_}, cluster_links_hooks(),
                              ClusterTransport{io_, outbound_, options_.pair_keys}};
  std::unique_ptr<net::RpcServer> server_;
  std::unique_ptr<RequestRouter> router_;
  HostTracker hosts_;  // sbatchds: registration, load, status, calls (host_tracker.h)
  // Read-only forwards of hosts_'s data for the files that read them.
  const std::map<std::string, HostLink>& links_ = hosts_.links();
  const std::map<sched::JobKey, UndeliveredSignal>& undelivered_ = hosts_.undelivered();
  std::uint64_t valid_log_bytes_ = 0;
  JobIdMark job_ids_{""};
  Lifecycle lifecycle_;  // recovering, serving, stopping; restart asked; log failed

  net::asio::steady_timer snapshot_timer_;  // the next try of write_fresh_snapshot
  std::uint64_t snapshot_tries_ = 0;
  // Jobs brequeue or bmig killed, requeued when their end is reported. In memory only:
  // after a restart such a job ends as killed.
  struct RequeueAfterKill {
    bool hold = false;    // brequeue -H
    bool to_top = false;  // bmig: ahead of the jobs waiting in its queue
  };
  std::map<sched::JobKey, RequeueAfterKill> requeue_after_kill_;
  std::uint64_t config_generation_ = 1;  // bumped by every applied reconfig
  std::uint64_t submissions_total_ = 0;
  std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
  std::int64_t start_wall_time_ = static_cast<std::int64_t>(std::time(nullptr));
  std::int64_t last_reconfig_time_ = 0;
  // The read-only queries: bjobs and bwait (job_queries.h); bqueues, bhosts and the
  // configuration and usage queries (config_queries.h).
  JobQueries job_queries_{ComponentContext{config_, state_, sink_, log_}, config_index_, job_queries_hooks()};
  ConfigQueries config_queries_{ComponentContext{config_, state_, sink_, log_}, config_index_, config_queries_hooks()};
  // The view, the pass and applying it (scheduling_driver.h); last, as it is built with
  // hooks into the rest.
  SchedulingDriver scheduling_;
};

}  // namespace lsf::mbd
