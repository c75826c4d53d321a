// HostTracker's side of what sbatchds send (registration, load reports, clocks) and the
// host statuses worked out from it. A host that stops reporting becomes unreach after
// two report intervals and unavail after MAX_SBD_FAIL more.
#include "daemons/mbatchd/host_tracker.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <set>

#include "libconfig/config_loader.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {

HostTracker::HostTracker(ComponentContext ctx, net::asio::io_context& io, net::asio::thread_pool& outbound,
                         std::optional<net::ClusterKey> key, HostTrackerHooks hooks)
    : ctx_(std::move(ctx)),
      io_(io),
      outbound_(outbound),
      key_(std::move(key)),
      hooks_(std::move(hooks)),
      check_timer_(io),
      start_retry_timer_(io) {
  expecting_since_ = steady_now();
}

void HostTracker::start() {
  expecting_since_ = steady_now();
  for (const auto& h : ctx_.conf().hosts) last_statuses_[h.name] = status_of(h.name);
  arm_check();
}

void HostTracker::stop() {
  check_timer_.cancel();
  start_retry_timer_.cancel();
}

std::chrono::steady_clock::time_point HostTracker::steady_now() const {
  return hooks_.steady_now ? hooks_.steady_now() : std::chrono::steady_clock::now();
}

std::string HostTracker::borrowed_from(const std::string& host) const {
  return hooks_.borrowed_from ? hooks_.borrowed_from(host) : std::string();
}

std::chrono::milliseconds HostTracker::report_interval() const {
  return std::chrono::seconds(std::max(1, ctx_.conf().params.sbd_sleep_time));
}

const HostLink* HostTracker::link(const std::string& host) const {
  auto it = links_.find(host);
  return it == links_.end() ? nullptr : &it->second;
}

// MXJ as the scheduling policy resolved it (host row, else model or type, else default).
int HostTracker::host_max_slots(const std::string& host) const {
  const sched::HostPolicy& policy = hooks_.policy().host(host);
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

std::string HostTracker::host_status(const std::string& host) const {
  // A provider's offer may carry a name this cluster does not know: shown as sent.
  if (!borrowed_from(host).empty()) return hooks_.borrowed_status(host);
  return std::string(to_string(status_of(host)));
}

HostStatus HostTracker::status_of(const std::string& host) const {
  if (!borrowed_from(host).empty()) return parse_host_status(hooks_.borrowed_status(host)).value_or(HostStatus::kOk);
  using S = HostStatus;
  auto link = links_.find(host);
  if (link == links_.end() || !link->second.registered || link->second.lost) return S::kUnavail;
  const auto now = steady_now();
  auto silent = now - link->second.last_report;
  auto interval = report_interval();
  if (silent > interval * (2 + 2 * std::max(1, ctx_.conf().params.max_sbd_fail))) return S::kUnavail;
  if (silent > interval * 2 + std::chrono::milliseconds(500)) return S::kUnreach;
  if (now < link->second.unreach_until) return S::kUnreach;
  const auto& st = ctx_.state.hosts().at(host);
  if (st.admin_closed) return S::kClosedAdm;
  const sched::HostPolicy& policy = hooks_.policy().host(host);
  if (!policy.dispatch_window.is_open(config::local_week_instant())) return S::kClosedWind;
  const auto& l = link->second.load;
  auto value = [&l](std::string_view index) { return load_value(l, index); };
  if (!sched::first_past(policy.thresholds, value, false).empty()) return S::kClosedBusy;
  if (st.exclusive_jobs > 0) return S::kClosedExcl;
  int mxj = host_max_slots(host);
  if (mxj >= 0 && st.counts.run + st.counts.ssusp + st.counts.ususp >= mxj) return S::kClosedFull;
  return S::kOk;
}

// Status is computed when asked; the checks only make sure a pass runs when a host
// changes between reachable and not, so pending reasons stay true.
void HostTracker::arm_check() {
  check_timer_.expires_after(std::chrono::milliseconds(500));
  check_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    if (hooks_.before_check && !hooks_.before_check()) return;
    check_hosts();
    arm_check();
  });
}

void HostTracker::check_hosts() {
  bool changed = false;
  for (const auto& [name, status] : last_statuses_) {
    auto now_status = status_of(name);
    if (now_status != status) {
      ctx_.log->info("host {} is {} (was {})", name, to_string(now_status), to_string(status));
      changed = true;
    }
  }
  last_statuses_.clear();
  for (const auto& h : ctx_.conf().hosts) last_statuses_[h.name] = status_of(h.name);

  const auto now = steady_now();
  const auto wait = ctx_.conf().params.remove_hung_host_unavail_min;
  for (const auto& h : ctx_.conf().hosts) {
    auto since = lost_since_.find(h.name);
    if (!is_lost(h.name, now)) {
      if (since != lost_since_.end()) lost_since_.erase(since);
      continue;
    }
    if (since == lost_since_.end()) {
      since = lost_since_.emplace(h.name, now).first;
      if (auto link = links_.find(h.name); link != links_.end()) link->second.lost = true;
      changed |= requeue_lost_jobs(h.name);
    }
    if (wait && now - since->second >= std::chrono::minutes(*wait)) changed |= remove_hung_jobs(h.name);
  }
  if (changed) hooks_.request_pass();
}

std::chrono::steady_clock::duration HostTracker::unavail_after() const {
  return report_interval() * (2 + 2 * std::max(1, ctx_.conf().params.max_sbd_fail));
}

bool HostTracker::is_lost(const std::string& host, std::chrono::steady_clock::time_point now) const {
  if (status_of(host) != HostStatus::kUnavail) return false;
  auto link = links_.find(host);
  // Registered, then silent: status_of has timed it already. Never registered since
  // this mbatchd started: it has as long as a silent host gets.
  if (link != links_.end() && link->second.registered) return true;
  return now - expecting_since_ > unavail_after();
}

// Rerunnable jobs (bsub -r, RERUNNABLE queues) go back to PEND ahead of every waiting
// job. So do jobs whose StartJob's outcome was never known: as far as anyone can tell
// they never started, and should one have, the host's registration has it killed.
bool HostTracker::requeue_lost_jobs(const std::string& host) {
  std::vector<sched::JobKey> lost;
  for (const auto& [key, job] : ctx_.state.started()) {
    if (std::find(job->exec_hosts.begin(), job->exec_hosts.end(), host) == job->exec_hosts.end()) continue;
    auto unknown = start_unknown_.find(key);
    bool never_confirmed = unknown != start_unknown_.end() && unknown->second == job->attempt && job->pid == 0;
    if (hooks_.rerunnable(*job) || never_confirmed) lost.push_back(key);
  }
  for (const auto& key : lost) {
    wire::EventRecord ev;
    auto* e = ev.mutable_job_requeue();
    e->set_job_id(key.id);
    e->set_index(key.index);
    e->set_to_top(true);
    ctx_.log->warn("job {} lost with host {}: {}, requeued", job_label(key), host,
                   start_unknown_.erase(key) ? "its start never confirmed" : "rerunnable");
    e->set_reason(std::string(sched::reason::kHostUnreach) + ": 1 host");
    ctx_.sink.record(ev);
  }
  return !lost.empty();
}

// As LSF's REMOVE_HUNG_JOBS_FOR=host_unavail: the job's first execution host decides.
bool HostTracker::remove_hung_jobs(const std::string& host) {
  std::vector<sched::JobKey> hung;
  if (auto here = ctx_.state.hosts().find(host); here != ctx_.state.hosts().end())
    for (const auto& key : here->second.started_here)
      if (const Job* job = ctx_.state.find_job(key); job && !job->finished()) hung.push_back(key);
  for (const auto& key : hung) {
    Job* job = ctx_.state.find_job(key);
    if (!job) continue;
    ctx_.log->warn("job {} removed: its host {} has been unavail longer than REMOVE_HUNG_JOBS_FOR allows",
                   job_label(key), host);
    start_unknown_.erase(key);
    hooks_.finish_job(*job, wire::JOB_EXIT, SIGKILL, std::string(kRemovedHung));
  }
  return !hung.empty();
}

daemon::Status check_advertised(const wire::RegisterHostRequest& r, const net::Peer& peer) {
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

void HostTracker::on_register_host(const wire::RequestEnvelope& request, const net::Peer& peer,
                                   const net::Responder& respond) {
  const auto& r = request.register_host();
  const auto& config = ctx_.conf();
  if (!config.find_host(r.host_name()))
    return respond(net::error_reply(wire::STATUS_NOT_FOUND,
                                    "host " + r.host_name() + " is not a host of cluster " + config.cluster_name));
  auto& link = links_[r.host_name()];
  if (auto checked = check_advertised(r, peer); !checked.ok()) {
    const std::string& why = checked.message();
    // It registers again every report interval: logged once a minute, or when the
    // reason changes.
    auto t = steady_now();
    if (t - link.last_refusal_log > std::chrono::minutes(1) || why != link.last_refusal) {
      ctx_.log->error("registration refused: {}", why);
      link.last_refusal_log = t;
      link.last_refusal = why;
    }
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, why));
  }
  link.address = r.address();
  link.port = static_cast<std::uint16_t>(r.port());
  link.registered = true;
  link.lost = false;
  link.clock_sample_count = link.clock_sample_next = 0;  // a restarted host may have another clock
  link.last_report = steady_now();
  link.load = r.load();
  if (!link.strand)
    link.strand = std::make_unique<net::asio::strand<net::asio::thread_pool::executor_type>>(
        net::asio::make_strand(outbound_.get_executor()));
  // Always a new connection: the old one may be to the sbatchd that this one replaced
  // at the same address, and would fail the next call.
  link.client = std::make_shared<net::RpcClient>(link.address, link.port, std::chrono::seconds(10));
  if (key_) link.client->set_key(*key_, "sbatchd@" + r.host_name());
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
    // A consumer's job: it goes on while the consumer is in lsf.shared; its reports
    // tell the consumer how it fares.
    if (hooks_.adopt_lease_job && hooks_.adopt_lease_job(r.host_name(), rj)) {
      leases_changed = true;
      continue;
    }
    const Job* job = ctx_.state.find_job({rj.job_id(), rj.index()});
    bool ours = job && !job->exec_hosts.empty() && job->exec_hosts.front() == r.host_name() &&
                (job->state == wire::JOB_RUN || job->state == wire::JOB_USUSP || job->state == wire::JOB_SSUSP) &&
                same_run(job, rj);
    // A finished job is still reported until its last status is acknowledged; one
    // mbatchd ended because its host was lost must not go on, though.
    bool finishing = job && job->finished() && job->reason != kRemovedHung;
    if (!ours && !finishing) {
      auto* u = out->add_unknown_jobs();
      u->set_job_id(rj.job_id());
      u->set_index(rj.index());
      out->add_unknown_attempts(rj.attempt());
    }
  }
  ctx_.log->info("host {} registered from {}:{} with {} job(s)", r.host_name(), r.address(), r.port(), r.jobs_size());
  if (leases_changed) hooks_.leases_changed();
  respond(reply);

  // Jobs the log says run here that this sbatchd does not have. Without a pid the
  // StartJob never arrived (mbatchd died between JOB_START and the call): send it
  // again. With one, sbatchd lost the job: it is requeued if rerunnable, else it exits.
  std::set<sched::JobKey> reported;
  for (const auto& rj : r.jobs()) {
    const Job* job = ctx_.state.find_job({rj.job_id(), rj.index()});
    if (job && same_run(job, rj)) {
      reported.insert({rj.job_id(), rj.index()});
      start_unknown_.erase({rj.job_id(), rj.index()});  // it did start
    }
  }
  std::vector<sched::JobKey> resend, lost;
  if (auto here = ctx_.state.hosts().find(r.host_name()); here != ctx_.state.hosts().end())
    for (const auto& key : here->second.started_here) {
      const Job* job = ctx_.state.find_job(key);
      if (!job || reported.count(key)) continue;
      (job->pid == 0 ? resend : lost).push_back(key);
    }
  for (const auto& key : lost) {
    Job* job = ctx_.state.find_job(key);
    ctx_.log->warn("job {} is no longer known to sbatchd on {}", job_label(key), r.host_name());
    if (hooks_.rerunnable(*job)) {
      wire::EventRecord ev;
      auto* e = ev.mutable_job_requeue();
      e->set_job_id(key.id);
      e->set_index(key.index);
      e->set_to_top(true);
      ctx_.sink.record(ev);
    } else {
      hooks_.finish_job(*job, wire::JOB_EXIT, SIGKILL, "TERM_ORPHAN_SYSTEM");
    }
  }
  if (!resend.empty()) {
    hooks_.when_durable([this, resend](bool ok) {
      if (!ok) return;
      start_on_hosts(resend);
    });
  }
  resend_signals(r.host_name());
  hooks_.request_pass();
}

void HostTracker::on_load_report(const wire::RequestEnvelope& request, const net::Responder& respond) {
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
  it->second.last_report = steady_now();
  note_clock(r.host_name(), r.clock_ms());
  reply.mutable_load_report();
  respond(reply);
}

void HostTracker::note_report(const std::string& host) {
  if (auto it = links_.find(host); it != links_.end()) it->second.last_report = steady_now();
}

void HostTracker::note_clock(const std::string& host, std::int64_t host_clock_ms, bool refused) {
  if (host_clock_ms <= 0) return;  // an sbatchd that does not send its clock
  if (refused && !ctx_.conf().find_host(host)) return;
  auto& link = links_[host];
  link.clock_refused = refused;
  const std::int64_t wall_ms =
      hooks_.wall_ms
          ? hooks_.wall_ms()
          : std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
  const std::int64_t offset = wall_ms - host_clock_ms;
  auto warn = [&](std::int64_t by, const char* consequence) {
    ctx_.log->warn("host {}'s clock is {:.1f} s {} the master's: {}; keep clocks in step (NTP)", host,
                   std::abs(by) / 1000.0, by > 0 ? "behind" : "ahead of", consequence);
  };
  if (refused) {
    // Anyone may send such a request: shown, never used, and logged once a minute.
    link.refused_clock_offset_ms = offset;
    const auto t = steady_now();
    if (t - link.last_refused_clock_log >= std::chrono::minutes(1)) {
      warn(offset, "its sbatchd's requests are refused until it is back within the allowed skew");
      link.last_refused_clock_log = t;
    }
    return;
  }
  link.clock_samples[static_cast<std::size_t>(link.clock_sample_next)] = offset;
  link.clock_sample_next = (link.clock_sample_next + 1) % static_cast<int>(link.clock_samples.size());
  link.clock_sample_count = std::min(link.clock_sample_count + 1, static_cast<int>(link.clock_samples.size()));
  link.clock_offset_ms =
      *std::min_element(link.clock_samples.begin(), link.clock_samples.begin() + link.clock_sample_count);
  const std::int64_t estimate = link.clock_offset_ms;
  // Signed requests are refused past kMaxClockSkew; well before that, job times move.
  const bool far = std::abs(estimate) > kClockWarnMs;
  if (far && !link.clock_warned) warn(estimate, "job end times it reports are corrected by that much");
  link.clock_warned = far;
}

// Never before the job started nor after now (a report delayed by a cut keeps the time
// the job ended).
std::int64_t HostTracker::reported_time(const Job& job, const wire::JobStatusRequest& r) const {
  if (r.time() <= 0) return 0;
  auto link = links_.find(r.host_name());
  const std::int64_t offset_s = link == links_.end() ? 0 : (link->second.clock_offset_ms + 500) / 1000;
  return std::clamp(r.time() + offset_s, job.start_time, ctx_.sink.now());
}

}  // namespace lsf::mbd
