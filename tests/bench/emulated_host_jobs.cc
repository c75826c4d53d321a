// A test tool, never a production mode: see emulated_host_jobs.h.
#include "tests/bench/emulated_host_jobs.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <regex>

namespace lsf::bench {

EmulatedJobs::EmulatedJobs(Options options)
    : options_(std::move(options)),
      work_(net::asio::make_work_guard(io_)),
      tick_timer_(io_),
      hosts_(options_.hosts.size()) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options_.reporters); ++i)
    queues_.push_back(std::make_unique<Queue>());
}

EmulatedJobs::~EmulatedJobs() { stop(); }

std::string EmulatedJobs::start() {
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  for (std::size_t i = 0; i < options_.hosts.size(); ++i) {
    net::ServerOptions so = options_.limits;
    so.destination = "sbatchd@" + options_.hosts[i];
    so.started_at = now;
    so.key = options_.key;
    so.trust_unsigned = options_.trust_unsigned;
    try {
      servers_.push_back(std::make_unique<net::RpcServer>(
          io_, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0),
          [this, i](wire::RequestEnvelope& r, const net::Peer&, const net::Responder& respond) {
            handle(i, r, respond);
          },
          so));
    } catch (const std::exception& e) {
      return "cannot listen for " + options_.hosts[i] + ": " + e.what() +
             " (each emulated host takes two descriptors: raise ulimit -n)";
    }
  }
  tick();
  thread_ = std::thread([this] { io_.run(); });
  return {};
}

void EmulatedJobs::stop() {
  if (!thread_.joinable()) return;
  net::asio::post(io_, [this] {
    for (auto& s : servers_) s->stop();
    tick_timer_.cancel();
    work_.reset();
    io_.stop();
  });
  thread_.join();
  stopping_ = true;
  wake_all();
}

std::uint16_t EmulatedJobs::port(std::size_t host) const { return servers_.at(host)->port(); }

// MultiCluster names a provider's host as host@cluster, as sbatchd allows.
bool EmulatedJobs::is_host(std::size_t host, const std::string& name) const {
  return name.substr(0, name.find('@')) == options_.hosts[host];
}

double EmulatedJobs::duration_of(const std::string& command) {
  static const std::regex sleep_n(R"((^|[\s;&|(])sleep\s+([0-9]+(\.[0-9]*)?)(\s|;|&|\||\)|$))");
  std::smatch m;
  if (!std::regex_search(command, m, sleep_n)) return 0;
  return std::stod(m[2].str());
}

void EmulatedJobs::handle(std::size_t host, wire::RequestEnvelope& request, const net::Responder& respond) {
  switch (request.request_case()) {
    case wire::RequestEnvelope::kStartJob:
    case wire::RequestEnvelope::kStartJobs: {
      std::string errors;
      if (request.has_start_job()) errors = start_job(host, request.start_job().launch());
      for (const auto& l : request.start_jobs().launches()) {
        auto err = start_job(host, l);
        if (!err.empty()) errors += (errors.empty() ? "" : "; ") + err;
      }
      if (!errors.empty()) return respond(net::error_reply(wire::STATUS_INTERNAL, errors));
      wire::ReplyEnvelope ok;
      ok.mutable_start_job();
      return respond(ok);
    }
    case wire::RequestEnvelope::kSignalJob:
      return respond(signal_job(host, request.signal_job()));
    case wire::RequestEnvelope::kPing: {
      wire::ReplyEnvelope reply;
      reply.mutable_ping()->set_master_name(options_.hosts[host]);
      return respond(reply);
    }
    default:
      return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "request type not served by an emulated host"));
  }
}

std::string EmulatedJobs::start_job(std::size_t host, const wire::JobLaunch& l) {
  const std::string label = std::to_string(l.job_id()) + "." + std::to_string(l.index());
  if (l.exec_hosts_size() > 0 && !is_host(host, l.exec_hosts(0)))
    return "job " + label + " is for host " + l.exec_hosts(0) + ", not for " + options_.hosts[host];
  double seconds = options_.duration_s ? *options_.duration_s : duration_of(l.spec().command());
  // sbatchd kills a job at its RUNLIMIT.
  const bool limited = l.run_limit_s() > 0 && seconds > static_cast<double>(l.run_limit_s());
  if (limited) seconds = static_cast<double>(l.run_limit_s());
  std::lock_guard lock(mu_);
  auto& jobs = hosts_[host].jobs;
  const Key key{l.job_id(), l.index()};
  if (auto it = jobs.find(key); it != jobs.end()) {
    const auto& old = it->second.launch;
    if (old.attempt() == l.attempt()) return {};  // a retried StartJob: already running
    if (l.attempt() != 0 && l.attempt() < old.attempt())
      return "job " + label + " run " + std::to_string(l.attempt()) + " is older than run " +
             std::to_string(old.attempt()) + ", which this host has";
    jobs.erase(it);  // replaced by a newer run; its queued reports name their attempt
  }
  Job& job = jobs[key];
  job.launch = l;
  job.pid = next_pid_++;
  job.run_limited = limited;
  if (next_pid_ > 4'000'000) next_pid_ = 100000;
  ++started_;
  wire::JobStatusRequest s;
  s.set_job_id(l.job_id());
  s.set_index(l.index());
  s.set_event(wire::JOB_EVENT_EXECUTE);
  s.set_pid(job.pid);
  s.set_exec_cwd(l.spec().cwd());
  s.set_attempt(l.attempt());
  push(host, std::move(s));
  const auto ends = Clock::now() + std::chrono::microseconds(std::llround(seconds * 1e6));
  if (seconds <= 0)
    end_job(host, job, 0, {});
  else
    ends_.emplace(ends, std::tuple{host, key, l.attempt()});
  return {};
}

wire::ReplyEnvelope EmulatedJobs::signal_job(std::size_t host, const wire::SignalJobRequest& r) {
  const std::string label = std::to_string(r.job_id()) + "." + std::to_string(r.index());
  if (!r.host_name().empty() && !is_host(host, r.host_name()))
    return net::error_reply(wire::STATUS_BAD_REQUEST, "a signal for job " + label + " on host " + r.host_name() +
                                                          " reached " + options_.hosts[host]);
  std::lock_guard lock(mu_);
  auto& jobs = hosts_[host].jobs;
  auto it = jobs.find({r.job_id(), r.index()});
  if (it == jobs.end()) return net::error_reply(wire::STATUS_NOT_FOUND, "job " + label + " is not on this host");
  Job& job = it->second;
  if (r.attempt() != 0 && job.launch.attempt() != 0 && r.attempt() != job.launch.attempt())
    return net::error_reply(wire::STATUS_NOT_FOUND, "job " + label + " run " + std::to_string(r.attempt()) +
                                                        " is not on this host (run " +
                                                        std::to_string(job.launch.attempt()) + " is)");
  wire::ReplyEnvelope ok;
  ok.mutable_signal_job();
  if (job.ended) return ok;
  // TERMINATE's first signal, SIGINT, ends a sleep.
  const int sig = r.terminate() ? SIGINT : r.signal();
  if (sig == SIGSTOP || sig == SIGTSTP) {
    job.stopped = true;
  } else if (sig == SIGCONT) {
    job.stopped = false;
  } else if (sig != 0) {
    end_job(host, job, sig, r.exit_reason());
  }
  return ok;
}

void EmulatedJobs::end_job(std::size_t host, Job& job, int wait_status, const std::string& exit_reason) {
  job.ended = true;
  ++finished_;
  wire::JobStatusRequest s;
  s.set_job_id(job.launch.job_id());
  s.set_index(job.launch.index());
  s.set_event(wire::JOB_EVENT_FINISH);
  s.set_pid(job.pid);
  s.set_wait_status(wait_status);
  s.set_exit_reason(exit_reason);
  s.set_attempt(job.launch.attempt());
  push(host, std::move(s));
}

void EmulatedJobs::push(std::size_t host, wire::JobStatusRequest status) {
  status.set_host_name(options_.hosts[host]);
  status.set_time(static_cast<std::int64_t>(std::time(nullptr)));
  auto& q = *queues_[host % queues_.size()];
  q.reports.push_back({host, std::move(status)});
  q.cv.notify_one();
}

void EmulatedJobs::tick() {
  {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    while (!ends_.empty() && ends_.begin()->first <= now) {
      auto [host, key, attempt] = ends_.begin()->second;
      ends_.erase(ends_.begin());
      auto it = hosts_[host].jobs.find(key);
      if (it == hosts_[host].jobs.end() || it->second.ended || it->second.launch.attempt() != attempt) continue;
      if (it->second.run_limited)
        end_job(host, it->second, SIGKILL, "TERM_RUNLIMIT");
      else
        end_job(host, it->second, 0, {});
    }
  }
  tick_timer_.expires_after(std::chrono::milliseconds(50));
  tick_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) tick();
  });
}

std::vector<wire::RunningJob> EmulatedJobs::running(std::size_t host) const {
  std::vector<wire::RunningJob> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, job] : hosts_[host].jobs) {
    wire::RunningJob j;
    j.set_job_id(key.first);
    j.set_index(key.second);
    j.set_pid(job.pid);
    j.set_stopped(job.stopped);
    j.set_attempt(job.launch.attempt());
    *j.mutable_launch() = job.launch;
    out.push_back(std::move(j));
  }
  return out;
}

void EmulatedJobs::drop_unknown(std::size_t host, const wire::RegisterHostReply& reply) {
  std::lock_guard lock(mu_);
  auto& jobs = hosts_[host].jobs;
  for (int i = 0; i < reply.unknown_jobs_size(); ++i) {
    auto it = jobs.find({reply.unknown_jobs(i).job_id(), reply.unknown_jobs(i).index()});
    if (it == jobs.end()) continue;
    // A newer run may have replaced the one mbatchd disowned while the reply travelled.
    if (i < reply.unknown_attempts_size() && reply.unknown_attempts(i) != it->second.launch.attempt()) continue;
    jobs.erase(it);
  }
}

std::vector<EmulatedJobs::Report> EmulatedJobs::take(std::size_t reporter, Clock::time_point until) {
  std::unique_lock lock(mu_);
  auto& q = *queues_[reporter % queues_.size()];
  q.cv.wait_until(lock, until, [&] { return !q.reports.empty() || stopping_; });
  return std::exchange(q.reports, {});
}

void EmulatedJobs::acknowledged(const std::vector<Report>& reports) {
  std::lock_guard lock(mu_);
  for (const auto& r : reports) {
    if (r.status.event() == wire::JOB_EVENT_EXECUTE) continue;
    auto& jobs = hosts_[r.host].jobs;
    auto it = jobs.find({r.status.job_id(), r.status.index()});
    if (it != jobs.end() && it->second.launch.attempt() == r.status.attempt()) jobs.erase(it);
  }
}

void EmulatedJobs::put_back(std::size_t reporter, std::vector<Report> reports) {
  std::lock_guard lock(mu_);
  auto& q = *queues_[reporter % queues_.size()];
  reports.insert(reports.end(), std::make_move_iterator(q.reports.begin()), std::make_move_iterator(q.reports.end()));
  q.reports = std::move(reports);
}

void EmulatedJobs::wake_all() {
  std::lock_guard lock(mu_);
  for (auto& q : queues_) q->cv.notify_all();
}

std::size_t EmulatedJobs::running_count() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& h : hosts_)
    for (const auto& [key, job] : h.jobs) n += job.ended ? 0 : 1;
  return n;
}

}  // namespace lsf::bench
