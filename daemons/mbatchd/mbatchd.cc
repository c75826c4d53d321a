#include "daemons/mbatchd/mbatchd.h"

#include <chrono>
#include <csignal>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/mbatchd/acct_record.h"
#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/event_log_reader.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

fs::path logdir_of(const config::ClusterConfig& c) {
  return fs::path(c.lsf_conf.lsb_sharedir) / c.cluster_name / "logdir";
}

namespace {

// Snapshots also start when lsb.events passes this size, whatever MAX_JOB_NUM says.
constexpr std::uint64_t kMaxEventLogBytes = 256u << 20;

}  // namespace

Mbatchd::Mbatchd(MbatchdOptions options)
    : options_(std::move(options)),
      config_(options_.config),
      config_index_(index_config(*config_)),
      log_(options_.log),
      work_(net::asio::make_work_guard(io_)),
      sink_(state_, log_, [this] { on_event_log_failure(); }),
      hosts_(ComponentContext{config_, state_, sink_, log_}, io_, outbound_, options_.key, host_tracker_hooks()),
      snapshot_timer_(io_),
      scheduling_(ComponentContext{config_, state_, sink_, log_}, config_index_, io_, scheduling_hooks()) {
  state_.sync_config(*config_, config_index_.policy);
  router_ = make_router();
}

Mbatchd::~Mbatchd() {
  scheduling_.join();
  outbound_.join();
  if (event_log_) event_log_->stop();
}

ClusterLinksHooks Mbatchd::cluster_links_hooks() {
  ClusterLinksHooks h;
  h.view = [this] { return build_view(false, false); };
  h.policy = [this] { return config_index_.policy; };
  h.status_of = [this](const std::string& host) { return status_of(host); };
  h.max_slots = [this](const std::string& host) { return host_max_slots(host); };
  h.call_host = [this](const std::string& host, wire::RequestEnvelope request,
                       std::function<void(const net::CallResult&)> done) {
    call_host(host, std::move(request), std::move(done));
  };
  h.kill_and_requeue = [this](const Job& job, const std::string& exit_reason) {
    if (requeue_after_kill_.count(job.key)) return false;
    requeue_after_kill_[job.key] = {false, true};  // ahead of the waiting jobs
    signal_on_host(job, SIGKILL, exit_reason);
    return true;
  };
  h.resend_signals = [this](const std::string& host) {
    if (!undelivered_.empty()) resend_signals(host);
  };
  h.request_pass = [this] { request_pass(); };
  h.report_interval = [this] { return report_interval(); };
  h.own_port = [this] { return server_ ? server_->port() : std::uint16_t{0}; };
  return h;
}

std::int64_t Mbatchd::now() const {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

daemon::Status Mbatchd::recover() {
  auto started = std::chrono::steady_clock::now();
  const LogDirs dirs = event_log_dirs(*config_, options_.host_name);  // LSB_LOCALDIR (duplicate_log.h)
  if (auto err = reconcile_log_copies(dirs, *log_); !err.empty()) return daemon::fail(err);
  fs::path dir = dirs.primary;
  if (auto err = make_log_dir(dir); !err.empty()) return daemon::fail(err);
  job_ids_ = JobIdMark(dir / "lsb.jobid");
  std::string mark_error;
  job_ids_.load(&mark_error);
  if (!mark_error.empty()) return daemon::fail(mark_error);

  std::uint64_t snapshot_jobs = 0;
  // The newest master term seen so far: a record of an older one after it is a late
  // write of a master that had been superseded, never acknowledged, and is skipped.
  std::int64_t newest_epoch = 0;
  std::uint64_t superseded_records = 0;
  auto snap = read_event_file(dir / "lsb.snapshot", [&](std::string_view payload, std::uint64_t) -> std::string {
    wire::Snapshot s;
    if (!s.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return "cannot parse snapshot";
    state_.load_snapshot(s);
    snapshot_jobs = static_cast<std::uint64_t>(s.jobs_size());
    newest_epoch = s.epoch();
    return {};
  });
  if (!snap.error.empty()) return daemon::fail(snap.error);
  if (snap.torn_tail) return daemon::fail((dir / "lsb.snapshot").string() + " is incomplete");
  const std::int64_t snapshot_seq = state_.last_seq();

  std::uint64_t replayed = 0;
  auto events = read_event_file(dir / "lsb.events", [&](std::string_view payload, std::uint64_t) -> std::string {
    wire::EventRecord r;
    if (!r.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return "cannot parse event record";
    if (r.seq() <= snapshot_seq) return {};
    if (r.epoch() < newest_epoch) {
      ++superseded_records;
      return {};
    }
    newest_epoch = r.epoch();
    ++replayed;
    return state_.apply(r);
  });
  if (events.damage_offset)
    return daemon::fail(
        events.error +
        "; `mbatchd --salvage` keeps the records before the damage and moves the rest aside (see docs/admin.md)");
  if (!events.error.empty()) return daemon::fail(events.error);
  // Ids handed out before records were lost (a salvage, a cut at a full disk) stay used.
  state_.raise_next_job_id(job_ids_.mark());
  valid_log_bytes_ = events.good_bytes;
  if (events.torn_tail) {
    log_->warn(
        "{}: dropped a partial record after offset {} (torn write at a crash); recovered to the last whole record",
        (dir / "lsb.events").string(), events.good_bytes);
  }
  if (superseded_records > 0)
    log_->warn("skipped {} records written by a master after its term had been taken over", superseded_records);
  state_.sync_config(*config_, config_index_.policy);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  log_->info("recovered {} jobs ({} from lsb.snapshot, {} events replayed) in {} ms", state_.jobs().size(),
             snapshot_jobs, replayed, took.count());
  return {};
}

daemon::Status Mbatchd::start() {
  const LogDirs dirs = event_log_dirs(*config_, options_.host_name);
  fs::path dir = dirs.primary;
  EventLogOptions log_options = options_.event_log;
  log_options.replica = dirs.replica;
  log_options.on_replica = replica_logger(log_, dir);
  // After a takeover the log starts afresh too: the old master may still hold
  // lsb.events open, and its late writes must land in a file no one appends to.
  const bool took_over = options_.role && options_.role->took_over();
  log_options.snapshot_first = options_.fresh_snapshot || took_over;
  if (auto role = options_.role) {
    log_options.fence = [role]() -> std::string {
      if (!role->fenced()) return {};
      return "this mbatchd's term " + std::to_string(role->epoch()) + " was taken over by " + role->successor();
    };
    sink_.set_epoch(role->epoch());
    hosts_.set_master_epoch(role->epoch());
  }
  event_log_ = std::make_unique<EventLogWriter>(
      dir, valid_log_bytes_, [this](std::function<void()> f) { net::asio::post(io_, std::move(f)); }, log_options);
  if (!event_log_->open_error().empty()) return daemon::fail(event_log_->open_error());
  sink_.attach(event_log_.get());
  if (log_options.snapshot_first) write_fresh_snapshot();

  // On a full disk the start is not recorded: the reserve is kept for what must be.
  if (auto why = log_refusal(); why.empty()) {
    wire::EventRecord start;
    start.mutable_mbd_start()->set_master(options_.host_name);
    start.mutable_mbd_start()->set_cluster(config_->cluster_name);
    if (options_.role) start.mutable_mbd_start()->set_epoch(options_.role->epoch());
    record(start);
  }

  auto port = static_cast<std::uint16_t>(config_->lsf_conf.mbd_port.value_or(0));
  try {
    net::ServerOptions so = options_.limits;
    so.log_error = [this](const std::string& m) { log_->warn("rejected request: {}", m); };
    so.on_refused = [this](const wire::RequestEnvelope& r, const std::string& why) {
      // An sbatchd whose clock is too far off for its signature: bhosts -l says so.
      // Both refusals a clock that far behind meets: too old, or older than this mbatchd.
      if (why.find("the sender's clock is") == std::string::npos) return;
      if (r.has_register_host()) hosts_.note_clock(r.register_host().host_name(), r.register_host().clock_ms(), true);
      if (r.has_load_report()) hosts_.note_clock(r.load_report().host_name(), r.load_report().clock_ms(), true);
    };
    so.destination = "mbatchd";
    so.cluster_name = config_->cluster_name;
    so.started_at = static_cast<std::int64_t>(std::time(nullptr));
    so.key = options_.key;
    so.trust_unsigned = options_.trust_unsigned;
    so.pair_keys = options_.pair_keys;
    if (options_.role) so.master_epoch = options_.role->epoch();
    server_ = std::make_unique<net::RpcServer>(
        io_, net::tcp::endpoint(net::asio::ip::make_address(options_.listen_address), port),
        [this](wire::RequestEnvelope& r, const net::Peer& peer, const net::Responder& respond) {
          if (r.relayed_by().empty() || !peer.is_daemon()) return handle(r, peer, respond);
          // A user's command an sbatchd forwarded (command_relay.h): the user's, with
          // the identity that host's kernel gave, and never a daemon's.
          net::Peer user = peer;
          user.kind = net::PeerKind::kLocalUser;
          handle(r, user, respond);
        },
        so);
  } catch (const std::exception& e) {
    return daemon::fail("cannot listen on port " + std::to_string(port) + ": " + e.what());
  }
  const std::string local = net::local_socket_path(config_->lsf_conf);
  if (!local.empty()) {
    if (auto err = server_->listen_local(local); !err.empty())
      return daemon::fail(err + " (set LSB_MBD_SOCKET in lsf.conf)");
  }
  log_->info("mbatchd of cluster {} listening on port {}{}", config_->cluster_name, server_->port(),
             local.empty() ? std::string() : " and on " + local);
  if (options_.role) {
    options_.role->set_port(server_->port());
    lease_timer_ = std::make_unique<net::asio::steady_timer>(io_);
    renew_lease();
    log_->info("master of cluster {} in term {}{}", config_->cluster_name, options_.role->epoch(),
               took_over ? " (taken over: lsb.events starts afresh)" : "");
  }
  hosts_.start();
  cluster_links_.start();
  request_pass();
  lifecycle_.serving();
  return {};
}

void Mbatchd::renew_lease() {
  if (auto st = options_.role->renew(); !st.ok()) {
    if (options_.role->fenced()) return step_down();
    // The shared directory may be back by the next beat; until then the candidates
    // see a still lease and one of them takes over, which fences this one.
    log_->warn("cannot renew the master lease: {}", st.message());
  }
  lease_timer_->expires_after(options_.role->timing().exchange_interval);
  lease_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (!ec) renew_lease();
  });
}

void Mbatchd::step_down() {
  if (!lifecycle_.fenced()) return;
  log_->critical("stepping down: this mbatchd's term {} was taken over by {}; nothing more is acknowledged",
                 options_.role->epoch(), options_.role->successor());
  stop();
}

void Mbatchd::run() {
  state_thread_.bind();
  io_.run();
}

void Mbatchd::stop() {
  net::asio::post(io_, [this] {
    lifecycle_.stopping();
    if (server_) server_->stop();
    scheduling_.cancel_timers();
    hosts_.stop();
    snapshot_timer_.cancel();
    if (lease_timer_) lease_timer_->cancel();
    work_.reset();
    // Let what is already queued for durability finish, then leave the loop.
    if (event_log_) {
      event_log_->when_durable([this](bool) {
        // A fenced master's mark is behind the new master's: it must not write it back.
        if (lifecycle_.was_fenced()) return io_.stop();
        if (auto err = job_ids_.settle(state_.next_job_id()); !err.empty())
          log_->warn("cannot write lsb.jobid: {}; the next ids start after a gap", err);
        io_.stop();
      });
    } else {
      io_.stop();
    }
  });
}

void Mbatchd::record(wire::EventRecord& event, std::int64_t at) {
  state_thread_.check("mbatchd's state (record)");
  sink_.record(event, at);
}

void Mbatchd::reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply) {
  sink_.reply_when_durable(respond, std::move(reply));
}

std::string Mbatchd::log_refusal() { return sink_.refusal(); }

void Mbatchd::note_refusal(const std::string& cause) { sink_.note_refusal(cause); }

// The state holds changes the log lost, and they cannot be taken back one by one:
// recovery from the log is what makes the two agree again, so mbatchd stops and starts
// again (main.cc), replaying only what was durable (see event_log_writer.h).
void Mbatchd::on_event_log_failure() {
  if (options_.role && options_.role->fenced()) return step_down();
  if (!lifecycle_.log_failed()) return;
  log_->critical(
      "cannot write the event log: {}; changes made since the last sync are not in lsb.events: restarting, so that "
      "the state is recovered from what is durable",
      event_log_->failure());
  stop();
}

// Until the rotation is made, every change is refused (the writer's refusal says so);
// on a full disk it fails, and is tried again with the state as it is then.
void Mbatchd::write_fresh_snapshot() {
  event_log_->rotate(snapshot_now().SerializeAsString());
  event_log_->when_durable([this](bool) {
    if (!event_log_->snapshot_needed()) {
      log_->info("lsb.snapshot and a new lsb.events hold the recovered state; changes are accepted");
      log_refusal();  // ends and logs a refusal under way
      return;
    }
    // Once a minute on a disk that stays full, not every second.
    if (snapshot_tries_++ % 60 == 0)
      log_->warn("cannot write a fresh snapshot yet ({}); trying again each second", event_log_->refusal());
    snapshot_timer_.expires_after(std::chrono::seconds(1));
    snapshot_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) write_fresh_snapshot();
    });
  });
}

void Mbatchd::finish_job(Job& job, wire::JobState state, int wait_status, double cpu, std::int64_t rss,
                         const std::string& reason, std::int64_t at) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  st->set_state(state);
  st->set_exit_status(wait_status);
  st->set_cpu_time(cpu);
  st->set_max_rss_kb(rss);
  st->set_reason(reason);
  record(ev, at);
  event_log_->append_acct(job_finish_record(job, ev.time()));
  maybe_snapshot();
  request_pass();
}

wire::Snapshot Mbatchd::snapshot_now() const {
  wire::Snapshot s = state_.snapshot(now());
  if (options_.role) s.set_epoch(options_.role->epoch());
  return s;
}

void Mbatchd::maybe_snapshot() {
  // Not on a full disk: the rotation would fail, and with lsb.events past its size limit
  // every finished job would serialize the whole state again for nothing.
  if (!event_log_->refusal().empty()) return;
  const int max_jobs = std::max(1, config_->params.max_job_num);
  if (state_.finished_since_snapshot() < max_jobs && event_log_->stats().bytes < kMaxEventLogBytes) return;
  int cleaned = state_.clean_finished(now() - config_->params.clean_period);
  state_.reset_finished_since_snapshot();
  auto started = std::chrono::steady_clock::now();
  std::string payload = snapshot_now().SerializeAsString();
  event_log_->rotate(std::move(payload));
  log_->info("snapshot of {} jobs queued ({} finished jobs cleaned) in {} us", state_.jobs().size(), cleaned,
             std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
}

}  // namespace lsf::mbd
