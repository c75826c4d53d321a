// A test tool, never a production mode. Emulated hosts for the benchmarks: registers N
// hosts with mbatchd as their sbatchds would (RegisterHostRequest, then a
// LoadReportRequest every report interval, signed with the cluster key), and follows
// the master through a takeover as sbatchd does: on a call without an answer, a
// NOT_MASTER reply, or a new term in the master's lease, it asks the lease where the
// master is and registers every host again; a load report answered with
// reregister=true registers that host again.
//
//   host_emulator --hosts N [--prefix emu] [--threads 4] [--print-seconds 10]
//                 [--run-jobs [--duration SECONDS]]
//
// LSF_ENVDIR names a running cluster whose lsf.cluster.<name> lists <prefix>0001 ...
// (numbered from 1, at least four digits).
//
// Without --run-jobs the hosts run no jobs: give them MXJ 0 in lsb.hosts (they are
// closed_Full), because what mbatchd sends them lands on one socket that only accepts
// and hangs up. That socket's address (127.0.0.1) and port are what every host
// advertises, so the master's address check passes.
//
// With --run-jobs each host listens on a port of its own and takes jobs as sbatchd
// does, without running any process (emulated_host_jobs.h): a job lasts --duration
// seconds, else the N of a `sleep N` in its command, else no time. Its start and end
// are reported by the thread that reports the host's load, each host's in one call;
// each registration lists what the host runs, so a restarted mbatchd regains them.
//
// Prints how many hosts are registered with which master (and, with --run-jobs, how
// many jobs started and ended) every --print-seconds and on SIGINT/SIGTERM.
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/daemon_config.h"
#include "daemons/common/master_locator.h"
#include "daemons/common/rpc_client.h"
#include "tests/bench/emulated_host_jobs.h"

using namespace lsf;
using Clock = std::chrono::steady_clock;

namespace {

long arg(int argc, char** argv, const std::string& name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stol(argv[i + 1]);
  return fallback;
}

std::string text_arg(int argc, char** argv, const std::string& name, std::string fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

std::string host_name(const std::string& prefix, long i) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%04ld", i);
  return prefix + digits;
}

// Where mbatchd sends what it sends an sbatchd: accepted and hung up on.
class Sink {
 public:
  Sink() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(fd_, 64) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      std::perror("host_emulator: listen");
      std::exit(1);
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 200) > 0) {
          int c = accept(fd_, nullptr, nullptr);
          if (c >= 0) close(c);
        }
      }
    });
  }
  ~Sink() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  std::uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

struct Shared {
  net::MasterLocator locator;
  std::optional<net::ClusterKey> key;
  std::uint16_t sink_port = 0;
  bench::EmulatedJobs* jobs = nullptr;       // --run-jobs
  std::atomic<std::int64_t> lease_epoch{0};  // the newest term the lease names
  std::atomic<bool> stop{false};
  // Per host: the term of the master that acknowledged its registration; 0: none.
  std::vector<std::atomic<std::int64_t>> registered;
  explicit Shared(net::MasterLocator l, std::size_t hosts) : locator(std::move(l)), registered(hosts) {}
};

// A slice of the hosts, over one connection to the master.
class Worker {
 public:
  Worker(Shared& shared, std::size_t number, std::vector<std::pair<std::size_t, std::string>> hosts)
      : s_(shared), number_(number), hosts_(std::move(hosts)), due_(hosts_.size(), Clock::now()) {
    for (const auto& [index, name] : hosts_) names_[index] = name;
  }

  void run() {
    follow_master();
    std::int64_t seen_epoch = s_.lease_epoch.load();
    auto backoff = std::chrono::milliseconds(50);
    while (!s_.stop) {
      if (auto e = s_.lease_epoch.load(); e != seen_epoch) {
        seen_epoch = e;
        follow_master();
        forget_all();
      }
      bool failed = false;
      if (s_.jobs) {
        auto more = s_.jobs->take(number_, Clock::now());
        pending_.insert(pending_.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        failed = !send_reports();
      }
      auto now = Clock::now();
      auto next = now + std::chrono::milliseconds(200);
      for (std::size_t i = 0; i < hosts_.size() && !failed && !s_.stop; ++i) {
        if (due_[i] <= now) failed = s_.registered[hosts_[i].first].load() == 0 ? !register_host(i) : !report_load(i);
        next = std::min(next, due_[i]);
      }
      if (failed) {
        follow_master();
        forget_all();
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
        continue;
      }
      backoff = std::chrono::milliseconds(50);
      next = std::max(next, Clock::now() + std::chrono::milliseconds(10));
      if (s_.jobs)
        pending_ = s_.jobs->take(number_, next);
      else
        std::this_thread::sleep_until(next);
    }
  }

 private:
  wire::RequestEnvelope envelope(const std::string& host) const {
    wire::RequestEnvelope r;
    *r.mutable_caller() = identity_;
    r.mutable_caller()->set_host_name(host);
    return r;
  }

  static wire::LoadIndices idle_load() {
    wire::LoadIndices l;
    l.set_ncpus(1);
    l.set_it(60);
    l.set_mem_mb(4096);
    l.set_maxmem_mb(4096);
    return l;
  }

  static std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // False when the master did not answer as master: time to look for it.
  bool register_host(std::size_t i) {
    const auto& [index, name] = hosts_[i];
    auto req = envelope(name);
    auto* r = req.mutable_register_host();
    r->set_host_name(name);
    r->set_address("127.0.0.1");
    r->set_port(s_.jobs ? s_.jobs->port(index) : s_.sink_port);
    *r->mutable_load() = idle_load();
    r->set_clock_ms(now_ms());
    if (s_.jobs)
      for (auto& j : s_.jobs->running(index)) *r->add_jobs() = std::move(j);
    auto result = client_->call(req);
    if (!answered(result)) return false;
    if (result.reply->status() != wire::STATUS_OK) {
      std::cerr << "host_emulator: " << name << " refused: " << result.reply->message() << "\n";
      due_[i] = Clock::now() + interval_;  // tried again then, as sbatchd would at its next report
      return true;
    }
    if (auto ms = result.reply->register_host().report_interval_ms(); ms > 0) interval_ = std::chrono::milliseconds(ms);
    if (s_.jobs) s_.jobs->drop_unknown(index, result.reply->register_host());
    s_.registered[index] = std::max<std::int64_t>(1, result.reply->master_epoch());
    due_[i] = Clock::now() + interval_;
    return true;
  }

  bool report_load(std::size_t i) {
    const auto& [index, name] = hosts_[i];
    auto req = envelope(name);
    req.mutable_load_report()->set_host_name(name);
    *req.mutable_load_report()->mutable_load() = idle_load();
    req.mutable_load_report()->set_clock_ms(now_ms());
    auto result = client_->call(req);
    if (!answered(result)) return false;
    if (result.reply->has_load_report() && result.reply->load_report().reregister()) {
      s_.registered[index] = 0;
      return true;  // due now: registered again at once
    }
    due_[i] = Clock::now() + interval_;
    return true;
  }

  static bool answered(const net::CallResult& r) { return r.reply && r.reply->status() != wire::STATUS_NOT_MASTER; }

  // The jobs' reports, each host's in one call as its sbatchd batches them (MbdReporter):
  // in order, retried until delivered. False when the master did not take them.
  bool send_reports() {
    std::vector<std::size_t> order;
    std::map<std::size_t, std::vector<bench::EmulatedJobs::Report>> by_host;
    for (auto& r : pending_) {
      auto& batch = by_host[r.host];
      if (batch.empty()) order.push_back(r.host);
      batch.push_back(std::move(r));
    }
    pending_.clear();
    for (std::size_t n = 0; n < order.size(); ++n) {
      auto& batch = by_host[order[n]];
      auto req = envelope(names_[order[n]]);
      if (batch.size() == 1) {
        *req.mutable_job_status() = batch.front().status;
      } else {
        for (const auto& r : batch) *req.mutable_job_status_batch()->add_reports() = r.status;
      }
      auto result = client_->call(req);
      if (!answered(result) || result.reply->status() == wire::STATUS_UNAVAILABLE) {
        std::vector<bench::EmulatedJobs::Report> rest;
        for (std::size_t m = n; m < order.size(); ++m)
          for (auto& r : by_host[order[m]]) rest.push_back(std::move(r));
        s_.jobs->put_back(number_, std::move(rest));
        return false;
      }
      s_.jobs->acknowledged(batch);
    }
    return true;
  }

  void forget_all() {
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      s_.registered[hosts_[i].first] = 0;
      due_[i] = Clock::now();
    }
  }

  void follow_master() {
    auto e = s_.locator.locate();
    if (client_ && e.host == host_ && e.port == port_) return;
    host_ = e.host;
    port_ = e.port;
    client_ = std::make_unique<net::RpcClient>(host_, port_, std::chrono::seconds(5));
    if (s_.key) client_->set_key(*s_.key, "mbatchd");
  }

  Shared& s_;
  std::size_t number_;                                      // which reporter of EmulatedJobs
  std::vector<std::pair<std::size_t, std::string>> hosts_;  // (index in Shared::registered, name)
  std::vector<Clock::time_point> due_;                      // each host's next load report
  std::chrono::milliseconds interval_{30000};               // SBD_SLEEP_TIME, from the registration reply
  wire::Identity identity_ = net::current_identity();
  std::unique_ptr<net::RpcClient> client_;
  std::string host_;
  std::uint16_t port_ = 0;
  std::map<std::size_t, std::string> names_;          // by index in Shared::registered
  std::vector<bench::EmulatedJobs::Report> pending_;  // job reports not yet sent
};

void print_counts(const Shared& s, const net::MasterLease& lease) {
  std::map<std::int64_t, std::size_t> by_term;
  for (const auto& r : s.registered) ++by_term[r.load()];
  auto term = lease.current();
  std::string line = "host_emulator:";
  for (const auto& [epoch, n] : by_term) {
    line += " " + std::to_string(n);
    if (epoch == 0)
      line += " not registered;";
    else
      line += " registered with the master of term " + std::to_string(epoch) +
              (term.ok() && term->epoch == epoch ? " (" + term->host + ")" : "") + ";";
  }
  line.pop_back();
  if (s.jobs)
    line += "; jobs: " + std::to_string(s.jobs->started()) + " started, " + std::to_string(s.jobs->finished()) +
            " ended, " + std::to_string(s.jobs->running_count()) + " running";
  std::cout << line << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  const long hosts = arg(argc, argv, "--hosts", 0);
  const long threads = std::max(1L, arg(argc, argv, "--threads", 4));
  const long print_seconds = std::max(1L, arg(argc, argv, "--print-seconds", 10));
  const std::string prefix = text_arg(argc, argv, "--prefix", "emu");
  bool run_jobs = false;
  for (int i = 1; i < argc; ++i) run_jobs = run_jobs || std::string(argv[i]) == "--run-jobs";
  const std::string duration = text_arg(argc, argv, "--duration", "");
  if (hosts <= 0) {
    std::cerr << "usage: host_emulator --hosts N [--prefix emu] [--threads 4] [--print-seconds 10]\n"
                 "                     [--run-jobs [--duration SECONDS]]\n";
    return 2;
  }
  const auto envdir = net::daemon_envdir("");
  auto loaded = net::load_daemon_config("host_emulator", envdir);
  if (!loaded.usable()) return 1;
  const auto& cfg = *loaded.config;
  auto endpoint = net::master_endpoint(cfg.lsf_conf);
  if (!endpoint.error.empty()) {
    std::cerr << "host_emulator: " << endpoint.error << "\n";
    return 1;
  }
  auto auth = net::daemon_auth(envdir, cfg.lsf_conf);
  if (!auth.error.empty()) {
    std::cerr << "host_emulator: " << auth.error << "\n";
    return 1;
  }
  // SIGINT and SIGTERM are waited for below, never delivered to a thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const auto logdir = std::filesystem::path(cfg.lsf_conf.lsb_sharedir) / cfg.cluster_name / "logdir";
  Shared shared(net::MasterLocator(endpoint.endpoint, logdir), static_cast<std::size_t>(hosts));
  shared.key = auth.key;
  std::optional<Sink> sink;
  std::unique_ptr<bench::EmulatedJobs> jobs;
  if (run_jobs) {
    // Each host listens on a port of its own, and mbatchd keeps a connection to each.
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);
    }
    bench::EmulatedJobs::Options o;
    for (long i = 0; i < hosts; ++i) o.hosts.push_back(host_name(prefix, i + 1));
    o.reporters = static_cast<std::size_t>(threads);
    if (!duration.empty()) o.duration_s = std::stod(duration);
    o.key = auth.key;
    o.trust_unsigned = auth.trust_unsigned;
    if (auto limits = net::apply_connection_limits(cfg.lsf_conf, o.limits); !limits) {
      std::cerr << "host_emulator: " << limits.message() << "\n";
      return 1;
    }
    jobs = std::make_unique<bench::EmulatedJobs>(std::move(o));
    if (auto err = jobs->start(); !err.empty()) {
      std::cerr << "host_emulator: " << err << "\n";
      return 1;
    }
    shared.jobs = jobs.get();
  } else {
    sink.emplace();
    shared.sink_port = sink->port();
  }
  const net::MasterLease lease(logdir);
  auto read_lease = [&] {
    if (auto t = lease.current(); t.ok() && t->epoch > 0 && !t->released()) shared.lease_epoch = t->epoch;
  };
  read_lease();

  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> running;
  for (long w = 0; w < threads; ++w) {
    std::vector<std::pair<std::size_t, std::string>> slice;
    for (long i = w; i < hosts; i += threads) slice.emplace_back(static_cast<std::size_t>(i), host_name(prefix, i + 1));
    workers.push_back(std::make_unique<Worker>(shared, static_cast<std::size_t>(w), std::move(slice)));
  }
  for (auto& w : workers) running.emplace_back([&w] { w->run(); });

  // sbatchd reads the lease every 500 ms (Sbatchd::watch_master_lease): so does this.
  auto next_print = Clock::now() + std::chrono::seconds(print_seconds);
  const timespec tick{0, 500'000'000};
  while (sigtimedwait(&signals, nullptr, &tick) < 0) {
    read_lease();
    if (Clock::now() >= next_print) {
      print_counts(shared, lease);
      next_print += std::chrono::seconds(print_seconds);
    }
  }
  shared.stop = true;
  if (jobs) jobs->wake_all();
  for (auto& t : running) t.join();
  print_counts(shared, lease);
  return 0;
}
