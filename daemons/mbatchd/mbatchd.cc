#include "daemons/mbatchd/mbatchd.h"

#include <chrono>
#include <csignal>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/mbatchd/acct_record.h"

namespace lsf::mbd {

Mbatchd::Mbatchd(MbatchdOptions options)
    : options_(std::move(options)),
      config_(options_.config),
      config_index_(index_config(*config_)),
      log_(options_.log),
      work_(net::asio::make_work_guard(io_)),
      hosts_(ComponentContext{config_, state_, sink_, log_}, io_, outbound_, options_.key, host_tracker_hooks()),
      scheduling_(ComponentContext{config_, state_, sink_, log_}, config_index_, io_, scheduling_hooks()) {
  state_.sync_config(*config_, config_index_.policy);
  router_ = make_router();
}

Mbatchd::~Mbatchd() {
  scheduling_.join();
  outbound_.join();
  log_core_.stop_writer();
}

ClusterLinksHooks Mbatchd::cluster_links_hooks() {
  ClusterLinksHooks h;
  h.view = [this] { return scheduling_.build_view(false, false); };
  h.policy = [this] { return config_index_.policy; };
  h.status_of = [this](const std::string& host) { return hosts_.status_of(host); };
  h.max_slots = [this](const std::string& host) { return hosts_.host_max_slots(host); };
  h.call_host = [this](const std::string& host, wire::RequestEnvelope request,
                       std::function<void(const net::CallResult&)> done) {
    hosts_.call_host(host, std::move(request), std::move(done));
  };
  h.kill_and_requeue = [this](const Job& job, const std::string& exit_reason) {
    return job_service_.kill_and_requeue(job, exit_reason);
  };
  h.resend_signals = [this](const std::string& host) {
    if (!hosts_.undelivered().empty()) hosts_.resend_signals(host);
  };
  h.request_pass = [this] { scheduling_.request_pass(); };
  h.report_interval = [this] { return hosts_.report_interval(); };
  h.own_port = [this] { return server_ ? server_->port() : std::uint16_t{0}; };
  return h;
}

std::int64_t Mbatchd::now() const {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

daemon::Status Mbatchd::recover() { return log_core_.recover(); }

daemon::Status Mbatchd::start() {
  const bool took_over = options_.role && options_.role->took_over();
  if (options_.role) hosts_.set_master_epoch(options_.role->epoch());
  if (auto st = log_core_.open(options_.event_log, options_.fresh_snapshot); !st.ok()) return st;

  // On a full disk the start is not recorded: the reserve is kept for what must be.
  if (auto why = sink_.refusal(); why.empty()) {
    wire::EventRecord start;
    start.mutable_mbd_start()->set_master(options_.host_name);
    start.mutable_mbd_start()->set_cluster(config_->cluster_name);
    if (options_.role) start.mutable_mbd_start()->set_epoch(options_.role->epoch());
    sink_.record(start);
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
    if (auto listening = server_->listen_local(local); !listening)
      return daemon::fail(listening.message() + " (set LSB_MBD_SOCKET in lsf.conf)");
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
  start_metrics();
  hosts_.start();
  cluster_links_.start();
  scheduling_.request_pass();
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
    if (metrics_server_) metrics_server_->stop();
    if (history_timer_) history_timer_->cancel();
    scheduling_.cancel_timers();
    hosts_.stop();
    if (lease_timer_) lease_timer_->cancel();
    work_.reset();
    // Let what is already queued for durability finish, then leave the loop.
    log_core_.close([this] { return lifecycle_.was_fenced(); }, [this] { io_.stop(); });
  });
}

// The state holds changes the log lost, and they cannot be taken back one by one:
// recovery from the log is what makes the two agree again, so mbatchd stops and starts
// again (main.cc), replaying only what was durable (see event_log_writer.h).
void Mbatchd::on_event_log_failure() {
  if (options_.role && options_.role->fenced()) return step_down();
  if (!lifecycle_.log_failed()) return;
  log_->critical(
      "cannot write the event log: {}; changes made since the last sync are not in lsb.events: restarting, so that "
      "the state is recovered from what is durable",
      log_core_.failure());
  stop();
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
  sink_.record(ev, at);
  sink_.append_acct(job_finish_record(job, ev.time()));
  log_core_.maybe_snapshot();
  scheduling_.request_pass();
}

}  // namespace lsf::mbd
