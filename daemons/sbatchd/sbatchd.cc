#include "daemons/sbatchd/sbatchd.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "daemons/common/master_locator.h"
#include "daemons/sbatchd/job_supervisor.h"
#include "daemons/sbatchd/state_dir.h"
#include "daemons/sbatchd/terminate_sequence.h"
#include "daemons/sbatchd/user_identity.h"

namespace lsf::sbd {
namespace fs = std::filesystem;

namespace {

bool process_alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

std::int64_t wall_now() { return static_cast<std::int64_t>(std::time(nullptr)); }
std::int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::chrono::seconds kInteractiveOutputKept{60};

// Resident memory of every process in a process group, in KB.
std::map<pid_t, std::int64_t> rss_by_group() {
  std::map<pid_t, std::int64_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  const long page_kb = sysconf(_SC_PAGESIZE) / 1024;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    std::string skip;
    for (int i = 0; i < 18; ++i) rest >> skip;  // fields 6..23; rss is field 24
    long rss = 0;
    if (rest >> rss) out[static_cast<pid_t>(pgrp)] += rss * page_kb;
  }
  closedir(d);
  return out;
}

// The job user's home directory, as bjobs -l and bhist -l report the execution home;
// empty when the user is unknown here.
std::string exec_home_of(const wire::JobLaunch& l) {
  auto user = lookup_user(l.user());
  return user ? user->home : std::string();
}

}  // namespace

Sbatchd::Sbatchd(SbatchdOptions options)
    : options_(std::move(options)),
      log_(options_.log),
      work_(net::asio::make_work_guard(io_)),
      load_(options_.load_file, options_.gpu_file, options_.detect_gpus),
      report_timer_(io_),
      poll_timer_(io_),
      lease_timer_(io_),
      sigchld_(io_, SIGCHLD),
      due_timer_(io_) {}

Sbatchd::~Sbatchd() {
  if (reporter_) reporter_->stop();
}

wire::RequestEnvelope Sbatchd::envelope() const {
  wire::RequestEnvelope r;
  *r.mutable_caller() = net::current_identity();
  r.mutable_caller()->set_host_name(options_.host_name);
  return r;
}

daemon::Status Sbatchd::start() {
  if (auto prepared = prepare_state_directory(options_.state_dir); !prepared) return prepared;
  load_state();
  try {
    net::ServerOptions so = options_.limits;
    so.log_error = [this](const std::string& m) { log_->warn("rejected request: {}", m); };
    so.destination = "sbatchd@" + options_.host_name;
    so.started_at = wall_now();
    so.key = options_.key;
    so.trust_unsigned = options_.trust_unsigned;
    // What sbatchd serves over TCP (start a job as any user, signal it) is for mbatchd
    // alone, which signs its requests; what comes over the local socket is a user's
    // command, and is only ever forwarded to mbatchd (command_relay.h).
    server_ = std::make_unique<net::RpcServer>(
        io_, net::tcp::endpoint(net::asio::ip::make_address(options_.listen_address), options_.port),
        [this](wire::RequestEnvelope& r, const net::Peer& peer, const net::Responder& respond) {
          if (peer.kind == net::PeerKind::kLocalUser) return relay_->forward(std::move(r), respond);
          handle(r, respond);
        },
        so);
  } catch (const std::exception& e) {
    return daemon::fail("cannot listen on " + options_.listen_address + ":" + std::to_string(options_.port) + ": " +
                        e.what());
  }
  CommandRelay::Locate relay_locate;
  if (!options_.master_lease_dir.empty())
    relay_locate = [locator = net::MasterLocator(options_.master, options_.master_lease_dir)] {
      return locator.locate();
    };
  relay_ = std::make_unique<CommandRelay>(
      options_.master, options_.key, options_.trust_unsigned, options_.host_name,
      [this](std::function<void()> f) { net::asio::post(io_, std::move(f)); }, std::move(relay_locate));
  if (!options_.command_socket.empty()) {
    // Virtual hosts on one machine share the path: the last one started serves it.
    if (auto listening = server_->listen_local(options_.command_socket); !listening)
      log_->warn("users' commands on this host cannot reach mbatchd through sbatchd: {}", listening.message());
  }
  MbdReporter::Locate locate;
  if (!options_.master_lease_dir.empty()) {
    locate = [locator = net::MasterLocator(options_.master, options_.master_lease_dir)] {
      auto e = locator.locate();
      return std::pair{e.host, e.port};
    };
  }
  reporter_ = std::make_unique<MbdReporter>(
      options_.master.host, options_.master.port, std::chrono::seconds(5), options_.key,
      [this](std::function<void()> f) { net::asio::post(io_, std::move(f)); }, std::move(locate));
  if (options_.master_watch) {
    master_watch_ = std::make_unique<MasterWatch>(io_, *options_.master_watch, log_);
    master_watch_->start();
  }
  if (!options_.master_lease_dir.empty()) watch_master_lease();
  log_->info("sbatchd for host {} listening on {}:{}, {} job(s) regained", options_.host_name, options_.listen_address,
             server_->port(), jobs_.size());
  sigchld_.async_wait([this](const boost::system::error_code& e, int) {
    if (!e) reap();
  });
  register_host();
  report_load();
  schedule_poll(std::chrono::milliseconds(0));
  return {};
}

void Sbatchd::run() { io_.run(); }

void Sbatchd::stop() {
  net::asio::post(io_, [this] {
    if (server_) server_->stop();
    if (master_watch_) master_watch_->stop();
    report_timer_.cancel();
    poll_timer_.cancel();
    lease_timer_.cancel();
    sigchld_.cancel();
    work_.reset();
    io_.stop();
  });
}

void Sbatchd::watch_master_lease() {
  auto term = net::MasterLease(options_.master_lease_dir).current();
  if (term.ok() && term->epoch > 0 && !term->released()) {
    if (seen_master_epoch_ != 0 && term->epoch != seen_master_epoch_) {
      log_->info("the master is now {} (term {}): registering with it", term->host, term->epoch);
      register_host();
    }
    seen_master_epoch_ = term->epoch;
  }
  lease_timer_.expires_after(std::chrono::milliseconds(500));
  lease_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) watch_master_lease();
  });
}

void Sbatchd::reap() {
  // Supervisors are our children until we restart; their outcome is in files. The jobs
  // whose supervisor ended are looked at now; the periodic poll finds the rest (one
  // started before a restart is not our child).
  int status = 0;
  for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;)
    for (const auto& [key, t] : jobs_)
      if (t.job.supervisor_pid() == pid) {
        due_.insert(key);
        break;
      }
  poll_due(std::chrono::milliseconds(0));
  sigchld_.async_wait([this](const boost::system::error_code& e, int) {
    if (!e) reap();
  });
}

// MultiCluster names a provider's host as host@cluster in a consumer's launch.
bool Sbatchd::is_this_host(const std::string& name) const {
  return name == options_.host_name || name.substr(0, name.find('@')) == options_.host_name;
}

void Sbatchd::register_host() {
  auto req = envelope();
  auto* r = req.mutable_register_host();
  r->set_host_name(options_.host_name);
  r->set_address(options_.advertise_address.empty() ? options_.listen_address : options_.advertise_address);
  r->set_port(server_ ? server_->port() : 0);
  *r->mutable_load() = sample_load();
  r->set_clock_ms(wall_now_ms());
  for (const auto& [key, t] : jobs_) {
    auto* j = r->add_jobs();
    j->set_job_id(t.job.launch().job_id());
    j->set_index(t.job.launch().index());
    j->set_pid(t.job_pid);
    j->set_stopped(t.job.stopped());
    j->set_attempt(t.job.launch().attempt());
    *j->mutable_launch() = t.job.launch();
  }
  reporter_->send(std::move(req), [this](const wire::ReplyEnvelope& reply) {
    if (reply.status() != wire::STATUS_OK) {
      log_->error("mbatchd refused the registration: {}", reply.message());
      return;
    }
    const auto& rr = reply.register_host();
    if (rr.report_interval_ms() > 0) options_.report_interval = std::chrono::milliseconds(rr.report_interval_ms());
    for (int i = 0; i < rr.unknown_jobs_size(); ++i) {
      const auto& u = rr.unknown_jobs(i);
      auto key = job_key(u.job_id(), u.index());
      auto it = jobs_.find(key);
      if (it == jobs_.end()) continue;
      // A newer run may have replaced the one mbatchd disowned while this reply travelled.
      if (i < rr.unknown_attempts_size() && rr.unknown_attempts(i) != it->second.job.launch().attempt()) continue;
      log_->warn("job {} is unknown to mbatchd; killing it", key);
      if (it->second.job_pid > 0) kill(-it->second.job_pid, SIGKILL);
      forget(key);
    }
    log_->info("registered with mbatchd");
  });
}

wire::LoadIndices Sbatchd::sample_load() {
  auto load = load_.sample();
  // Once per new error: the file is read at every report.
  if (load_.gpu_error() != last_gpu_error_) {
    if (!load_.gpu_error().empty())
      log_->error("{}; the GPUs read before are reported until it is mended", load_.gpu_error());
    last_gpu_error_ = load_.gpu_error();
  }
  return load;
}

void Sbatchd::report_load() {
  auto req = envelope();
  req.mutable_load_report()->set_host_name(options_.host_name);
  *req.mutable_load_report()->mutable_load() = sample_load();
  req.mutable_load_report()->set_clock_ms(wall_now_ms());
  reporter_->send_if_idle(std::move(req), [this](const wire::ReplyEnvelope& reply) {
    if (reply.has_load_report() && reply.load_report().reregister()) register_host();
  });
  report_timer_.expires_after(options_.report_interval);
  report_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) report_load();
  });
}

void Sbatchd::handle(wire::RequestEnvelope& request, const net::Responder& respond) {
  // Master failover: a request from a master older than one already heard from is a
  // superseded master's (master_lease.h); its word no longer counts. Every mbatchd
  // holds a term (1 or more); 0 is a tool's that signs with the key and holds none.
  if (request.master_epoch() > 0 && request.master_epoch() < newest_master_epoch_) {
    log_->warn("refused a request of the master of term {}: term {} has taken over", request.master_epoch(),
               newest_master_epoch_);
    return respond(net::error_reply(wire::STATUS_NOT_MASTER, "term " + std::to_string(newest_master_epoch_) +
                                                                 " has taken over from term " +
                                                                 std::to_string(request.master_epoch())));
  }
  newest_master_epoch_ = std::max(newest_master_epoch_, request.master_epoch());
  switch (request.request_case()) {
    case wire::RequestEnvelope::kStartJob:
    case wire::RequestEnvelope::kStartJobs: {
      std::string errors;
      if (request.has_start_job()) errors = start_job(request.start_job().launch()).message();
      for (const auto& l : request.start_jobs().launches()) {
        auto started = start_job(l);
        if (!started) errors += (errors.empty() ? "" : "; ") + started.message();
      }
      // Soon, for the start report: by then the supervisor has usually started the job.
      if (request.has_start_job())
        due_.insert(job_key(request.start_job().launch().job_id(), request.start_job().launch().index()));
      for (const auto& l : request.start_jobs().launches()) due_.insert(job_key(l.job_id(), l.index()));
      poll_due(std::chrono::milliseconds(2));
      schedule_poll(std::chrono::milliseconds(200));
      if (!errors.empty()) return respond(net::error_reply(wire::STATUS_INTERNAL, errors));
      wire::ReplyEnvelope ok;
      ok.mutable_start_job();
      return respond(ok);
    }
    case wire::RequestEnvelope::kSignalJob:
      return on_signal_job(request.signal_job(), respond);
    case wire::RequestEnvelope::kPeek:
      return on_peek(request.peek(), respond);
    case wire::RequestEnvelope::kJobInput: {
      const auto& in = request.job_input();
      const std::string key = job_key(in.job().job_id(), in.job().index());
      const fs::path fifo = options_.state_dir / (key + ".in");
      int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (!jobs_.count(key) || fd < 0) {
        if (fd >= 0) ::close(fd);
        return respond(net::error_reply(wire::STATUS_NOT_FOUND, "job " + key + " has no terminal on this host"));
      }
      const std::string& data = in.data();
      ssize_t w = ::write(fd, data.data(), data.size());
      ::close(fd);
      if (w != static_cast<ssize_t>(data.size()))
        return respond(net::error_reply(wire::STATUS_UNAVAILABLE, "job " + key + ": its terminal is busy"));
      return respond(wire::ReplyEnvelope{});
    }
    case wire::RequestEnvelope::kModifyLimits: {
      const auto& m = request.modify_limits();
      const std::string key = job_key(m.job_id(), m.index());
      auto it = jobs_.find(key);
      if (it == jobs_.end())
        return respond(net::error_reply(wire::STATUS_NOT_FOUND, "job " + key + " is not on this host"));
      auto* l = it->second.job.mutable_launch();
      l->set_run_limit_s(m.run_limit_s());
      l->set_mem_limit_kb(m.mem_limit_kb());
      save_job(key);
      log_->info("job {}: RUNLIMIT {} s, MEMLIMIT {} KB (bmod)", key, m.run_limit_s(), m.mem_limit_kb());
      schedule_poll(std::chrono::milliseconds(0));
      return respond(wire::ReplyEnvelope{});
    }
    case wire::RequestEnvelope::kPing: {
      wire::ReplyEnvelope reply;
      reply.mutable_ping()->set_master_name(options_.host_name);
      return respond(reply);
    }
    default:
      return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "request type not served by sbatchd"));
  }
}

// A launch for another host means mbatchd reached the wrong sbatchd (one advertising
// an address that is not its own, say): running it would run the job where nobody
// chose to, and again at every retry.
daemon::Status Sbatchd::start_job(const wire::JobLaunch& l) {
  const std::string key = job_key(l.job_id(), l.index());
  if (l.exec_hosts_size() > 0 && !is_this_host(l.exec_hosts(0))) {
    log_->error(
        "refused job {}: it is for host {}, and this sbatchd serves {}; mbatchd reached it at an address "
        "that is not {}'s (check --advertise and --listen on both hosts)",
        key, l.exec_hosts(0), options_.host_name, l.exec_hosts(0));
    return daemon::fail("job " + key + " is for host " + l.exec_hosts(0) + ", not for " + options_.host_name);
  }
  if (auto it = jobs_.find(key); it != jobs_.end()) {
    const auto& t = it->second;
    if (t.job.launch().attempt() == l.attempt()) return {};  // a retried StartJob: already running
    // An earlier run's StartJob that arrived late: the run this host has is newer.
    if (l.attempt() != 0 && l.attempt() < t.job.launch().attempt())
      return daemon::fail("job " + key + " run " + std::to_string(l.attempt()) + " is older than run " +
                          std::to_string(t.job.launch().attempt()) + ", which this host has");
    // mbatchd has moved on to a new run (a failed pre-exec requeued the job, say) before
    // the report about the old one was acknowledged. That report is still sent; it names
    // its attempt, so neither side mistakes it for the new run.
    if (!t.finish_sent) {
      log_->warn("job {}: run {} replaced by run {} while still active; killing it", key, t.job.launch().attempt(),
                 l.attempt());
      if (t.job_pid > 0) kill(-t.job_pid, SIGKILL);
      kill(-t.job.supervisor_pid(), SIGKILL);
    }
    jobs_.erase(it);
  }
  // Leftovers of an earlier run of the same job (requeued) must not be mistaken for this one.
  for (const char* ext : {".run", ".hosts", ".out", ".in"}) {
    std::error_code ec;
    fs::remove(options_.state_dir / (key + ext), ec);
  }
  auto spawned = spawn_supervisor(l, options_.state_dir, options_.allow_root_jobs);
  if (!spawned) return daemon::fail("cannot start job " + key + ": " + spawned.error());
  const pid_t pid = *spawned;
  Tracked t;
  *t.job.mutable_launch() = l;
  t.job.set_supervisor_pid(pid);
  jobs_[key] = std::move(t);
  save_job(key);
  log_->debug("job {} started (supervisor {})", key, pid);
  return {};
}

void Sbatchd::on_peek(const wire::PeekRequest& r, const net::Responder& respond) {
  const std::string key = job_key(r.job().job_id(), r.job().index());
  auto it = jobs_.find(key);
  if (it == jobs_.end())
    return respond(net::error_reply(wire::STATUS_NOT_FOUND, "job " + key + " is not on this host"));
  // At most 1 MB per call: bpeek -f asks again for the rest.
  constexpr std::int64_t kChunk = 1 << 20;
  wire::ReplyEnvelope reply;
  auto* out = reply.mutable_peek();
  std::int64_t offset = std::max<std::int64_t>(0, r.offset());
  const auto& launch = it->second.job.launch();
  const std::string path = output_path(launch, options_.state_dir).string();
  // The spool is sbatchd's own; a -o file is the user's to name and to swap for a link
  // or a FIFO, so it is opened with the user's rights and must be a regular file.
  int fd = -1;
  std::string why;
  if (launch.spec().out_file().empty()) {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  } else if (auto user = lookup_user(launch.user())) {
    auto opened = open_user_file_for_reading(*user, path);
    fd = opened ? *opened : -1;
    why = opened.error();
  } else if (geteuid() != 0) {
    auto opened = open_user_file_for_reading(UserIdentity{}, path);  // not root: our own rights
    fd = opened ? *opened : -1;
    why = opened.error();
  } else {
    why = "user " + launch.user() + " does not exist on this host";
  }
  if (fd < 0 && !why.empty()) {
    log_->warn("bpeek of job {} refused: {}", key, why);
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, "cannot read its output file " + why));
  }
  if (fd >= 0) {
    std::string text(static_cast<size_t>(kChunk), '\0');
    ssize_t n = ::pread(fd, text.data(), text.size(), static_cast<off_t>(offset));
    ::close(fd);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    offset += static_cast<std::int64_t>(text.size());
    out->set_text(std::move(text));
  }
  out->set_next_offset(offset);
  out->set_finished(it->second.finish_sent);
  respond(reply);
}

void Sbatchd::on_signal_job(const wire::SignalJobRequest& r, const net::Responder& respond) {
  const std::string key = job_key(r.job_id(), r.index());
  if (!r.host_name().empty() && !is_this_host(r.host_name()))
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "a signal for job " + key + " on host " + r.host_name() +
                                                                  " reached " + options_.host_name));
  auto it = jobs_.find(key);
  if (it == jobs_.end())
    return respond(net::error_reply(wire::STATUS_NOT_FOUND, "job " + key + " is not on this host"));
  auto& t = it->second;
  // Meant for another run of the job: not this one's to receive.
  if (r.attempt() != 0 && t.job.launch().attempt() != 0 && r.attempt() != t.job.launch().attempt())
    return respond(net::error_reply(wire::STATUS_NOT_FOUND, "job " + key + " run " + std::to_string(r.attempt()) +
                                                                " is not on this host (run " +
                                                                std::to_string(t.job.launch().attempt()) + " is)"));
  if (t.job_pid == 0) t.job_pid = read_run_state(options_.state_dir, key).job_pid;
  if (r.terminate() && t.job_pid > 0) {
    // A second bkill while the sequence runs changes nothing: the job is already being
    // terminated, and its deadline stays where the first one put it.
    if (begin_terminate(t.job, wall_now_ms(), r.terminate_interval_s())) {
      if (!r.exit_reason().empty()) t.job.set_exit_reason(r.exit_reason());
      log_->info("job {}: terminating, {} s between SIGINT, SIGTERM and SIGKILL", key, r.terminate_interval_s());
      advance_terminate(key, t);
    }
  } else {
    // Still in pre-exec, a TERMINATE is a SIGKILL of the supervisor's group, which holds it.
    const int sig = r.terminate() ? SIGKILL : r.signal();
    if (!r.exit_reason().empty()) t.job.set_exit_reason(r.exit_reason());
    if (sig == SIGSTOP) t.job.set_stopped(true);
    if (sig == SIGCONT) t.job.set_stopped(false);
    if (sig == SIGKILL) end_terminate(t.job);
    // Saved before the signal goes: the job's report (job_report.h) reads the reason the
    // signal ends it for from the state file.
    save_job(key);
    if (t.job_pid > 0) {
      kill(-t.job_pid, sig);
    } else if (sig == SIGKILL) {
      kill(-t.job.supervisor_pid(), SIGKILL);
    }
  }
  wire::ReplyEnvelope ok;
  ok.mutable_signal_job();
  respond(ok);
}

void Sbatchd::advance_terminate(const std::string& key, Tracked& t) {
  // Its process group is gone: the job has ended (its outcome follows once its
  // post-execution commands have run), and nothing more is sent to a group id that
  // another process may take next.
  if (t.job_pid <= 0 || (kill(-t.job_pid, 0) != 0 && errno == ESRCH)) {
    end_terminate(t.job);
    save_job(key);
    return;
  }
  const auto due = take_due_signals(t.job, wall_now_ms());
  if (due.empty()) return;
  // Saved first: an sbatchd that dies right after sending does not send again.
  save_job(key);
  for (int sig : due) {
    log_->debug("job {}: sending signal {}", key, sig);
    kill(-t.job_pid, sig);
    // A stopped job could act on neither SIGINT nor SIGTERM until it is continued.
    if (sig != SIGKILL && t.job.stopped()) kill(-t.job_pid, SIGCONT);
  }
}

void Sbatchd::schedule_poll(std::chrono::milliseconds after) {
  if (poll_scheduled_ && after > std::chrono::milliseconds(0)) return;
  poll_scheduled_ = true;
  poll_timer_.expires_after(after);
  poll_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    poll_scheduled_ = false;
    poll();
  });
}

void Sbatchd::poll_due(std::chrono::milliseconds after) {
  if (due_scheduled_) return;
  due_scheduled_ = true;
  due_timer_.expires_after(after);
  due_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    due_scheduled_ = false;
    const std::int64_t now = wall_now();
    bool need_memory = false;
    for (const auto& key : std::exchange(due_, {})) {
      auto it = jobs_.find(key);
      if (it != jobs_.end()) poll_job(key, it->second, now, need_memory);
    }
  });
}

void Sbatchd::send_status(const std::string& key, wire::JobStatusRequest status) {
  auto req = envelope();
  status.set_host_name(options_.host_name);
  status.set_time(wall_now());
  auto tracked = jobs_.find(key);
  const std::int32_t attempt = tracked == jobs_.end() ? 0 : tracked->second.job.launch().attempt();
  status.set_attempt(attempt);
  *req.mutable_job_status() = std::move(status);
  const bool finish = req.job_status().event() != wire::JOB_EVENT_EXECUTE;
  reporter_->send(std::move(req), [this, key, finish, attempt](const wire::ReplyEnvelope&) {
    if (!finish) return;
    auto it = jobs_.find(key);
    if (it != jobs_.end() && it->second.job.launch().attempt() != attempt) return;  // a newer run
    if (it != jobs_.end() && it->second.job.launch().spec().interactive()) {
      it->second.forget_at = std::chrono::steady_clock::now() + kInteractiveOutputKept;
      return;
    }
    forget(key);
  });
}

void Sbatchd::poll_job(const std::string& key, Tracked& t, std::int64_t now, bool& need_memory) {
  const auto& l = t.job.launch();
  RunState run;
  if (t.job_pid == 0 || !t.finish_sent) run = read_run_state(options_.state_dir, key);
  if (t.job_pid == 0) t.job_pid = run.job_pid;
  const bool ended = !t.finish_sent && run.outcome;
  JobOutcome out = ended ? *run.outcome : JobOutcome{};
  // A job that already ended needs no separate start report: the finish says it all.
  if (t.job_pid > 0 && !t.execute_sent && !ended) {
    t.execute_sent = true;
    wire::JobStatusRequest s;
    s.set_job_id(l.job_id());
    s.set_index(l.index());
    s.set_event(wire::JOB_EVENT_EXECUTE);
    s.set_pid(t.job_pid);
    s.set_exec_cwd(l.spec().cwd());
    s.set_exec_home(exec_home_of(l));
    send_status(key, s);
  }
  if (t.finish_sent) return;
  if (ended) {
    t.finish_sent = true;
    wire::JobStatusRequest s;
    s.set_job_id(l.job_id());
    s.set_index(l.index());
    s.set_wait_status(out.wait_status);
    s.set_cpu_time(out.cpu_time);
    s.set_max_rss_kb(out.max_rss_kb);
    s.set_pid(t.job_pid);
    // Where it ran, for a job that ended before its start was reported.
    if (!t.execute_sent) {
      s.set_exec_cwd(l.spec().cwd());
      s.set_exec_home(exec_home_of(l));
    }
    s.set_message(out.message);
    if (out.kind == "preexec") {
      s.set_event(wire::JOB_EVENT_PRE_EXEC_FAILED);
    } else if (out.kind == "nostart") {
      s.set_event(wire::JOB_EVENT_START_FAILED);
    } else {
      s.set_event(wire::JOB_EVENT_FINISH);
      std::string reason = t.job.exit_reason();
      if (reason.empty() && WIFSIGNALED(out.wait_status) && WTERMSIG(out.wait_status) == SIGXCPU)
        reason = "TERM_CPULIMIT";
      s.set_exit_reason(reason);
    }
    send_status(key, s);
    return;
  }
  // A supervisor that died without an outcome (killed by hand): the job is lost.
  if (!process_alive(t.job.supervisor_pid()) && !read_run_state(options_.state_dir, key).outcome) {
    t.finish_sent = true;
    wire::JobStatusRequest s;
    s.set_job_id(l.job_id());
    s.set_index(l.index());
    s.set_event(wire::JOB_EVENT_FINISH);
    s.set_wait_status(SIGKILL);
    s.set_exit_reason(t.job.exit_reason().empty() ? "TERM_ORPHAN_SYSTEM" : t.job.exit_reason());
    log_->warn("supervisor of job {} is gone without an outcome", key);
    send_status(key, s);
    return;
  }
  if (terminating(t.job)) advance_terminate(key, t);
  // LSF sends SIGUSR2 at the run limit and kills ten minutes later; here the run limit
  // kills at once, as it always has.
  if (l.run_limit_s() > 0 && t.job_pid > 0 && now >= l.start_time() + l.run_limit_s() &&
      t.job.exit_reason() != "TERM_RUNLIMIT") {
    log_->info("job {} reached its RUNLIMIT of {} s", key, l.run_limit_s());
    t.job.set_exit_reason("TERM_RUNLIMIT");
    end_terminate(t.job);
    save_job(key);
    kill(-t.job_pid, SIGKILL);
  }
  if (l.mem_limit_kb() > 0) need_memory = true;
}

void Sbatchd::poll() {
  const std::int64_t now = wall_now();
  bool need_memory = false;
  std::vector<std::string> expired;
  for (const auto& [key, t] : jobs_)
    if (t.forget_at && *t.forget_at <= std::chrono::steady_clock::now()) expired.push_back(key);
  for (const auto& key : expired) forget(key);
  for (auto& [key, t] : jobs_) poll_job(key, t, now, need_memory);
  if (need_memory && std::chrono::steady_clock::now() - last_memory_check_ > std::chrono::seconds(1)) check_memory();
  if (!jobs_.empty()) schedule_poll(std::chrono::milliseconds(200));
}

void Sbatchd::check_memory() {
  last_memory_check_ = std::chrono::steady_clock::now();
  auto rss = rss_by_group();
  for (auto& [key, t] : jobs_) {
    const auto& l = t.job.launch();
    if (l.mem_limit_kb() <= 0 || t.job_pid <= 0 || t.finish_sent) continue;
    auto it = rss.find(t.job_pid);
    // A job already being terminated (bkill) is left to that.
    if (it != rss.end() && it->second > l.mem_limit_kb() && t.job.exit_reason() != "TERM_MEMLIMIT" &&
        !terminating(t.job)) {
      log_->info("job {} uses {} KB, over its MEMLIMIT of {} KB", key, it->second, l.mem_limit_kb());
      t.job.set_exit_reason("TERM_MEMLIMIT");
      // LSF ends it with the TERMINATE action (LSB_JOB_MEMLIMIT): SIGINT, SIGTERM, SIGKILL.
      if (l.terminate_interval_s() >= 0 && begin_terminate(t.job, wall_now_ms(), l.terminate_interval_s())) {
        advance_terminate(key, t);
      } else {
        end_terminate(t.job);
        save_job(key);
        kill(-t.job_pid, SIGKILL);
      }
    }
  }
}

void Sbatchd::forget(const std::string& key) {
  jobs_.erase(key);
  for (const char* ext : {".job", ".run", ".hosts", ".out", ".in"}) {
    std::error_code ec;
    fs::remove(options_.state_dir / (key + ext), ec);
  }
}

// One file per job (<key>.job), written when the job changes: a change costs the same
// whatever the number of jobs on the host.
void Sbatchd::save_job(const std::string& key) {
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return;
  fs::path path = options_.state_dir / (key + ".job");
  fs::path tmp = options_.state_dir / (key + ".job.tmp");
  const std::string bytes = it->second.job.SerializeAsString();
  // 0600: the job's environment may hold the user's secrets.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  if (fd >= 0) ::close(fd);
  std::error_code ec;
  if (ok) fs::rename(tmp, path, ec);
  if (!ok || ec) log_->error("cannot write {}: {}", path.string(), ok ? ec.message() : std::strerror(errno));
}

void Sbatchd::load_state() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(options_.state_dir, ec)) {
    if (entry.path().extension() != ".job") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    wire::SbdJob job;
    if (!job.ParseFromIstream(&in)) {
      log_->error("{} is damaged; that job is not regained", entry.path().string());
      continue;
    }
    Tracked t;
    t.job = job;
    // execute_sent starts false: a report that may not have been acknowledged goes
    // again, and mbatchd ignores repeats.
    jobs_[job_key(job.launch().job_id(), job.launch().index())] = std::move(t);
  }
}

}  // namespace lsf::sbd
