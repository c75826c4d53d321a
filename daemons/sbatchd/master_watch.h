// MasterWatch: a master candidate's sbatchd starts mbatchd on its host when the master
// is gone, as LSF's sbatchd does on the master host.
//
// Candidates are LSF_MASTER_LIST in order (config::master_candidates). The watch runs
// on every candidate of a list of two or more: a lone candidate has nowhere to fail
// over to, and its mbatchd is started by hand or by the init system. The candidate at
// position p (0: first) takes over once the master's lease (master_lease.h) has not
// changed for (HOST_INACTIVITY_LIMIT + p * MASTER_INACTIVITY_LIMIT) * EXINTERVAL, and
// the master then does not answer a ping within PROBE_TIMEOUT: earlier candidates get
// the first chance, and a master that serves but cannot reach the lease for a moment
// is not displaced on a guess. A candidate that comes back does not take over from a
// live master: its lease beats.
//
// Taking over is starting `mbatchd --takeover N`, N the term whose lease went still;
// mbatchd claims term N+1 itself and no other, so two candidates that start one at
// once get one master (the other mbatchd exits).
//
// Owns: the watch and the pid of the mbatchd it started. Thread: sbatchd's io_context;
// the probe runs on a thread of its own and posts its answer back.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/master_lease.h"
#include "libconfig/failover_params.h"

namespace lsf::sbd {

class MasterWatch {
 public:
  struct Options {
    std::filesystem::path logdir;  // LSB_SHAREDIR/<cluster>/logdir, where the lease is
    std::string host_name;
    int position = 0;  // in the candidate list
    config::FailoverTiming timing;
    std::vector<std::string> mbatchd_argv;  // the program, then its arguments (--takeover N is added)
    std::optional<net::ClusterKey> key;     // signs the probe
  };

  MasterWatch(net::asio::io_context& io, Options options, std::shared_ptr<spdlog::logger> log);
  ~MasterWatch();
  MasterWatch(const MasterWatch&) = delete;
  MasterWatch& operator=(const MasterWatch&) = delete;

  void start();
  void stop();

 private:
  void tick();
  // Pings the master the lease names; `answer(true)` when it replied.
  void probe(const net::MasterTerm& term, std::function<void(bool)> answer);
  void take_over(const net::MasterTerm& from);

  net::asio::io_context& io_;
  Options options_;
  std::shared_ptr<spdlog::logger> log_;
  net::MasterLease lease_;
  net::LeaseWatch watch_;
  net::asio::steady_timer timer_;
  bool probing_ = false;
  bool stopped_ = false;
  // The last mbatchd started and when: not started again until the lease has moved or
  // a takeover's worth of time has passed.
  pid_t started_pid_ = 0;
  std::chrono::steady_clock::time_point started_at_{};
  std::thread probe_thread_;  // joined before the next probe and at the end
};

}  // namespace lsf::sbd
