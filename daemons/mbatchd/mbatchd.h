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
// out of this class: EventLogCore (event_log_core.h: recovery by recovery.h's
// contract, the writer, lsb.jobid, snapshots), Queries (queries.h: bhist, bacct),
// JobQueries (job_queries.h: bjobs, bwait), ConfigQueries (config_queries.h: bqueues,
// bhosts, bparams, busers, blimits and the other configuration and usage queries),
// ClusterLinks (cluster_links.h: MultiCluster offers, leases, relays, shared
// resources), HostTracker (host_tracker.h: the sbatchds' registrations and load
// reports, host status, and the StartJob and SignalJob calls to them), the
// SchedulingDriver (scheduling_driver.h: the view, the pass on its thread, applying its
// result; with view_builder.h and job_policy.h), JobService (job_service.h: bsub, bkill,
// bstop, bresume, btop, brun, brequeue, bswitch, bmod, bmig) and Permissions
// (permissions.h: who may act on which job and queue). The metrics listener
// (metrics_endpoint.cc: /metrics, the dashboard) reads them all on the state thread.
// The member functions below are grouped by the file that defines them.
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
#include "daemons/common/http_server.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/common/thread_owner.h"
#include "daemons/mbatchd/cluster_links.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/config_queries.h"
#include "daemons/mbatchd/dashboard_history.h"
#include "daemons/mbatchd/event_log_core.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "daemons/mbatchd/event_sink.h"
#include "daemons/mbatchd/host_status.h"
#include "daemons/mbatchd/host_tracker.h"
#include "daemons/mbatchd/job_groups.h"
#include "daemons/mbatchd/job_id_mark.h"
#include "daemons/mbatchd/job_policy.h"
#include "daemons/mbatchd/job_queries.h"
#include "daemons/mbatchd/job_service.h"
#include "daemons/mbatchd/lifecycle.h"
#include "daemons/mbatchd/master_role.h"
#include "daemons/mbatchd/metrics.h"
#include "daemons/mbatchd/permissions.h"
#include "daemons/mbatchd/queries.h"
#include "daemons/mbatchd/request_stats.h"
#include "daemons/mbatchd/router.h"
#include "daemons/mbatchd/scheduling_driver.h"
#include "libconfig/cluster_config.h"
#include "libsched/pass.h"

namespace lsf::mbd {

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

class Mbatchd {
 public:
  explicit Mbatchd(MbatchdOptions options);
  ~Mbatchd();

  // Replays lsb.snapshot and lsb.events (EventLogCore::recover); else why mbatchd must
  // not start.
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
  // After run() returns: badmin mbdrestart handed the master role to a preferred
  // candidate; this process releases its term and exits instead of restarting.
  bool handed_over() const { return lifecycle_.handing_over(); }

 private:
  // --- start and stop, the master's term, a job's end (mbatchd.cc)
  std::int64_t now() const;
  // A write the state already reflects failed: stops mbatchd (once). When the cause is
  // a later master's term, mbatchd steps down instead of restarting.
  void on_event_log_failure();
  // Each EXINTERVAL: the master's lease is renewed; a later term makes it step down.
  void renew_lease();
  void step_down();  // fenced: a later term exists
  // badmin mbdrestart's switch-back (master_handover.cc): the first candidate before
  // this host in LSF_MASTER_LIST whose sbatchd is up; empty when there is none.
  std::string switch_back_target() const;
  void finish_job(Job& job, wire::JobState state, int wait_status, double cpu, std::int64_t rss,
                  const std::string& reason, std::int64_t at = 0);
  // --- the HTTP listener for /metrics (metrics_endpoint.cc)
  void start_metrics();
  net::HttpResponse on_http(const net::HttpRequest& request);
  MetricsInput metrics_input();
  void refresh_view_reports();  // when view_reports_ is older than ViewReports::kPeriod
  HealthMetrics health_metrics() const;
  void sample_history();  // every DashboardHistory::kInterval while the listener serves
  // badmin perfmon view's health figures, the same as /metrics gives.
  void fill_health(wire::PerfmonReply& out) const;
  // --- the request table (routes.cc; router.h states its rules)
  std::unique_ptr<RequestRouter> make_router();
  void handle(wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  // --- host and queue control, badmin reconfig and mbdrestart (admin_handlers.cc)
  void on_host_control(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_queue_control(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_reconfig(const wire::RequestEnvelope& request, const net::Responder& respond);
  // --- what job_service_ asks of the rest of mbatchd (job_service_hooks.cc)
  JobServiceHooks job_service_hooks();
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
  // --- job status reports from sbatchds and what they mean for the job (job_reports.cc);
  // the hosts themselves are hosts_'s (host_tracker.h)
  void on_job_status(const wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  void apply_job_status(const wire::JobStatusRequest& report);
  bool requeue_on_exit(Job& job, int exit_code);
  void pre_exec_failed(Job& job, int wait_status);
  // A running job's StartJob launch: its spec with its profile's and queue's commands
  // and limits; false when it does not run.
  bool make_launch(const sched::JobKey& key, wire::JobLaunch& launch) const;
  // What hosts_ asks of the rest of mbatchd.
  HostTrackerHooks host_tracker_hooks();
  // What cluster_links_ asks of the rest of mbatchd (mbatchd.cc).
  ClusterLinksHooks cluster_links_hooks();
  // What scheduling_ asks of the rest of mbatchd (scheduling_hooks.cc).
  SchedulingHooks scheduling_hooks();

  MbatchdOptions options_;
  std::shared_ptr<const config::ClusterConfig> config_;
  ConfigIndex config_index_;
  Permissions permissions_{*config_, config_index_};  // who may act on which job and queue (permissions.h)
  Queries queries_{config_, options_.host_name};      // bhist, bacct (queries.h)
  std::shared_ptr<spdlog::logger> log_;
  net::asio::io_context io_;
  net::asio::executor_work_guard<net::asio::io_context::executor_type> work_;
  net::asio::thread_pool outbound_{2};
  ClusterState state_;
  // The thread that may touch state_ and everything below: the one that runs io_
  // (run() binds it; before, the one that recovers and starts). Debug builds check it
  // in handle() and, through sink_, in every record any component makes.
  daemon::ThreadOwner state_thread_;
  std::unique_ptr<net::asio::steady_timer> lease_timer_;  // renew_lease(), with options_.role
  // What every component records through (event_sink.h).
  LogEventSink sink_{state_, log_, [this] { on_event_log_failure(); }, &state_thread_};
  // Recovery, lsb.events and its writer, lsb.jobid, snapshots (event_log_core.h).
  EventLogCore log_core_{config_, config_index_, state_, sink_, log_, io_, options_.role, options_.host_name};
  // log_core_'s writer and lsb.jobid mark, as job_service_hooks.cc, routes.cc and the
  // fuzz harness reach them.
  const std::unique_ptr<EventLogWriter>& event_log_ = log_core_.writer_ptr();
  JobIdMark& job_ids_ = log_core_.job_ids();
  // MultiCluster links, leases and exports; declared after what it is built with.
  ClusterLinks cluster_links_{ComponentContext{config_, state_, sink_, log_}, cluster_links_hooks(),
                              ClusterTransport{io_, outbound_, options_.pair_keys}};
  std::unique_ptr<net::RpcServer> server_;
  std::unique_ptr<RequestRouter> router_;
  RequestStats request_stats_;  // every request's time to its reply, by type
  // /metrics (metrics_endpoint.cc): the listener, where it is, or why it is not; the
  // token requests must carry (LSB_METRICS_TOKEN_FILE), empty for none.
  std::unique_ptr<net::HttpServer> metrics_server_;
  std::string metrics_url_, metrics_error_, metrics_token_;
  DashboardHistory dashboard_history_;  // what the dashboard plots
  ViewReports view_reports_;            // blimits, fairshare and slot pools for /metrics
  std::unique_ptr<net::asio::steady_timer> history_timer_;
  HostTracker hosts_;    // sbatchds: registration, load, status, calls (host_tracker.h)
  Lifecycle lifecycle_;  // recovering, serving, stopping; restart asked; log failed

  std::uint64_t config_generation_ = 1;  // bumped by every applied reconfig
  std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
  std::int64_t start_wall_time_ = static_cast<std::int64_t>(std::time(nullptr));
  std::int64_t last_reconfig_time_ = 0;
  // The read-only queries: bjobs and bwait (job_queries.h); bqueues, bhosts and the
  // configuration and usage queries (config_queries.h).
  JobQueries job_queries_{ComponentContext{config_, state_, sink_, log_}, config_index_, job_queries_hooks()};
  ConfigQueries config_queries_{ComponentContext{config_, state_, sink_, log_}, config_index_, config_queries_hooks()};
  // bsub, bkill, bmod and the other job requests (job_service.h).
  JobService job_service_{ComponentContext{config_, state_, sink_, log_}, config_index_, permissions_,
                          job_service_hooks()};
  // The view, the pass and applying it (scheduling_driver.h); last, as it is built with
  // hooks into the rest.
  SchedulingDriver scheduling_;
};

}  // namespace lsf::mbd
