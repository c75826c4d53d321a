// What the query components (job_queries.h, config_queries.h) ask of the rest of
// mbatchd: host tracking's statuses and links, the scheduling driver's views and last
// pass, MultiCluster's borrowed hosts and leased jobs, and the perfmon counters.
#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {

JobQueriesHooks Mbatchd::job_queries_hooks() {
  JobQueriesHooks h;
  h.status_of = [this](const std::string& host) { return hosts_.status_of(host); };
  h.reservations = [this]() -> const std::map<sched::JobKey, sched::Reservation>& {
    return scheduling_.reservations();
  };
  h.is_leased_job = [this](const sched::JobKey& ref) { return cluster_links_.is_leased_job(ref); };
  h.add_leased_jobs = [this](const wire::JobsRequest& q, const std::string& user, wire::JobsReply& out) {
    cluster_links_.add_leased_jobs(q, user, out);
  };
  h.now = [this] { return now(); };
  return h;
}

ConfigQueriesHooks Mbatchd::config_queries_hooks() {
  ConfigQueriesHooks h;
  h.host_status = [this](const std::string& host) { return hosts_.host_status(host); };
  h.host_max_slots = [this](const std::string& host) { return hosts_.host_max_slots(host); };
  h.link = [this](const std::string& host) { return hosts_.link(host); };
  h.build_view = [this](bool with_pending) { return scheduling_.build_view(with_pending); };
  h.host_resources = [this](const std::string& host) { return scheduling_.host_resources(host); };
  h.reservations = [this]() -> const std::map<sched::JobKey, sched::Reservation>& {
    return scheduling_.reservations();
  };
  h.guarantees = [this]() -> const std::vector<sched::GuaranteeReport>& { return scheduling_.guarantees(); };
  h.throttles = [this]() -> const std::vector<sched::ThrottleUse>& { return scheduling_.throttles(); };
  h.pass_counters = [this]() -> const PassCounters& { return scheduling_.counters(); };
  h.borrowed_hosts = [this] { return cluster_links_.borrowed_hosts(); };
  h.borrowed_host_status = [this](const std::string& host) { return cluster_links_.borrowed_host_status(host); };
  h.submissions_total = [this] { return job_service_.submissions_total(); };
  h.uptime = [this] {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_at_);
  };
  h.now = [this] { return now(); };
  return h;
}

}  // namespace lsf::mbd
