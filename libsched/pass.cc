// schedule(): the pass as its named steps (pass_steps.h), over one PassState.
#include "libsched/pass.h"

#include <utility>

#include "libsched/pass_steps.h"

namespace lsf::sched {

PassResult schedule(const ClusterView& view, std::int64_t now) {
  PassState pass(view, now);
  steps::prepare(pass);
  steps::order_jobs(pass);
  steps::walk(pass);
  steps::second_round(pass);
  steps::finish(pass);
  return std::move(pass.ctx.result);
}

void carry_reservation(JobView& job, const Reservation* r) {
  job.reserving_since = r ? r->since : 0;
  job.reserved_slots = r ? static_cast<int>(r->hosts.size()) : 0;
  job.planned_start = r && r->hosts.empty() ? r->estimated_start : 0;
}

RunningJobView started(const JobView& job, std::vector<std::string> hosts, std::int64_t now) {
  RunningJobView r;
  r.key = job.key;
  r.queue = job.queue;
  r.user = job.user;
  r.project = job.project;
  r.user_id = job.user_id;
  r.project_id = job.project_id;
  r.hosts = std::move(hosts);
  r.start_time = now;
  r.run_limit_s = job.run_limit_s;
  r.estimate_s = job.estimate_s;
  r.exclusive = job.exclusive;
  r.res_req = job.res_req;
  r.share_group = job.share_group;
  r.sla = job.sla;
  return r;
}

}  // namespace lsf::sched
