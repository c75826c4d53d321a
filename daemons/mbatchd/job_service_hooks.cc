// What the job service (job_service.h) asks of the rest of mbatchd: host tracking's
// signals, starts and calls, a job's end and launch, lsb.jobid, job groups, the event
// log's durability and the scheduling pass.
#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {

JobServiceHooks Mbatchd::job_service_hooks() {
  JobServiceHooks h;
  h.signal_on_host = [this](const Job& job, int signal, const std::string& exit_reason) {
    hosts_.signal_on_host(job, signal, exit_reason);
  };
  h.terminate_on_host = [this](const Job& job, const std::string& exit_reason) {
    hosts_.terminate_on_host(job, exit_reason);
  };
  h.start_on_hosts = [this](const std::vector<sched::JobKey>& keys) { hosts_.start_on_hosts(keys); };
  h.status_of = [this](const std::string& host) { return hosts_.status_of(host); };
  h.host_max_slots = [this](const std::string& host) { return hosts_.host_max_slots(host); };
  h.call_host = [this](const std::string& host, wire::RequestEnvelope request,
                       std::function<void(const net::CallResult&)> done) {
    hosts_.call_host(host, std::move(request), std::move(done));
  };
  h.make_launch = [this](const sched::JobKey& key, wire::JobLaunch& launch) { return make_launch(key, launch); };
  h.finish_job = [this](Job& job, wire::JobState state, int wait_status, double cpu, std::int64_t rss,
                        const std::string& reason) { finish_job(job, state, wait_status, cpu, rss, reason); };
  h.cover_job_id = [this](std::int64_t id) -> daemon::Status {
    if (auto covered = job_ids_.cover(id); !covered) {
      sink_.note_refusal("cannot write lsb.jobid: " + covered.message());
      return daemon::fail("cannot write lsb.jobid: " + covered.message());
    }
    return {};
  };
  h.ensure_job_group = [this](const std::string& path, const std::string& user) { ensure_job_group(path, user); };
  h.when_durable = [this](std::function<void(bool)> then) { event_log_->when_durable(std::move(then)); };
  h.request_pass = [this] { scheduling_.request_pass(); };
  return h;
}

}  // namespace lsf::mbd
