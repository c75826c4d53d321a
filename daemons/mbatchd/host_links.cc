// mbatchd's side of the sbatchds: registration, load reports, job status reports,
// and the StartJob / SignalJob calls it makes to them. A host that stops reporting
// becomes unreach after two report intervals and unavail after MAX_SBD_FAIL more.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <set>

#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"
#include "libconfig/text.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {

std::chrono::milliseconds Mbatchd::report_interval() const {
  return std::chrono::seconds(std::max(1, config_->params.sbd_sleep_time));
}

// MXJ as the scheduling policy resolved it (host row, else model or type, else default).
int Mbatchd::host_max_slots(const std::string& host) const {
  const sched::HostPolicy& policy = config_index_.policy->host(host);
  if (policy.mxj_is_ncpus) {
    auto it = links_.find(host);
    return it != links_.end() && it->second.load.ncpus() > 0 ? it->second.load.ncpus() : 1;
  }
  return policy.mxj;
}

double load_value(const wire::LoadIndices& l, std::string_view index) {
  if (index == "r15s") return l.r15s();
  if (index == "r1m") return l.r1m();
  if (index == "r15m") return l.r15m();
  if (index == "ut") return l.ut();
  if (index == "pg") return l.pg();
  if (index == "ls") return l.ls();
  if (index == "it") return l.it();
  if (index == "tmp") return l.tmp_mb();
  if (index == "swp") return l.swp_mb();
  if (index == "mem") return l.mem_mb();
  if (index == "ncpus") return static_cast<double>(l.ncpus());
  if (index == "maxmem") return l.maxmem_mb();
  if (index == "maxswp") return l.maxswp_mb();
  if (index == "maxtmp") return l.maxtmp_mb();
  return std::nan("");
}

// A host that stopped answering for good takes its jobs with it; rerunnable jobs
// (bsub -r, RERUNNABLE queues) go back to PEND ahead of every waiting job.
// So are jobs whose StartJob's outcome was never known: as far as anyone can tell they
// never started, and should one have, the host's registration has it killed.
void Mbatchd::requeue_lost_jobs(const std::string& host) {
  std::vector<sched::JobKey> lost;
  for (const auto& [key, job] : state_.started()) {
    if (std::find(job->exec_hosts.begin(), job->exec_hosts.end(), host) == job->exec_hosts.end()) continue;
    auto unknown = start_unknown_.find(key);
    bool never_confirmed = unknown != start_unknown_.end() && unknown->second == job->attempt && job->pid == 0;
    if (rerunnable(*job) || never_confirmed) lost.push_back(key);
  }
  for (const auto& key : lost) {
    wire::EventRecord ev;
    auto* e = ev.mutable_job_requeue();
    e->set_job_id(key.id);
    e->set_index(key.index);
    e->set_to_top(true);
    log_->warn("job {} lost with host {}: {}, requeued", job_label(key), host,
               start_unknown_.erase(key) ? "its start never confirmed" : "rerunnable");
    e->set_reason(std::string(sched::reason::kHostUnreach) + ": 1 host");
    record(ev);
  }
}

// REQUEUE_EXIT_VALUES: the job goes back to PEND as if never dispatched; under
// EXCLUDE(...) it never runs again on the hosts where it failed.
bool Mbatchd::requeue_on_exit(Job& job, int code) {
  const config::Queue* queue = config_->find_queue(job.queue);
  if (!queue) return false;
  // bsub -Q overrides the queue's values (checked at submission, so it parses).
  // bsub -Q overrides the application profile's, which overrides the queue's.
  config::RequeueExitValues own;
  if (!job.spec().requeue_exit_values().empty())
    if (auto parsed = config::RequeueExitValues::parse(job.spec().requeue_exit_values())) own = *parsed;
  const auto* app = application(job);
  const auto& values = !job.spec().requeue_exit_values().empty() ? own
                       : app && app->requeue_exit_values         ? *app->requeue_exit_values
                                                                 : queue->requeue_exit_values;
  bool requeue = std::find(values.requeue.begin(), values.requeue.end(), code) != values.requeue.end();
  bool exclude = std::find(values.exclude.begin(), values.exclude.end(), code) != values.exclude.end();
  if (!requeue && !exclude) return false;
  wire::EventRecord ev;
  auto* e = ev.mutable_job_requeue();
  e->set_job_id(job.key.id);
  e->set_index(job.key.index);
  if (exclude) {
    std::set<std::string> hosts(job.exec_hosts.begin(), job.exec_hosts.end());
    for (const auto& h : hosts) e->add_exclude_hosts(h);
  }
  log_->info("job {} exited with {}: requeued{}", job_label(job.key), code, exclude ? " off its hosts" : "");
  record(ev);
  request_pass();
  return true;
}

std::string Mbatchd::host_status(const std::string& host) const {
  // A provider's offer may carry a name this cluster does not know: shown as sent.
  if (!borrowed_from(host).empty()) return borrowed_host_status(host);
  return std::string(to_string(status_of(host)));
}

HostStatus Mbatchd::status_of(const std::string& host) const {
  if (!borrowed_from(host).empty()) return parse_host_status(borrowed_host_status(host)).value_or(HostStatus::kOk);
  using S = HostStatus;
  auto link = links_.find(host);
  if (link == links_.end() || !link->second.registered) return S::kUnavail;
  auto silent = std::chrono::steady_clock::now() - link->second.last_report;
  auto interval = report_interval();
  if (silent > interval * (2 + 2 * std::max(1, config_->params.max_sbd_fail))) return S::kUnavail;
  if (silent > interval * 2 + std::chrono::milliseconds(500)) return S::kUnreach;
  if (std::chrono::steady_clock::now() < link->second.unreach_until) return S::kUnreach;
  const auto& st = state_.hosts().at(host);
  if (st.admin_closed) return S::kClosedAdm;
  const sched::HostPolicy& policy = config_index_.policy->host(host);
  if (!policy.dispatch_window.is_open(config::local_week_instant())) return S::kClosedWind;
  const auto& l = link->second.load;
  auto value = [&l](std::string_view index) { return load_value(l, index); };
  if (!sched::first_past(policy.thresholds, value, false).empty()) return S::kClosedBusy;
  if (st.exclusive_jobs > 0) return S::kClosedExcl;
  int mxj = host_max_slots(host);
  if (mxj >= 0 && st.counts.run + st.counts.ssusp + st.counts.ususp >= mxj) return S::kClosedFull;
  return S::kOk;
}

void Mbatchd::check_hosts() {
  // Status is computed when asked; this tick only makes sure a pass runs when a host
  // changes between reachable and not, so pending reasons stay true.
  std::map<std::string, HostStatus> before;
  for (const auto& h : config_->hosts) before[h.name] = status_of(h.name);
  host_timer_.expires_after(std::chrono::milliseconds(500));
  host_timer_.async_wait([this, before](const boost::system::error_code& ec) {
    if (ec) return;
    // A failed write that no request waited on, and the end of a full disk, are
    // noticed here too.
    if (!event_log_->failure().empty()) return on_event_log_failure();
    if (sink_.refusing() && event_log_->refusal().empty()) log_refusal();
    bool changed = false;
    for (const auto& [name, status] : before) {
      auto now_status = status_of(name);
      if (now_status != status) {
        log_->info("host {} is {} (was {})", name, to_string(now_status), to_string(status));
        changed = true;
        if (now_status == HostStatus::kUnavail && status == HostStatus::kUnreach) requeue_lost_jobs(name);
      }
    }
    if (changed) request_pass();
    check_hosts();
  });
}

daemon::Status Mbatchd::check_advertised(const wire::RegisterHostRequest& r, const net::Peer& peer) const {
  if (r.address().empty() || r.port() == 0)
    return daemon::fail("host " + r.host_name() + " advertises no address or port");
  boost::system::error_code ec;
  auto advertised = net::asio::ip::make_address(r.address(), ec);
  if (ec) return {};  // a host name: resolved when mbatchd connects
  auto from = net::asio::ip::make_address(peer.address, ec);
  const bool remote = !ec && !from.is_loopback();
  if (remote && (advertised.is_loopback() || advertised.is_unspecified()))
    return daemon::fail("host " + r.host_name() + " advertises " + r.address() +
                        ", which does not reach it from the master (it " + "registered from " + peer.address +
                        "): start its sbatchd with --advertise set to its host name or an " +
                        "address the master reaches, listening there (--listen ADDRESS or 0.0.0.0)");
  return {};
}

void Mbatchd::on_register_host(const wire::RequestEnvelope& request, const net::Peer& peer,
                               const net::Responder& respond) {
  const auto& r = request.register_host();
  if (!config_->find_host(r.host_name()))
    return respond(net::error_reply(wire::STATUS_NOT_FOUND,
                                    "host " + r.host_name() + " is not a host of cluster " + config_->cluster_name));
  auto& link = links_[r.host_name()];
  if (auto checked = check_advertised(r, peer); !checked.ok()) {
    const std::string& why = checked.message();
    // It registers again every report interval: logged once a minute, or when the
    // reason changes.
    auto t = std::chrono::steady_clock::now();
    if (t - link.last_refusal_log > std::chrono::minutes(1) || why != link.last_refusal) {
      log_->error("registration refused: {}", why);
      link.last_refusal_log = t;
      link.last_refusal = why;
    }
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, why));
  }
  link.address = r.address();
  link.port = static_cast<std::uint16_t>(r.port());
  link.registered = true;
  link.last_report = std::chrono::steady_clock::now();
  link.load = r.load();
  if (!link.strand)
    link.strand = std::make_unique<net::asio::strand<net::asio::thread_pool::executor_type>>(
        net::asio::make_strand(outbound_.get_executor()));
  // Always a new connection: the old one may be to the sbatchd that this one replaced
  // at the same address, and would fail the next call.
  link.client = std::make_shared<net::RpcClient>(link.address, link.port, std::chrono::seconds(10));
  if (options_.key) link.client->set_key(*options_.key, "sbatchd@" + r.host_name());
  link.start_failures = 0;
  link.unreach_until = {};
  note_clock(r.host_name(), r.clock_ms());

  wire::ReplyEnvelope reply;
  reply.set_status(wire::STATUS_OK);
  auto* out = reply.mutable_register_host();
  out->set_report_interval_ms(static_cast<int>(report_interval().count()));
  // Jobs this sbatchd runs that mbatchd has not running there: they must not go on.
  // An sbatchd that predates attempts reports 0: taken as the current run.
  auto same_run = [](const Job* job, const wire::RunningJob& rj) {
    return rj.attempt() == 0 || rj.attempt() == job->attempt;
  };
  bool leases_changed = false;
  for (const auto& rj : r.jobs()) {
    if (is_lease_job_id(rj.job_id())) {
      // A consumer's job: it goes on while the consumer is in lsf.shared; its reports
      // tell the consumer how it fares.
      auto owner = lease_job_owner(rj.job_id()).first;
      if (!owner.empty()) {
        wire::JobLaunch launch = rj.launch();
        launch.set_job_id(rj.job_id());
        launch.set_index(rj.index());
        if (launch.exec_hosts_size() == 0) launch.add_exec_hosts(r.host_name());
        add_leased_job(owner, r.host_name(), std::move(launch));
        leased_jobs_[{rj.job_id(), rj.index()}].stopped = rj.stopped();
        leases_changed = true;
        continue;
      }
    }
    const Job* job = state_.find_job({rj.job_id(), rj.index()});
    bool ours = job && !job->exec_hosts.empty() && job->exec_hosts.front() == r.host_name() &&
                (job->state == wire::JOB_RUN || job->state == wire::JOB_USUSP || job->state == wire::JOB_SSUSP) &&
                same_run(job, rj);
    // A finished job is still reported until its last status is acknowledged.
    bool finishing = job && job->finished();
    if (!ours && !finishing) {
      auto* u = out->add_unknown_jobs();
      u->set_job_id(rj.job_id());
      u->set_index(rj.index());
      out->add_unknown_attempts(rj.attempt());
    }
  }
  log_->info("host {} registered from {}:{} with {} job(s)", r.host_name(), r.address(), r.port(), r.jobs_size());
  if (leases_changed) update_lent_slots();
  respond(reply);

  // Jobs the log says run here that this sbatchd does not have. Without a pid the
  // StartJob never arrived (mbatchd died between JOB_START and the call): send it
  // again. With one, sbatchd lost the job: it is requeued if rerunnable, else it exits.
  std::set<sched::JobKey> reported;
  for (const auto& rj : r.jobs()) {
    const Job* job = state_.find_job({rj.job_id(), rj.index()});
    if (job && same_run(job, rj)) {
      reported.insert({rj.job_id(), rj.index()});
      start_unknown_.erase({rj.job_id(), rj.index()});  // it did start
    }
  }
  std::vector<sched::JobKey> resend, lost;
  for (const auto& [key, job] : state_.started()) {
    if (job->exec_hosts.empty() || job->exec_hosts.front() != r.host_name() || reported.count(key)) continue;
    (job->pid == 0 ? resend : lost).push_back(key);
  }
  for (const auto& key : lost) {
    Job* job = state_.find_job(key);
    log_->warn("job {} is no longer known to sbatchd on {}", job_label(key), r.host_name());
    if (rerunnable(*job)) {
      wire::EventRecord ev;
      auto* e = ev.mutable_job_requeue();
      e->set_job_id(key.id);
      e->set_index(key.index);
      e->set_to_top(true);
      record(ev);
    } else {
      finish_job(*job, wire::JOB_EXIT, SIGKILL, 0, 0, "TERM_ORPHAN_SYSTEM");
    }
  }
  if (!resend.empty()) {
    event_log_->when_durable([this, resend](bool ok) {
      if (!ok) return;
      start_on_hosts(resend);
    });
  }
  resend_signals(r.host_name());
  request_pass();
}

void Mbatchd::on_load_report(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& r = request.load_report();
  wire::ReplyEnvelope reply;
  reply.set_status(wire::STATUS_OK);
  auto it = links_.find(r.host_name());
  // A host back from unavail registers again before it is ok: its registration says
  // which runs it has, and those mbatchd has given up on are killed first.
  if (it == links_.end() || !it->second.registered || status_of(r.host_name()) == HostStatus::kUnavail) {
    reply.mutable_load_report()->set_reregister(true);
    return respond(reply);
  }
  it->second.load = r.load();
  it->second.last_report = std::chrono::steady_clock::now();
  note_clock(r.host_name(), r.clock_ms());
  reply.mutable_load_report();
  respond(reply);
}

void Mbatchd::on_job_status(const wire::RequestEnvelope& request, const net::Peer& peer,
                            const net::Responder& respond) {
  std::vector<const wire::JobStatusRequest*> reports;
  if (request.has_job_status()) {
    reports.push_back(&request.job_status());
  } else {
    for (const auto& r : request.job_status_batch().reports()) reports.push_back(&r);
  }
  wire::ReplyEnvelope reply;
  reply.set_status(wire::STATUS_OK);
  reply.mutable_job_status();
  // A provider reports only on jobs that run on its own hosts.
  if (peer.kind == net::PeerKind::kRemoteCluster) {
    for (const auto* r : reports)
      if (borrowed_from(r->host_name()) != peer.cluster)
        return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED,
                                        "cluster " + peer.cluster + " may not report on host " + r->host_name()));
  }
  std::vector<wire::JobStatusRequest> leased;  // consumers' jobs on our hosts: theirs to apply
  for (const auto* r : reports) {
    if (peer.kind != net::PeerKind::kRemoteCluster && is_lease_job_id(r->job_id())) {
      if (auto it = links_.find(r->host_name()); it != links_.end())
        it->second.last_report = std::chrono::steady_clock::now();
      leased.push_back(*r);
    } else {
      apply_job_status(*r);
    }
  }
  if (leased.empty()) return reply_when_durable(respond, std::move(reply));
  // Acknowledged once the consumers have them too; until then the sbatchd sends again.
  forward_lease_reports(leased, [this, respond, reply](const std::string& failure) mutable {
    if (!failure.empty()) return respond(net::error_reply(wire::STATUS_UNAVAILABLE, failure));
    reply_when_durable(respond, std::move(reply));
  });
}

void Mbatchd::apply_job_status(const wire::JobStatusRequest& r) {
  Job* job = state_.find_job({r.job_id(), r.index()});
  // Reports are retried until acknowledged, so a report may arrive twice or about a
  // job that has moved on: acknowledge without changing anything.
  // A report about an earlier run of the job (a pre-exec failure acknowledged late, say)
  // must not touch the run that replaced it, even on the same host.
  bool current = job && !job->finished() && !job->exec_hosts.empty() && job->exec_hosts.front() == r.host_name() &&
                 !job->pending() && (r.attempt() == 0 || r.attempt() == job->attempt);
  if (auto it = links_.find(r.host_name()); it != links_.end())
    it->second.last_report = std::chrono::steady_clock::now();
  if (!current) {
    // A run the job has moved on from (a StartJob that arrived late, a run given up
    // with its host) goes; the job's own run that just ended is left alone.
    const bool own_run = job && r.attempt() == job->attempt && !job->exec_hosts.empty() &&
                         job->exec_hosts.front() == r.host_name() && !job->pending();
    if (job && r.event() == wire::JOB_EVENT_EXECUTE && r.attempt() != 0 && !own_run) kill_stale_run(r);
    return;
  }
  start_unknown_.erase(job->key);
  auto record_execute = [&] {
    wire::EventRecord ev;
    auto* e = ev.mutable_job_execute();
    e->set_job_id(r.job_id());
    e->set_index(r.index());
    e->set_pid(r.pid());
    e->set_exec_cwd(r.exec_cwd());
    e->set_exec_home(r.exec_home());
    record(ev, reported_time(*job, r));
  };
  switch (r.event()) {
    case wire::JOB_EVENT_EXECUTE:
      record_execute();
      break;
    case wire::JOB_EVENT_FINISH: {
      // It ended before its start was reported: record where and as what it ran.
      if (job->pid == 0 && r.pid() > 0) record_execute();
      int status = r.wait_status();
      bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.exit_reason().empty();
      std::string reason = r.exit_reason();
      if (reason.empty() && !job->reason.empty() && job->reason.rfind("TERM_", 0) == 0) reason = job->reason;
      if (auto rq = requeue_after_kill_.find(job->key); rq != requeue_after_kill_.end()) {
        wire::EventRecord ev;
        auto* e = ev.mutable_job_requeue();
        e->set_job_id(job->key.id);
        e->set_index(job->key.index);
        e->set_hold(rq->second.hold);
        e->set_to_top(rq->second.to_top);
        e->set_to_bottom(!rq->second.to_top);
        requeue_after_kill_.erase(rq);
        record(ev);
        request_pass();
        break;
      }
      if (!ok && reason.empty() && WIFEXITED(status) && requeue_on_exit(*job, WEXITSTATUS(status))) break;
      finish_job(*job, ok ? wire::JOB_DONE : wire::JOB_EXIT, status, r.cpu_time(), r.max_rss_kb(), reason,
                 reported_time(*job, r));
      log_->debug("job {} {} on {}", job_label(job->key), ok ? "done" : "exited", r.host_name());
      break;
    }
    case wire::JOB_EVENT_PRE_EXEC_FAILED:
    case wire::JOB_EVENT_START_FAILED: {
      if (r.event() == wire::JOB_EVENT_START_FAILED) {
        log_->warn("job {} could not start on {}: {}", job_label(job->key), r.host_name(), r.message());
        finish_job(*job, wire::JOB_EXIT, r.wait_status(), 0, 0, r.message());
        break;
      }
      pre_exec_failed(*job, r.wait_status());
      break;
    }
    case wire::JOB_EVENT_STOPPED:
    case wire::JOB_EVENT_RESUMED: {
      wire::JobState to = r.event() == wire::JOB_EVENT_STOPPED ? wire::JOB_SSUSP : wire::JOB_RUN;
      if (job->state == wire::JOB_USUSP && to == wire::JOB_SSUSP) break;  // we stopped it ourselves
      if (job->state == to) break;
      wire::EventRecord ev;
      auto* e = ev.mutable_job_status();
      e->set_job_id(r.job_id());
      e->set_index(r.index());
      e->set_state(to);
      record(ev);
      break;
    }
    default:
      break;
  }
}

// A failed pre-exec sends the job back to PEND for a later pass. Exit code 99 means
// "do not retry" and LOCAL_MAX_PREEXEC_RETRY bounds the retries; past it the job is held
// (PSUSP) or, under LOCAL_MAX_PREEXEC_RETRY_ACTION=EXIT, exits.
void Mbatchd::pre_exec_failed(Job& job, int wait_status) {
  const config::Queue* queue = config_->find_queue(job.queue);
  const auto& params = config_->params;
  const int failures = job.pre_exec_failures + 1;
  const bool give_up = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 99;
  const bool limit = params.local_max_preexec_retry && failures >= *params.local_max_preexec_retry;
  const bool exit = queue && queue->preexec_retry_exit ? *queue->preexec_retry_exit : params.preexec_retry_exit;
  if (give_up || (limit && exit)) {
    log_->info("job {}: pre-exec failed{}; job exits", job_label(job.key), give_up ? " with 99" : " too often");
    finish_job(job, wire::JOB_EXIT, wait_status, 0, 0, "TERM_PREEXEC_FAIL");
    return;
  }
  wire::EventRecord ev;
  auto* e = ev.mutable_job_requeue();
  e->set_job_id(job.key.id);
  e->set_index(job.key.index);
  e->set_pre_exec_failed(true);
  e->set_hold(limit);
  e->set_reason(limit ? std::string(sched::reason::kPreExecFailed) + " " + std::to_string(failures) +
                            " times (LOCAL_MAX_PREEXEC_RETRY); held"
                      : std::string(sched::reason::kPreExecFailed));
  log_->info("job {}: pre-exec failed ({} time(s)){}", job_label(job.key), failures, limit ? "; held" : "");
  record(ev);
  if (limit) return;
  // The job may go again once its pause is over: make sure a pass comes then.
  request_pass_after(std::chrono::seconds(kPreExecRetryDelay));
}

void Mbatchd::note_clock(const std::string& host, std::int64_t host_clock_ms, bool refused) {
  if (host_clock_ms <= 0) return;  // an sbatchd that does not send its clock
  if (refused && !config_->find_host(host)) return;
  auto& link = links_[host];
  link.clock_refused = refused;
  const std::int64_t offset =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count() -
      host_clock_ms;
  auto warn = [&](const char* consequence) {
    log_->warn("host {}'s clock is {:.1f} s {} the master's: {}; keep clocks in step (NTP)", host,
               std::abs(offset) / 1000.0, offset > 0 ? "behind" : "ahead of", consequence);
  };
  if (refused) {
    // Anyone may send such a request: shown, never used, and logged once a minute.
    link.refused_clock_offset_ms = offset;
    const auto t = std::chrono::steady_clock::now();
    if (t - link.last_refused_clock_log >= std::chrono::minutes(1)) {
      warn("its sbatchd's requests are refused until it is back within the allowed skew");
      link.last_refused_clock_log = t;
    }
    return;
  }
  link.clock_offset_ms = offset;
  // Signed requests are refused past kMaxClockSkew; well before that, job times move.
  const bool far = std::abs(offset) > kClockWarnMs;
  if (far && !link.clock_warned) warn("job end times it reports are corrected by that much");
  link.clock_warned = far;
}

// When the host says the job ended, on the master's clock; never before the job
// started nor after now (a report delayed by a cut keeps the time the job ended).
std::int64_t Mbatchd::reported_time(const Job& job, const wire::JobStatusRequest& r) const {
  if (r.time() <= 0) return 0;
  auto link = links_.find(r.host_name());
  const std::int64_t offset_s = link == links_.end() ? 0 : (link->second.clock_offset_ms + 500) / 1000;
  return std::clamp(r.time() + offset_s, job.start_time, now());
}

void Mbatchd::call_host(const std::string& host, wire::RequestEnvelope request,
                        std::function<void(const net::CallResult&)> done) {
  if (!borrowed_from(host).empty()) return relay_to_provider(host, std::move(request), std::move(done));
  auto it = links_.find(host);
  if (it == links_.end() || !it->second.client) {
    net::CallResult r;
    r.error = "host " + host + " has not registered";
    net::asio::post(io_, [done, r] { done(r); });
    return;
  }
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  *request.mutable_caller() = net::current_identity();
  auto client = it->second.client;
  net::asio::post(*it->second.strand, [this, client, request = std::move(request), done]() mutable {
    auto result = client->call(std::move(request));
    net::asio::post(io_, [done, result = std::move(result)] { done(result); });
  });
}

namespace {

// rusage[mem] of a requirement's preferred alternative, per slot (MB); 0: none asked.
double rusage_mem_mb(const config::ResourceRequirement* req) {
  double mb = 0;
  if (req && !req->rusage.empty())
    for (const auto& clause : req->rusage.alternatives.front())
      for (const auto& item : clause.items)
        if (item.name == "mem") mb += item.value;
  return mb;
}

}  // namespace

bool Mbatchd::make_launch(const sched::JobKey& key, wire::JobLaunch& launch) const {
  const Job* job = state_.find_job(key);
  if (!job || job->state != wire::JOB_RUN || job->exec_hosts.empty()) return false;
  const config::Queue* queue = config_->find_queue(job->queue);
  auto* l = &launch;
  l->set_job_id(key.id);
  l->set_index(key.index);
  *l->mutable_spec() = job->spec();
  l->set_user(job->user());
  l->set_queue(job->queue);
  for (const auto& h : job->exec_hosts) l->add_exec_hosts(h);
  l->set_job_name(job->display_name());
  l->set_start_time(job->start_time);
  l->set_attempt(job->attempt);
  std::int64_t run_limit = effective_run_limit(*job);
  // The application profile's values stand between the job's own and the queue's: its
  // pre-execution command runs after the queue's unless bsub -E replaces it, its
  // post-execution command before the queue's unless bsub -Ep replaces it, and its
  // limits replace the queue's defaults within the queue's maximums.
  const config::Application* app = application(*job);
  if (app) {
    if (job->spec().pre_exec().empty()) l->mutable_spec()->set_pre_exec(app->pre_exec);
    if (job->spec().post_exec().empty()) l->mutable_spec()->set_post_exec(app->post_exec);
  }
  if (queue) {
    l->set_job_starter(app && !app->job_starter.empty() ? app->job_starter : queue->job_starter);
    l->set_queue_pre_exec(queue->pre_exec);
    l->set_queue_post_exec(queue->post_exec);
    std::int64_t cpu = job->spec().cpu_limit_s();
    if (cpu == 0 && app && app->cpu_limit) cpu = std::int64_t{app->cpu_limit->minutes} * 60;
    if (cpu == 0 && queue->cpu_limit) {
      const auto& cl = queue->cpu_limit->default_value ? *queue->cpu_limit->default_value : queue->cpu_limit->maximum;
      cpu = std::int64_t{cl.minutes} * 60;
    } else if (cpu > 0 && queue->cpu_limit && queue->cpu_limit->maximum.minutes > 0) {
      cpu = std::min(cpu, std::int64_t{queue->cpu_limit->maximum.minutes} * 60);
    }
    l->set_cpu_limit_s(cpu);
    std::int64_t mem = job->spec().mem_limit_kb();
    if (mem == 0 && app && app->mem_limit) mem = *app->mem_limit;
    if (mem == 0 && queue->mem_limit)
      mem = queue->mem_limit->default_value ? *queue->mem_limit->default_value : queue->mem_limit->maximum;
    else if (mem > 0 && queue->mem_limit && queue->mem_limit->maximum > 0)
      mem = std::min(mem, queue->mem_limit->maximum);
    l->set_mem_limit_kb(mem);
  } else {
    l->set_cpu_limit_s(job->spec().cpu_limit_s());
    l->set_mem_limit_kb(job->spec().mem_limit_kb());
  }
  l->set_run_limit_s(run_limit);
  l->set_terminate_interval_s(terminate_interval(*job));
  // What the job report (appended to the -o file) says of the job. Its rusage[mem] is
  // that of the requirement the scheduler combines (job over profile over queue).
  l->set_submit_time(job->submission->submit_time);
  l->set_cluster_name(config_->cluster_name);
  l->set_cluster_admin(config_->cluster_admins.empty() ? "root" : config_->cluster_admins.front());
  const auto combined = merged_requirement(*job);
  l->set_requested_mem_mb(rusage_mem_mb(combined ? &*combined : nullptr) * static_cast<double>(job->exec_hosts.size()));
  return true;
}

void Mbatchd::start_on_hosts(const std::vector<sched::JobKey>& keys) {
  std::map<std::string, wire::RequestEnvelope> by_host;
  std::map<std::string, std::vector<sched::JobKey>> keys_by_host;
  for (const auto& key : keys) {
    wire::JobLaunch launch;
    if (!make_launch(key, launch)) continue;
    const std::string host = launch.exec_hosts(0);
    *by_host[host].mutable_start_jobs()->add_launches() = std::move(launch);
    keys_by_host[host].push_back(key);
  }
  for (auto& [host, request] : by_host) {
    auto sent = keys_by_host[host];
    call_host(host, std::move(request), [this, sent, host = host](const net::CallResult& r) {
      if (r.ok()) {
        if (auto link = links_.find(host); link != links_.end()) link->second.start_failures = 0;
        return;
      }
      std::vector<sched::JobKey> waiting;  // still started there and not yet reported
      for (const auto& key : sent) {
        Job* j = state_.find_job(key);
        if (j && j->state == wire::JOB_RUN && !j->exec_hosts.empty() && j->exec_hosts.front() == host && j->pid == 0)
          waiting.push_back(key);
      }
      if (!r.reply && r.may_have_arrived) {
        for (const auto& key : waiting) start_unknown(key, host, r.message());
        return;
      }
      start_failed(waiting, host, r.message());
    });
  }
}

void Mbatchd::start_unknown(const sched::JobKey& key, const std::string& host, const std::string& why) {
  const Job* job = state_.find_job(key);
  if (!job) return;
  const bool arm = start_unknown_.empty();
  if (start_unknown_.emplace(key, job->attempt).second)
    log_->warn("start of job {} on {} unknown ({}); asking again until {} answers or is unavail", job_label(key), host,
               why, host);
  if (!arm) return;
  start_retry_timer_.expires_after(std::chrono::seconds(kStartRetryDelay));
  start_retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) recheck_unknown_starts();
  });
}

// The same attempt is sent again (an sbatchd that has it takes it as a retry), on a
// fresh connection: the one that failed was reset.
void Mbatchd::recheck_unknown_starts() {
  std::vector<sched::JobKey> resend;
  std::set<std::string> lost_hosts;
  for (auto it = start_unknown_.begin(); it != start_unknown_.end();) {
    const Job* job = state_.find_job(it->first);
    if (!job || job->state != wire::JOB_RUN || job->pid != 0 || job->attempt != it->second || job->exec_hosts.empty()) {
      it = start_unknown_.erase(it);
      continue;
    }
    if (status_of(job->exec_hosts.front()) == HostStatus::kUnavail)
      lost_hosts.insert(job->exec_hosts.front());
    else
      resend.push_back(it->first);
    ++it;
  }
  for (const auto& host : lost_hosts) requeue_lost_jobs(host);
  if (!resend.empty()) start_on_hosts(resend);
  if (lost_hosts.size()) request_pass();
  if (start_unknown_.empty()) return;
  start_retry_timer_.expires_after(std::chrono::seconds(kStartRetryDelay));
  start_retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) recheck_unknown_starts();
  });
}

void Mbatchd::start_failed(const std::vector<sched::JobKey>& keys, const std::string& host, const std::string& why) {
  auto& link = links_[host];
  link.start_failures = std::min(link.start_failures + 1, 7);
  const auto rest = std::chrono::seconds(std::min(60, 1 << (link.start_failures - 1)));
  link.unreach_until = std::chrono::steady_clock::now() + rest;
  log_->warn("cannot start {} job(s) on {}: {}; requeued, and {} is not used for {} s", keys.size(), host, why, host,
             rest.count());
  for (const auto& key : keys) {
    start_unknown_.erase(key);
    wire::EventRecord ev;
    auto* e = ev.mutable_job_requeue();
    e->set_job_id(key.id);
    e->set_index(key.index);
    e->set_reason(std::string(sched::reason::kHostUnreach) + ": 1 host");
    record(ev);
  }
  request_pass();
}

void Mbatchd::kill_stale_run(const wire::JobStatusRequest& report) {
  const sched::JobKey key{report.job_id(), report.index()};
  log_->warn("job {}: run {} on {} is not its current run; killing it", job_label(key), report.attempt(),
             report.host_name());
  wire::RequestEnvelope req;
  auto* s = req.mutable_signal_job();
  s->set_job_id(key.id);
  s->set_index(key.index);
  s->set_signal(SIGKILL);
  s->set_host_name(report.host_name());
  s->set_attempt(report.attempt());
  // Should it fail, the host's next registration lists the run and has it killed.
  call_host(report.host_name(), std::move(req), [](const net::CallResult&) {});
}

int Mbatchd::terminate_interval(const Job& job) const {
  const bool parallel = job.exec_hosts.size() > 1 || job.slots() > 1;
  if (parallel &&
      !config::parse_yes_no(config_->lsf_conf.get("LSB_USE_SEQUENTIAL_SIGNAL").value_or("N")).value_or(false))
    return -1;
  return config_->params.job_terminate_interval;
}

void Mbatchd::terminate_on_host(const Job& job, const std::string& exit_reason) {
  const int interval = terminate_interval(job);
  if (interval < 0) return signal_on_host(job, SIGKILL, exit_reason);
  signal_on_host(job, SIGKILL, exit_reason, interval);
}

void Mbatchd::signal_on_host(const Job& job, int signal, const std::string& exit_reason,
                             std::optional<int> terminate_interval_s) {
  if (job.exec_hosts.empty()) return;
  if (!exit_reason.empty()) {
    // Remembered so the finish report can say why the job ended.
    if (Job* j = state_.find_job(job.key)) j->reason = exit_reason;
  }
  wire::RequestEnvelope req;
  auto* s = req.mutable_signal_job();
  s->set_job_id(job.key.id);
  s->set_index(job.key.index);
  s->set_signal(signal);
  s->set_exit_reason(exit_reason);
  s->set_host_name(job.exec_hosts.front());
  s->set_attempt(job.attempt);
  if (terminate_interval_s) {
    s->set_terminate(true);
    s->set_terminate_interval_s(*terminate_interval_s);
  }
  auto key = job.key;
  undelivered_.erase(key);
  call_host(job.exec_hosts.front(), std::move(req),
            [this, key, signal, exit_reason, terminate_interval_s](const net::CallResult& r) {
              if (r.ok()) return;
              // Not lost: sent again when the host registers (after an mbatchd restart, say,
              // before its sbatchds are back), as long as the job still runs there.
              log_->warn("cannot send signal {} to job {}: {}; will retry when its host registers", signal,
                         job_label(key), r.message());
              undelivered_[key] = {signal, exit_reason, terminate_interval_s};
            });
}

void Mbatchd::resend_signals(const std::string& host) {
  std::vector<std::pair<sched::JobKey, Undelivered>> due;
  for (auto it = undelivered_.begin(); it != undelivered_.end();) {
    const Job* job = state_.find_job(it->first);
    bool runs = job && !job->finished() && !job->exec_hosts.empty() && job->state != wire::JOB_PEND &&
                job->state != wire::JOB_PSUSP;
    if (!runs) {
      it = undelivered_.erase(it);
    } else if (job->exec_hosts.front() == host) {
      due.emplace_back(*it);
      it = undelivered_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [key, u] : due)
    if (const Job* job = state_.find_job(key)) signal_on_host(*job, u.signal, u.exit_reason, u.terminate_interval_s);
}

}  // namespace lsf::mbd
