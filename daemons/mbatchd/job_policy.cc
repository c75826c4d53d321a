#include "daemons/mbatchd/job_policy.h"

#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include "libconfig/host_resolution.h"

namespace lsf::mbd {

std::int64_t default_run_limit_s(const config::Queue& queue) {
  if (!queue.run_limit) return 0;
  const auto& rl = queue.run_limit->default_value ? *queue.run_limit->default_value : queue.run_limit->maximum;
  return std::int64_t{rl.minutes} * 60;
}

const config::Application* application(const config::ClusterConfig& config, const Job& job) {
  return job.spec().app().empty() ? nullptr : config.find_application(job.spec().app());
}

std::int64_t run_limit_s(const Job& job, const config::Application* app, const config::Queue* queue,
                         std::int64_t queue_default_s) {
  if (job.spec().run_limit_s() > 0) return job.spec().run_limit_s();
  if (!app || !app->run_limit) return queue_default_s;
  // The profile's limit overrides the queue's default but not its maximum.
  std::int64_t limit = std::int64_t{app->run_limit->minutes} * 60;
  if (queue && queue->run_limit && queue->run_limit->maximum.minutes > 0)
    limit = std::min(limit, std::int64_t{queue->run_limit->maximum.minutes} * 60);
  return limit;
}

std::int64_t effective_run_limit(const config::ClusterConfig& config, const Job& job) {
  const config::Queue* queue = config.find_queue(job.queue);
  return run_limit_s(job, application(config, job), queue, queue ? default_run_limit_s(*queue) : 0);
}

bool rerunnable(const config::ClusterConfig& config, const Job& job) {
  if (job.spec().not_rerunnable()) return false;
  if (job.spec().rerunnable()) return true;
  if (const auto* app = application(config, job); app && app->rerunnable) return *app->rerunnable;
  const config::Queue* queue = config.find_queue(job.queue);
  return queue && queue->rerunnable;
}

// -m names hosts, host groups, `others` and `all`, with +preference levels.
std::shared_ptr<const sched::AskedHosts> resolve_asked_hosts(const config::ClusterConfig& config,
                                                             const wire::JobSpec& spec) {
  std::string text;
  for (const auto& h : spec.asked_hosts()) text += h + " ";
  auto out = std::make_shared<sched::AskedHosts>();
  auto items = config::parse_host_list(text);
  if (!items) return out;  // checked at submission; a reconfig may have removed a group
  for (const auto& h : config::resolve_host_list(config, *items)) out->preference[h] = 0;
  // Borrowed hosts by name (`-m hostA@provider`); what is offered decides whether they run.
  for (const auto& item : *items)
    if (item.kind == config::HostListItem::Kind::kName && !item.cluster.empty() && !item.exclude &&
        item.cluster != config.cluster_name)
      out->preference[item.name + "@" + item.cluster] = item.preference;
  for (auto item : *items) {
    if (!item.has_preference || item.exclude) continue;
    int level = item.preference;
    item.has_preference = false;
    item.preference = 0;
    for (const auto& h : config::resolve_host_list(config, {item})) {
      auto it = out->preference.find(h);
      if (it != out->preference.end()) it->second = std::max(it->second, level);
    }
  }
  return out;
}

sched::DependencyState dependency_state(const config::ClusterConfig& config, const ClusterState& state,
                                        const Job& job) {
  const auto& dep = job.submission->dependency;
  if (!dep) return sched::DependencyState::kNone;
  return evaluate_dependency(config, state, *dep);
}

namespace {

sched::DependencyJob::Phase phase_of(const Job& j) {
  using P = sched::DependencyJob::Phase;
  switch (j.state) {
    case wire::JOB_PEND:
      return P::kPending;
    case wire::JOB_PSUSP:
      return P::kHeld;
    case wire::JOB_DONE:
      return P::kDone;
    case wire::JOB_EXIT:
      return P::kExit;
    default:
      return P::kRunning;
  }
}

}  // namespace

sched::DependencyState evaluate_dependency(const config::ClusterConfig& config, const ClusterState& state,
                                           const sched::DependencyExpr& dep) {
  return dep.evaluate([&](const sched::DependencyRef& ref) {
    std::vector<sched::DependencyJob> out;
    auto add = [&](const Job& j) {
      int code = WIFEXITED(j.exit_status) ? WEXITSTATUS(j.exit_status) : 128 + WTERMSIG(j.exit_status);
      out.push_back({phase_of(j), code});
    };
    if (ref.name.empty()) {
      if (ref.index > 0) {
        if (const Job* j = state.find_job({ref.job_id, ref.index})) add(*j);
      } else {
        for (const Job* j : state.elements(ref.job_id)) add(*j);
      }
    } else {
      auto ids = state.jobs_named(ref.name);
      // JOB_DEP_LAST_SUB: a name means its latest job; otherwise every job of that name.
      if (config.params.job_dep_last_sub && !ids.empty()) ids.resize(1);
      for (auto id : ids)
        for (const Job* j : state.elements(id)) add(*j);
    }
    return out;
  });
}

}  // namespace lsf::mbd
