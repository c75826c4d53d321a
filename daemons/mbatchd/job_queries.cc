// bjobs and bwait: jobs as the state holds them, with what host tracking, the last
// pass and MultiCluster add (job_queries.h).
#include "daemons/mbatchd/job_queries.h"

#include <fnmatch.h>

#include <algorithm>
#include <vector>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/job_policy.h"
#include "libsched/model/share_tree.h"
#include "libsched/runtime_estimate.h"

namespace lsf::mbd {
namespace {
constexpr std::size_t kJobsPageBytes = 4u << 20;
}  // namespace

JobQueries::JobQueries(ComponentContext ctx, const ConfigIndex& index, JobQueriesHooks hooks)
    : ctx_(std::move(ctx)), index_(index), hooks_(std::move(hooks)) {}

wire::JobInfo JobQueries::job_info(const Job& job) const {
  wire::JobInfo info;
  info.set_job_id(job.key.id);
  info.set_index(job.key.index);
  info.set_user(job.user());
  info.set_state(job.state);
  // As LSF: a started job whose host mbatchd cannot reach is shown UNKWN.
  if (!job.exec_hosts.empty() && !job.pending() && !job.finished()) {
    if (unreachable(hooks_.status_of(job.exec_hosts.front()))) info.set_state(wire::JOB_UNKWN);
  }
  info.set_queue(job.queue);
  *info.mutable_spec() = job.spec();
  info.mutable_spec()->clear_env();  // kilobytes per job that no query prints
  info.set_submit_time(job.submission->submit_time);
  info.set_start_time(job.start_time);
  info.set_end_time(job.end_time);
  for (const auto& h : job.exec_hosts) info.add_exec_hosts(h);
  if (job.gpus && job.started()) add_gpu_uses(*job.gpus, *info.mutable_gpus());
  info.set_exit_status(job.exit_status);
  info.set_cpu_time(job.cpu_time);
  info.set_max_rss_kb(job.max_rss_kb);
  if (job.pending()) {
    if (job.state == wire::JOB_PSUSP)
      info.set_pending_class(wire::PENDING_HELD);
    else if (auto dep = dependency_state(ctx_.conf(), ctx_.state, job); job.spec().begin_time() > hooks_.now() ||
                                                                        dep == sched::DependencyState::kWaiting ||
                                                                        dep == sched::DependencyState::kNever)
      info.set_pending_class(wire::PENDING_DEFERRED);
    else if (job.blocked)
      info.set_pending_class(wire::PENDING_BLOCKED);
    if (job.aps) {
      info.set_has_aps(true);
      info.set_aps(job.aps->value);
      for (const auto& [name, value] : job.aps->factors) {
        auto* f = info.add_aps_factors();
        f->set_name(std::string(name));
        f->set_value(value);
      }
    }
    if (job.pending_reason) info.set_pending_reason(*job.pending_reason);
    if (job.pending_hosts) {
      for (const auto& r : *job.pending_hosts) {
        auto* out = info.add_pending_hosts();
        out->set_reason(r.reason);
        // The pass lists hosts as it came upon them; users read them in host order.
        std::vector<int> hosts = r.hosts;
        std::sort(hosts.begin(), hosts.end());
        for (int h : hosts) out->add_hosts(r.name(h));
      }
    }
  }
  if (auto r = hooks_.reservations().find(job.key); r != hooks_.reservations().end() && job.pending()) {
    for (const auto& h : r->second.hosts) info.add_reserved_hosts(h);
    info.set_estimated_start(r->second.estimated_start);
    info.set_reserved_since(r->second.since);
  }
  // The length plans take it to run: a started job's from its start, a pending one's as
  // the next pass will predict it (RUNTIME_ESTIMATE = PREDICT), else its run limit.
  if (job.started() && !job.finished()) {
    info.set_run_estimate(job.estimate_s > 0 ? job.estimate_s : effective_run_limit(ctx_.conf(), job));
    info.set_estimate_predicted(job.estimate_s > 0);
  } else if (job.pending()) {
    const std::int64_t limit = effective_run_limit(ctx_.conf(), job);
    const int q = index_.policy->queue_index(job.queue);
    const bool predicts = q >= 0 && index_.policy->queues[static_cast<size_t>(q)].predict;
    const std::int64_t estimate =
        predicts ? sched::predicted_estimate(ctx_.state.runtimes(), job.user(), limit) : limit;
    info.set_run_estimate(estimate);
    info.set_estimate_predicted(predicts && ctx_.state.runtimes().predicted(job.user()).has_value());
  }
  info.set_pid(job.pid);
  if (job.state == wire::JOB_USUSP || job.state == wire::JOB_SSUSP) info.set_suspend_reason(job.reason);
  if (job.finished()) info.set_exit_reason(job.reason);
  info.set_exec_cwd(job.exec_cwd);
  info.set_exec_home(job.exec_home);
  info.set_job_name(job.display_name());
  // With MAX_USER_PRIORITY, "Job Priority" is the job's own (bsub -sp, else half the
  // maximum), as LSF shows it; without, the queue's.
  if (int max = ctx_.conf().params.max_user_priority; max > 0)
    info.set_priority(job.spec().user_priority() > 0 ? job.spec().user_priority() : max / 2);
  else if (const auto* q = ctx_.conf().find_queue(job.queue))
    info.set_priority(q->priority);
  if (int q = index_.policy->queue_index(job.queue); q >= 0) {
    if (const auto& fs = index_.policy->queues[static_cast<size_t>(q)].fairshare)
      info.set_share_account(sched::share_path(*fs, job.user(), job.spec().user_group()).to_string());
  }
  return info;
}

std::optional<config::ResourceRequirement> merged_requirement(const config::ClusterConfig& config, const Job& job) {
  const auto* app = application(config, job);
  const auto* queue = config.find_queue(job.queue);
  return config::combine_requirements(job.submission->res_req.get(), app && app->res_req ? &*app->res_req : nullptr,
                                      queue && queue->res_req ? &*queue->res_req : nullptr);
}

std::optional<config::GpuRequest> effective_gpu_request(const config::ClusterConfig& config, const Job& job) {
  const auto* app = application(config, job);
  const auto* queue = config.find_queue(job.queue);
  const auto& cluster = config.lsf_conf.gpu_req;
  return config::effective_gpu_request(job.submission->gpu.get(), app && app->gpu_req ? &*app->gpu_req : nullptr,
                                       queue && queue->gpu_req ? &*queue->gpu_req : nullptr,
                                       cluster ? &*cluster : nullptr);
}

std::string JobQueries::combined_requirement(const Job& job) const {
  auto combined = merged_requirement(ctx_.conf(), job);
  config::ResourceRequirement shown = combined ? std::move(*combined) : config::ResourceRequirement{};
  // As the pass reads it: no select[] is any host, no order[] is r15s:pg.
  if (shown.order.empty()) shown.order = {{"r15s", false}, {"pg", false}};
  std::string text = shown.to_string();
  return shown.select.empty() ? "select[type == any] " + text : text;
}

wire::ReplyEnvelope JobQueries::jobs(const wire::RequestEnvelope& request) const {
  const auto& q = request.jobs();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_jobs();
  const std::string user = q.user().empty() ? request.caller().user_name() : q.user();
  auto wanted = [&](const Job& job, bool named) {
    if (!named && user != "all" && job.user() != user) return false;
    bool fin = job.finished();
    if (q.only_finished() && !fin) return false;
    if (q.only_pending() && !job.pending()) return false;
    if (q.only_running() && job.state != wire::JOB_RUN) return false;
    if (q.only_suspended() && job.state != wire::JOB_USUSP && job.state != wire::JOB_SSUSP &&
        job.state != wire::JOB_PSUSP)
      return false;
    if (fin && !named && !q.include_finished() && !q.only_finished()) return false;
    if (!q.queue().empty() && job.queue != q.queue()) return false;
    if (!q.host().empty() && std::find(job.exec_hosts.begin(), job.exec_hosts.end(), q.host()) == job.exec_hosts.end())
      return false;
    if (!q.project().empty() && job.spec().project() != q.project() &&
        !(q.project() == "default" && job.spec().project().empty()))
      return false;
    if (!q.job_name().empty()) {
      std::string name = job.spec().job_name().empty() ? job.spec().command() : job.spec().job_name();
      if (fnmatch(q.job_name().c_str(), name.c_str(), 0) != 0 &&
          fnmatch(q.job_name().c_str(), job.display_name().c_str(), 0) != 0)
        return false;
    }
    return true;
  };
  auto add_job = [&](const Job& job) {
    auto* info = out->add_jobs();
    *info = job_info(job);
    if (q.details()) {
      info->set_combined_res_req(combined_requirement(job));
      // A requirement is not changed after dispatch here, so a started job runs with
      // the combined one (as read under today's configuration).
      if (job.start_time > 0) info->set_effective_res_req(info->combined_res_req());
      if (auto gpu = effective_gpu_request(ctx_.conf(), job)) info->set_gpu_req(gpu->to_string());
    }
    return info;
  };
  if (q.jobs_size() > 0) {
    for (const auto& ref : q.jobs()) {
      std::vector<const Job*> found;
      if (ref.index() > 0) {
        if (const auto* j = ctx_.state.find_job({ref.job_id(), ref.index()})) found.push_back(j);
      } else {
        found = ctx_.state.elements(ref.job_id());
      }
      if (found.empty()) {
        if (hooks_.is_leased_job({ref.job_id(), ref.index()})) continue;  // add_leased_jobs
        out->add_errors("Job <" + job_label({ref.job_id(), ref.index()}) + "> is not found");
        continue;
      }
      for (const auto* j : found)
        if (wanted(*j, true)) add_job(*j);
    }
  } else {
    // A page stays well under the largest frame whatever the jobs hold; a client that
    // does not page gets every job as before.
    const auto& jobs = ctx_.state.jobs();
    auto it = q.paged() ? jobs.upper_bound({q.after().job_id(), q.after().index()}) : jobs.begin();
    std::size_t bytes = 0;
    for (; it != jobs.end(); ++it) {
      if (!wanted(it->second, false)) continue;
      if (q.paged() && bytes > kJobsPageBytes) {
        out->set_more(true);
        break;
      }
      auto* info = add_job(it->second);
      // The environment is no listing's business, and can be a megabyte a job.
      info->mutable_spec()->clear_env();
      if (q.paged()) bytes += info->ByteSizeLong();
    }
  }
  if (!out->more()) hooks_.add_leased_jobs(q, user, *out);
  return reply;
}

wire::ReplyEnvelope JobQueries::wait_condition(const wire::RequestEnvelope& request) const {
  auto expr = sched::DependencyExpr::parse(request.wait_condition().condition());
  if (!expr) return net::error_reply(wire::STATUS_BAD_REQUEST, "Dependency condition syntax error");
  // Every job it names must exist, as for bsub -w.
  for (const auto& ref : expr->references()) {
    bool known = ref.name.empty() ? !ctx_.state.elements(ref.job_id).empty() : !ctx_.state.jobs_named(ref.name).empty();
    if (!known) {
      std::string what = ref.name.empty() ? job_label({ref.job_id, ref.index}) : ref.name;
      return net::error_reply(wire::STATUS_NOT_FOUND, "Job <" + what + ">: No matching job found");
    }
  }
  auto reply = net::ok_reply();
  switch (evaluate_dependency(ctx_.conf(), ctx_.state, *expr)) {
    case sched::DependencyState::kSatisfied:
      reply.mutable_wait_condition()->set_state(wire::CONDITION_SATISFIED);
      break;
    case sched::DependencyState::kNever:
      reply.mutable_wait_condition()->set_state(wire::CONDITION_NEVER);
      break;
    default:
      reply.mutable_wait_condition()->set_state(wire::CONDITION_WAITING);
      break;
  }
  return reply;
}

}  // namespace lsf::mbd
