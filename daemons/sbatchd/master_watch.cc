#include "daemons/sbatchd/master_watch.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemons/common/rpc_client.h"

namespace lsf::sbd {

using Clock = std::chrono::steady_clock;

MasterWatch::MasterWatch(net::asio::io_context& io, Options options, std::shared_ptr<spdlog::logger> log)
    : io_(io),
      options_(std::move(options)),
      log_(std::move(log)),
      lease_(options_.logdir),
      watch_(options_.timing.takeover_after(options_.position)),
      timer_(io) {}

MasterWatch::~MasterWatch() {
  if (probe_thread_.joinable()) probe_thread_.join();
}

void MasterWatch::start() {
  log_->info("master candidate {} of the list: takes over after {} ms without the master", options_.position + 1,
             options_.timing.takeover_after(options_.position).count());
  tick();
}

void MasterWatch::stop() {
  stopped_ = true;
  timer_.cancel();
}

void MasterWatch::tick() {
  if (stopped_) return;
  const auto now = Clock::now();
  if (auto term = lease_.current(); term.ok()) {
    watch_.observe(*term, now);
    const bool ours = term->host == options_.host_name && !term->released();
    const bool just_started = started_pid_ != 0 && now - started_at_ < 2 * watch_.silence();
    if (!ours && !probing_ && !just_started && watch_.expired(now)) {
      if (term->epoch == 0 || term->released()) {
        take_over(*term);
      } else {
        probing_ = true;
        probe(*term, [this, t = *term](bool answered) {
          probing_ = false;
          if (stopped_) return;
          // A master that answers is alive whatever its lease says; it is asked again
          // after another silence.
          if (answered) {
            log_->warn("the lease of term {} ({}) is still but its mbatchd answers; not taking over", t.epoch, t.host);
            watch_.observe(net::MasterTerm{}, Clock::now());
            return;
          }
          take_over(t);
        });
      }
    }
  }
  timer_.expires_after(
      std::min<std::chrono::milliseconds>(options_.timing.exchange_interval / 2, std::chrono::milliseconds(500)));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) tick();
  });
}

void MasterWatch::probe(const net::MasterTerm& term, std::function<void(bool)> answer) {
  if (probe_thread_.joinable()) probe_thread_.join();
  probe_thread_ = std::thread([this, term, answer = std::move(answer)] {
    net::RpcClient client(term.address, term.port, options_.timing.probe_timeout);
    if (options_.key) client.set_key(*options_.key, "mbatchd");
    wire::RequestEnvelope ping;
    *ping.mutable_caller() = net::current_identity();
    ping.mutable_caller()->set_host_name(options_.host_name);
    ping.mutable_ping();
    const bool answered = client.call(std::move(ping)).reply.has_value();
    net::asio::post(io_, [answer, answered] { answer(answered); });
  });
}

void MasterWatch::take_over(const net::MasterTerm& from) {
  if (from.epoch == 0)
    log_->info("no master has held a term yet: starting mbatchd");
  else
    log_->warn("master {} (term {}) has been silent for {} ms: starting mbatchd to take over", from.host, from.epoch,
               watch_.silence().count());
  std::vector<std::string> args = options_.mbatchd_argv;
  args.push_back("--takeover");
  args.push_back(std::to_string(from.epoch));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    log_->error("cannot start mbatchd: fork: {}", std::strerror(errno));
    return;
  }
  if (pid == 0) {
    // Its own session, away from sbatchd's terminal and signals; its log is its own.
    setsid();
    int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  started_pid_ = pid;
  started_at_ = Clock::now();
}

}  // namespace lsf::sbd
