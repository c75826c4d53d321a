// Job status reports from sbatchds and what they mean for the job: its start, its end
// (requeued on REQUEUE_EXIT_VALUES, after bkill for brequeue and bmig), a failed
// pre-exec; and the launch StartJob carries. The hosts themselves (registration,
// status, the calls) are HostTracker's (host_tracker.h); what it asks of the rest of
// mbatchd is wired here.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <set>

#include "daemons/mbatchd/mbatchd.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {

HostTrackerHooks Mbatchd::host_tracker_hooks() {
  HostTrackerHooks h;
  h.policy = [this]() -> const sched::SchedPolicy& { return *config_index_.policy; };
  h.request_pass = [this] { scheduling_.request_pass(); };
  h.rerunnable = [this](const Job& job) { return mbd::rerunnable(*config_, job); };
  h.finish_job = [this](Job& job, wire::JobState state, int wait_status, const std::string& reason) {
    finish_job(job, state, wait_status, 0, 0, reason);
  };
  h.make_launch = [this](const sched::JobKey& key, wire::JobLaunch& launch) { return make_launch(key, launch); };
  h.when_durable = [this](std::function<void(bool)> then) { log_core_.writer().when_durable(std::move(then)); };
  // The event log is watched here too: a failed write no request waited on, and the
  // end of a full disk.
  h.before_check = [this] {
    if (!log_core_.failure().empty()) {
      on_event_log_failure();
      return false;
    }
    log_core_.note_room();
    return true;
  };
  h.borrowed_from = [this](const std::string& host) { return cluster_links_.borrowed_from(host); };
  h.borrowed_status = [this](const std::string& host) { return cluster_links_.borrowed_host_status(host); };
  h.relay_to_provider = [this](const std::string& host, wire::RequestEnvelope request,
                               std::function<void(const net::CallResult&)> done) {
    cluster_links_.relay_to_provider(host, std::move(request), std::move(done));
  };
  h.adopt_lease_job = [this](const std::string& host, const wire::RunningJob& rj) {
    if (!ClusterLinks::is_lease_job_id(rj.job_id())) return false;
    auto owner = cluster_links_.lease_job_owner(rj.job_id()).first;
    if (owner.empty()) return false;
    wire::JobLaunch launch = rj.launch();
    launch.set_job_id(rj.job_id());
    launch.set_index(rj.index());
    if (launch.exec_hosts_size() == 0) launch.add_exec_hosts(host);
    cluster_links_.add_leased_job(owner, host, std::move(launch), rj.stopped());
    return true;
  };
  h.leases_changed = [this] { cluster_links_.update_lent_slots(); };
  return h;
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
  const auto* app = mbd::application(*config_, job);
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
  sink_.record(ev);
  scheduling_.request_pass();
  return true;
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
      if (cluster_links_.borrowed_from(r->host_name()) != peer.cluster)
        return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED,
                                        "cluster " + peer.cluster + " may not report on host " + r->host_name()));
  }
  std::vector<wire::JobStatusRequest> leased;  // consumers' jobs on our hosts: theirs to apply
  for (const auto* r : reports) {
    if (peer.kind != net::PeerKind::kRemoteCluster && ClusterLinks::is_lease_job_id(r->job_id())) {
      hosts_.note_report(r->host_name());
      leased.push_back(*r);
    } else {
      apply_job_status(*r);
    }
  }
  if (leased.empty()) return sink_.reply_when_durable(respond, std::move(reply));
  // Acknowledged once the consumers have them too; until then the sbatchd sends again.
  cluster_links_.forward_lease_reports(leased, [this, respond, reply](daemon::Status forwarded) mutable {
    if (!forwarded.ok()) return respond(net::error_reply(wire::STATUS_UNAVAILABLE, forwarded.message()));
    sink_.reply_when_durable(respond, std::move(reply));
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
  hosts_.note_report(r.host_name());
  if (!current) {
    // A run the job has moved on from (a StartJob that arrived late, a run given up
    // with its host) goes; the job's own run that just ended is left alone.
    const bool own_run = job && r.attempt() == job->attempt && !job->exec_hosts.empty() &&
                         job->exec_hosts.front() == r.host_name() && !job->pending();
    if (job && r.event() == wire::JOB_EVENT_EXECUTE && r.attempt() != 0 && !own_run) hosts_.kill_stale_run(r);
    return;
  }
  hosts_.start_confirmed(job->key);
  auto record_execute = [&] {
    wire::EventRecord ev;
    auto* e = ev.mutable_job_execute();
    e->set_job_id(r.job_id());
    e->set_index(r.index());
    e->set_pid(r.pid());
    e->set_exec_cwd(r.exec_cwd());
    e->set_exec_home(r.exec_home());
    sink_.record(ev, hosts_.reported_time(*job, r));
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
      if (auto rq = job_service_.take_requeue_after_kill(job->key)) {
        wire::EventRecord ev;
        auto* e = ev.mutable_job_requeue();
        e->set_job_id(job->key.id);
        e->set_index(job->key.index);
        e->set_hold(rq->hold);
        e->set_to_top(rq->to_top);
        e->set_to_bottom(!rq->to_top);
        sink_.record(ev);
        scheduling_.request_pass();
        break;
      }
      if (!ok && reason.empty() && WIFEXITED(status) && requeue_on_exit(*job, WEXITSTATUS(status))) break;
      finish_job(*job, ok ? wire::JOB_DONE : wire::JOB_EXIT, status, r.cpu_time(), r.max_rss_kb(), reason,
                 hosts_.reported_time(*job, r));
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
      sink_.record(ev);
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
  sink_.record(ev);
  if (limit) return;
  // The job may go again once its pause is over: make sure a pass comes then.
  scheduling_.request_pass_after(std::chrono::seconds(kPreExecRetryDelay));
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
  if (job->gpus) add_gpu_uses(*job->gpus, *l->mutable_gpus());
  // sbatchd reads mps's nocvd from it, whichever level set it.
  if (auto gpu = effective_gpu_request(*config_, *job)) l->mutable_spec()->set_gpu(gpu->to_string());
  l->set_job_name(job->display_name());
  l->set_start_time(job->start_time);
  l->set_attempt(job->attempt);
  std::int64_t run_limit = mbd::effective_run_limit(*config_, *job);
  // The application profile's values stand between the job's own and the queue's: its
  // pre-execution command runs after the queue's unless bsub -E replaces it, its
  // post-execution command before the queue's unless bsub -Ep replaces it, and its
  // limits replace the queue's defaults within the queue's maximums.
  const config::Application* app = mbd::application(*config_, *job);
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
  l->set_terminate_interval_s(hosts_.terminate_interval(*job));
  // What the job report (appended to the -o file) says of the job. Its rusage[mem] is
  // that of the requirement the scheduler combines (job over profile over queue).
  l->set_submit_time(job->submission->submit_time);
  l->set_cluster_name(config_->cluster_name);
  l->set_cluster_admin(config_->cluster_admins.empty() ? "root" : config_->cluster_admins.front());
  const auto combined = mbd::merged_requirement(*config_, *job);
  l->set_requested_mem_mb(rusage_mem_mb(combined ? &*combined : nullptr) * static_cast<double>(job->exec_hosts.size()));
  return true;
}

}  // namespace lsf::mbd
