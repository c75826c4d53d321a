// sbatchd: one per host (several per machine as virtual hosts in tests). Registers
// with mbatchd, reports load every SBD_SLEEP_TIME, starts jobs through a supervisor
// process each (job_supervisor.h), signals them (bkill's SIGINT, SIGTERM, SIGKILL
// sequence: terminate_sequence.h), enforces RUNLIMIT and MEMLIMIT, and
// reports every change until mbatchd acknowledges it. Each job has a state file in the
// state directory, so a restarted sbatchd regains them.
//
// Single-threaded (the supervisor is forked from this thread); only the reporter
// runs on a thread of its own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <spdlog/logger.h>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/sbatchd/command_relay.h"
#include "daemons/sbatchd/host_load.h"
#include "daemons/sbatchd/master_watch.h"
#include "daemons/sbatchd/mbd_reporter.h"
#include "lsf.pb.h"

namespace lsf::sbd {

struct SbatchdOptions {
  std::string host_name;
  std::string listen_address = "127.0.0.1";
  std::string advertise_address;  // how mbatchd reaches us; empty: the listen address
  std::uint16_t port = 0;         // 0: any free port
  net::MasterEndpoint master;
  std::filesystem::path state_dir;
  std::filesystem::path load_file;
  std::filesystem::path gpu_file;  // the GPU description file; empty: NVML, if detect_gpus
  bool detect_gpus = true;         // LSF_GPU_AUTOCONFIG
  std::chrono::milliseconds report_interval{30000};
  std::shared_ptr<spdlog::logger> log;
  std::optional<net::ClusterKey> key;  // signs calls to mbatchd, checks calls from it
  bool trust_unsigned = false;         // LSF_AUTH=none
  bool allow_root_jobs = false;        // LSF_ROOT_USER=Y: jobs may run as root
  net::ServerOptions limits;           // connection limits and timeouts (lsf.conf)
  std::string command_socket;          // LSB_SBD_SOCKET: relays users' commands; empty: none
  // With master candidates: the directory of the master's lease, so that reports
  // follow a takeover (empty: the master stays where `master` says); and on a
  // candidate, what starts mbatchd when the master is gone (master_watch.h).
  std::filesystem::path master_lease_dir;
  std::optional<MasterWatch::Options> master_watch;
};

class Sbatchd {
 public:
  explicit Sbatchd(SbatchdOptions options);
  ~Sbatchd();
  daemon::Status start();
  void run();
  void stop();  // from any thread
  std::uint16_t port() const { return server_ ? server_->port() : 0; }

 private:
  struct Tracked {
    wire::SbdJob job;
    bool execute_sent = false;  // queued to the reporter, which retries until acknowledged
    bool finish_sent = false;
    pid_t job_pid = 0;
    // An interactive job's output stays readable this long after its end is
    // acknowledged, so bsub -I can read the last of it.
    std::optional<std::chrono::steady_clock::time_point> forget_at;
  };

  void handle(wire::RequestEnvelope& request, const net::Responder& respond);
  // Empty on success, else why the job could not be started.
  daemon::Status start_job(const wire::JobLaunch& launch);
  bool is_this_host(const std::string& name) const;
  void on_signal_job(const wire::SignalJobRequest& r, const net::Responder& respond);
  void on_peek(const wire::PeekRequest& r, const net::Responder& respond);
  void register_host();
  void report_load();
  // Master failover: when the lease names a new term, registers with the new master at
  // once (its running jobs, what ended meanwhile) instead of at the next report.
  void watch_master_lease();
  // Every job: starts, ends, limits, terminate sequences. Every 200 ms while jobs run.
  void poll();
  void schedule_poll(std::chrono::milliseconds after);
  // Only the jobs in due_: those just started, and those whose supervisor just ended,
  // so a busy host does not read every job's files for each one that ends.
  void poll_job(const std::string& key, Tracked& t, std::int64_t now, bool& need_memory);
  void poll_due(std::chrono::milliseconds after);
  // Sends what is due of the job's TERMINATE sequence (terminate_sequence.h); ends the
  // sequence once the job's process group is gone.
  void advance_terminate(const std::string& key, Tracked& t);
  void reap();
  void check_memory();
  void send_status(const std::string& key, wire::JobStatusRequest status);
  void forget(const std::string& key);
  void save_job(const std::string& key);
  void load_state();
  wire::LoadIndices sample_load();  // the load, logging a GPU file that went bad
  wire::RequestEnvelope envelope() const;

  SbatchdOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  net::asio::io_context io_;
  net::asio::executor_work_guard<net::asio::io_context::executor_type> work_;
  std::unique_ptr<net::RpcServer> server_;
  std::unique_ptr<MbdReporter> reporter_;
  std::unique_ptr<MasterWatch> master_watch_;
  std::int64_t newest_master_epoch_ = 0;  // of the requests mbatchd sent (master failover)
  std::unique_ptr<CommandRelay> relay_;
  HostLoad load_;
  std::string last_gpu_error_;
  std::map<std::string, Tracked> jobs_;
  net::asio::steady_timer report_timer_;
  net::asio::steady_timer poll_timer_;
  net::asio::steady_timer lease_timer_;
  std::int64_t seen_master_epoch_ = 0;  // the lease's term when last read
  net::asio::signal_set sigchld_;
  bool poll_scheduled_ = false;
  std::set<std::string> due_;
  net::asio::steady_timer due_timer_;
  bool due_scheduled_ = false;
  std::chrono::steady_clock::time_point last_memory_check_{};
};

}  // namespace lsf::sbd
