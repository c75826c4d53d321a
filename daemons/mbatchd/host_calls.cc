// HostTracker's calls to sbatchds: StartJob (with the retries and the backoff its
// failures need) and SignalJob (kept until the host registers when it cannot be sent).
#include <algorithm>
#include <csignal>
#include <set>

#include "daemons/mbatchd/host_tracker.h"
#include "libconfig/text.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {

void HostTracker::call_host(const std::string& host, wire::RequestEnvelope request,
                            std::function<void(const net::CallResult&)> done) {
  if (!borrowed_from(host).empty()) return hooks_.relay_to_provider(host, std::move(request), std::move(done));
  auto it = links_.find(host);
  if (it == links_.end() || !it->second.client) {
    net::CallResult r;
    r.error = "host " + host + " has not registered";
    net::asio::post(io_, [done, r] { done(r); });
    return;
  }
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  request.set_master_epoch(master_epoch_);  // sbatchds refuse a superseded master's word
  *request.mutable_caller() = net::current_identity();
  auto client = it->second.client;
  net::asio::post(*it->second.strand, [this, client, request = std::move(request), done]() mutable {
    auto result = client->call(std::move(request));
    net::asio::post(io_, [done, result = std::move(result)] { done(result); });
  });
}

void HostTracker::start_on_hosts(const std::vector<sched::JobKey>& keys) {
  std::map<std::string, wire::RequestEnvelope> by_host;
  std::map<std::string, std::vector<sched::JobKey>> keys_by_host;
  for (const auto& key : keys) {
    wire::JobLaunch launch;
    if (!hooks_.make_launch(key, launch)) continue;
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
        Job* j = ctx_.state.find_job(key);
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

void HostTracker::start_unknown(const sched::JobKey& key, const std::string& host, const std::string& why) {
  const Job* job = ctx_.state.find_job(key);
  if (!job) return;
  const bool arm = start_unknown_.empty();
  if (start_unknown_.emplace(key, job->attempt).second)
    ctx_.log->warn("start of job {} on {} unknown ({}); asking again until {} answers or is unavail", job_label(key),
                   host, why, host);
  if (arm) arm_start_retry();
}

void HostTracker::arm_start_retry() {
  start_retry_timer_.expires_after(std::chrono::seconds(kStartRetryDelay));
  start_retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) recheck_unknown_starts();
  });
}

// The same attempt is sent again (an sbatchd that has it takes it as a retry), on a
// fresh connection: the one that failed was reset.
void HostTracker::recheck_unknown_starts() {
  std::vector<sched::JobKey> resend;
  std::set<std::string> lost_hosts;
  for (auto it = start_unknown_.begin(); it != start_unknown_.end();) {
    const Job* job = ctx_.state.find_job(it->first);
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
  if (lost_hosts.size()) hooks_.request_pass();
  if (start_unknown_.empty()) return;
  arm_start_retry();
}

void HostTracker::start_failed(const std::vector<sched::JobKey>& keys, const std::string& host,
                               const std::string& why) {
  auto& link = links_[host];
  link.start_failures = std::min(link.start_failures + 1, 7);
  const auto rest = std::chrono::seconds(std::min(60, 1 << (link.start_failures - 1)));
  link.unreach_until = steady_now() + rest;
  ctx_.log->warn("cannot start {} job(s) on {}: {}; requeued, and {} is not used for {} s", keys.size(), host, why,
                 host, rest.count());
  for (const auto& key : keys) {
    start_unknown_.erase(key);
    wire::EventRecord ev;
    auto* e = ev.mutable_job_requeue();
    e->set_job_id(key.id);
    e->set_index(key.index);
    e->set_reason(std::string(sched::reason::kHostUnreach) + ": 1 host");
    ctx_.sink.record(ev);
  }
  hooks_.request_pass();
}

void HostTracker::kill_stale_run(const wire::JobStatusRequest& report) {
  const sched::JobKey key{report.job_id(), report.index()};
  ctx_.log->warn("job {}: run {} on {} is not its current run; killing it", job_label(key), report.attempt(),
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

int HostTracker::terminate_interval(const Job& job) const {
  const auto& config = ctx_.conf();
  const bool parallel = job.exec_hosts.size() > 1 || job.slots() > 1;
  if (parallel && !config::parse_yes_no(config.lsf_conf.get("LSB_USE_SEQUENTIAL_SIGNAL").value_or("N")).value_or(false))
    return -1;
  return config.params.job_terminate_interval;
}

void HostTracker::terminate_on_host(const Job& job, const std::string& exit_reason) {
  const int interval = terminate_interval(job);
  if (interval < 0) return signal_on_host(job, SIGKILL, exit_reason);
  signal_on_host(job, SIGKILL, exit_reason, interval);
}

void HostTracker::signal_on_host(const Job& job, int signal, const std::string& exit_reason,
                                 std::optional<int> terminate_interval_s) {
  if (job.exec_hosts.empty()) return;
  if (!exit_reason.empty()) {
    // Remembered so the finish report can say why the job ended.
    if (Job* j = ctx_.state.find_job(job.key)) j->reason = exit_reason;
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
              ctx_.log->warn("cannot send signal {} to job {}: {}; will retry when its host registers", signal,
                             job_label(key), r.message());
              undelivered_[key] = {signal, exit_reason, terminate_interval_s};
            });
}

void HostTracker::resend_signals(const std::string& host) {
  std::vector<std::pair<sched::JobKey, UndeliveredSignal>> due;
  for (auto it = undelivered_.begin(); it != undelivered_.end();) {
    const Job* job = ctx_.state.find_job(it->first);
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
    if (const Job* job = ctx_.state.find_job(key))
      signal_on_host(*job, u.signal, u.exit_reason, u.terminate_interval_s);
}

}  // namespace lsf::mbd
