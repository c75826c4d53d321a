// A test tool, never a production mode: the jobs of host_emulator's hosts
// (--run-jobs). Each emulated host listens on a port of its own with the RpcServer
// sbatchd uses (so mbatchd's StartJobs and SignalJob are signed for, and checked as
// addressed to, sbatchd@<that host>), and answers them as sbatchd does; but it runs
// no process. A job "runs" for --duration seconds, else for the N of a `sleep N` in
// its command, else not at all; then it ends with exit status 0. A signal ends it at
// once with that signal (bkill's TERMINATE with SIGINT, which ends a sleep); SIGSTOP
// and SIGCONT only mark it stopped, and its time runs on.
//
// What a real sbatchd reports (JOB_EVENT_EXECUTE with a pid, made up here, then
// JOB_EVENT_FINISH) is queued for the reporter thread that owns the host (host index
// modulo the number of reporters), which sends it as sbatchd's MbdReporter does, and
// the job is forgotten once its end is acknowledged. What each host runs goes into its
// registration, so a restarted mbatchd regains the jobs.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "daemons/common/asio.h"
#include "daemons/common/rpc_server.h"
#include "lsf.pb.h"

namespace lsf::bench {

class EmulatedJobs {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::vector<std::string> hosts;  // by index, as host_emulator numbers them
    std::size_t reporters = 1;       // host i's reports go to reporter i % reporters
    std::optional<double> duration_s;
    std::optional<net::ClusterKey> key;
    bool trust_unsigned = false;
    net::ServerOptions limits;
  };
  struct Report {
    std::size_t host;
    wire::JobStatusRequest status;
  };

  explicit EmulatedJobs(Options options);
  ~EmulatedJobs();
  // Listens for every host (127.0.0.1, a free port each) and starts the thread that
  // serves them. Empty on success.
  std::string start();
  void stop();

  std::uint16_t port(std::size_t host) const;
  // What `host` runs, for its registration.
  std::vector<wire::RunningJob> running(std::size_t host) const;
  // The registration's reply: jobs mbatchd no longer has are dropped, as sbatchd kills them.
  void drop_unknown(std::size_t host, const wire::RegisterHostReply& reply);

  // The reports waiting for `reporter`, oldest first; waits for some until `until`.
  std::vector<Report> take(std::size_t reporter, Clock::time_point until);
  // Sent and acknowledged: a finished job is forgotten.
  void acknowledged(const std::vector<Report>& reports);
  // Not delivered: sent again first.
  void put_back(std::size_t reporter, std::vector<Report> reports);
  void wake_all();

  std::int64_t started() const { return started_; }
  std::int64_t finished() const { return finished_; }
  std::size_t running_count() const;

  // How long a job with this command runs: the N of its first `sleep N`, else 0.
  static double duration_of(const std::string& command);

 private:
  struct Job {
    wire::JobLaunch launch;
    std::int32_t pid = 0;
    bool stopped = false;
    bool run_limited = false;  // ends at its RUNLIMIT, killed
    bool ended = false;        // its FINISH is queued: it waits only for the acknowledgement
  };
  using Key = std::pair<std::int64_t, std::int32_t>;
  struct Host {
    std::map<Key, Job> jobs;
  };
  struct Queue {
    std::condition_variable cv;
    std::vector<Report> reports;
  };

  void handle(std::size_t host, wire::RequestEnvelope& request, const net::Responder& respond);
  std::string start_job(std::size_t host, const wire::JobLaunch& launch);
  wire::ReplyEnvelope signal_job(std::size_t host, const wire::SignalJobRequest& request);
  // Queues the job's FINISH; the lock is held.
  void end_job(std::size_t host, Job& job, int wait_status, const std::string& exit_reason);
  void push(std::size_t host, wire::JobStatusRequest status);
  void tick();
  bool is_host(std::size_t host, const std::string& name) const;

  Options options_;
  net::asio::io_context io_;
  net::asio::executor_work_guard<net::asio::io_context::executor_type> work_;
  std::vector<std::unique_ptr<net::RpcServer>> servers_;
  net::asio::steady_timer tick_timer_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::vector<Host> hosts_;
  std::vector<std::unique_ptr<Queue>> queues_;
  // When each job ends by itself: (host, job, attempt), checked on every tick.
  std::multimap<Clock::time_point, std::tuple<std::size_t, Key, std::int32_t>> ends_;
  std::int32_t next_pid_ = 100000;
  std::atomic<std::int64_t> started_{0}, finished_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace lsf::bench
