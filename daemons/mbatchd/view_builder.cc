#include "daemons/mbatchd/view_builder.h"

#include <algorithm>

#include "daemons/mbatchd/job_policy.h"
#include "daemons/mbatchd/job_queries.h"
#include "libconfig/config_loader.h"
#include "libsched/pass_apply.h"

namespace lsf::mbd {

// Per queue, once per view: its index in the policy, its default run limit. Consecutive
// jobs mostly share a queue: the last one found is tried first.
class ViewBuilder::QueueTable {
 public:
  QueueTable(const config::ClusterConfig& config, const sched::SchedPolicy& policy) {
    for (const auto& q : config.queues) {
      const int index = policy.queue_index(q.name);
      const bool predict = index >= 0 && policy.queues[static_cast<size_t>(index)].predict;
      queues_.emplace(q.name, QueueFacts{index, default_run_limit_s(q), &q, predict});
    }
  }
  // Null for a queue a reconfig removed.
  const QueueFacts* find(const Job& job) {
    if (last_name_ && *last_name_ == job.queue) return last_facts_;
    auto it = queues_.find(job.queue);
    last_name_ = &job.queue;
    last_facts_ = it == queues_.end() ? nullptr : &it->second;
    return last_facts_;
  }

 private:
  std::unordered_map<std::string, QueueFacts> queues_;
  const std::string* last_name_ = nullptr;
  const QueueFacts* last_facts_ = nullptr;
};

ViewBuilder::ViewBuilder(ComponentContext ctx, const ConfigIndex& index, const PassMemory& memory, ViewHooks hooks)
    : ctx_(std::move(ctx)), index_(index), memory_(memory), hooks_(std::move(hooks)) {}

sched::ClusterView ViewBuilder::build(bool with_pending, bool leases, std::vector<Job*>* jobs) const {
  sched::ClusterView view;
  generation_ = hooks_.config_generation();
  view.policy = leases ? hooks_.policy_with_leased_resources() : index_.policy;
  view.week = config::local_week_instant();
  for (const auto& q : ctx_.conf().queues) view.queues.push_back({ctx_.state.queues().at(q.name).active});
  add_own_hosts(view);
  const size_t own_hosts = view.hosts.size();
  hooks_.add_borrowed_hosts(view);
  attach_host_table(view, own_hosts);
  QueueTable queues(ctx_.conf(), *index_.policy);
  GroupIndex groups;  // empty unless some job group has a limit
  hooks_.add_job_groups(view, groups);
  add_pending(view, queues, groups, with_pending, jobs);
  add_running(view, queues);
  view.share_history = ctx_.state.share_history();
  share_name_ids(view);
  return view;
}

sched::ResourceMap ViewBuilder::host_resources(const std::string& host) const {
  auto res = index_.host_static.at(host);
  hooks_.add_load(host, res);
  return res;
}

void ViewBuilder::add_own_hosts(sched::ClusterView& view) const {
  for (const auto& h : ctx_.conf().hosts)
    if (h.server) view.hosts.push_back(host_view(h.name));
}

sched::HostView ViewBuilder::host_view(const std::string& name) const {
  sched::HostView hv;
  hv.name = name;
  hv.status = hooks_.status_of(name);
  // The pass works out the closed_* states other than closed_Adm itself: it counts
  // slots and reads windows and thresholds, with the reasons that go with them.
  if (sched::closed_by_pass(hv.status)) hv.status = sched::HostStatus::kOk;
  hv.resources = host_resources(name);
  if (auto it = memory_.last_dispatch.find(name); it != memory_.last_dispatch.end()) hv.last_dispatch = it->second;
  if (auto it = memory_.last_load_action.find(name); it != memory_.last_load_action.end())
    hv.last_load_action = it->second;
  if (auto ncpus = hooks_.reported_ncpus(name)) hv.ncpus = std::max(1, *ncpus);
  if (hooks_.add_gpus) hooks_.add_gpus(name, hv.gpus);
  hv.lent_slots = hooks_.lent_slots(name);
  return hv;
}

void ViewBuilder::attach_host_table(sched::ClusterView& view, size_t own_hosts) const {
  // Borrowed hosts come and go with the offers: the table must name the same hosts.
  bool same_hosts = host_table_ && host_table_->names->size() == view.hosts.size();
  for (size_t i = own_hosts; same_hosts && i < view.hosts.size(); ++i)
    same_hosts = (*host_table_->names)[i] == view.hosts[i].name;
  // Remade after each reconfig, and while guarantee pool membership waits on hosts that
  // have not reported (RES_SELECT needs their values).
  if (!same_hosts || host_table_generation_ != generation_ || host_table_->undecided) {
    host_table_ = sched::make_host_table(view);
    host_table_generation_ = generation_;
  }
  view.accel.host_table = host_table_;
  view.accel.host_table_checked = true;  // own hosts are the configuration's; borrowed ones compared above
}

void ViewBuilder::add_pending(sched::ClusterView& view, QueueTable& queues, const GroupIndex& groups, bool with_pending,
                              std::vector<Job*>* jobs) const {
  int gpu_jobs = 0;
  static const ClusterState::JobIndex kNoPending;
  const auto& pending = with_pending ? ctx_.state.pending() : kNoPending;
  if (jobs) {  // the pass's view (the only one that hands its storage back)
    view.pending = std::move(spare_pending_);
    view.pending.clear();
    jobs->reserve(pending.size());
  }
  view.pending.reserve(pending.size());
  // The walk is bound by memory latency: each job is an index node, a Job and a
  // Submission, each somewhere else. Asking for them some jobs ahead overlaps the waits.
  constexpr int kJobAhead = 16, kSubmissionAhead = 8;
  auto job_ahead = pending.begin(), submission_ahead = pending.begin();
  for (int i = 0; i < kJobAhead && job_ahead != pending.end(); ++i) ++job_ahead;
  for (int i = 0; i < kSubmissionAhead && submission_ahead != pending.end(); ++i) ++submission_ahead;
  for (const auto& [key, job_ptr] : pending) {
    if (job_ahead != pending.end()) {
      __builtin_prefetch(job_ahead->second);
      __builtin_prefetch(reinterpret_cast<const char*>(job_ahead->second) + 64);
      ++job_ahead;
    }
    if (submission_ahead != pending.end()) {
      const Submission* sub = submission_ahead->second->submission.get();
      __builtin_prefetch(sub);
      __builtin_prefetch(&sub->spec);
      __builtin_prefetch(&sub->user);
      __builtin_prefetch(&sub->derived);
      ++submission_ahead;
    }
    const QueueFacts* qf = queues.find(*job_ptr);
    if (!qf || qf->index < 0) continue;  // queue removed by reconfig: stays pending
    view.pending.push_back(pending_view(key, *job_ptr, *qf, groups));
    const sched::JobView& jv = view.pending.back();
    if (jv.array_limit > 0 && !view.array_running.count(key.id)) count_array_running(view, key.id);
    if (jv.gpu) ++gpu_jobs;
    if (jobs) jobs->push_back(job_ptr);
  }
  view.accel.gpu_jobs = gpu_jobs;  // schmod_gpu need not read every job for it
}

sched::JobView ViewBuilder::pending_view(const sched::JobKey& key, const Job& job, const QueueFacts& qf,
                                         const GroupIndex& groups) const {
  const auto& spec = job.spec();
  sched::JobView jv;
  jv.key = key;
  jv.queue = qf.index;
  jv.order = job.position;
  if (!job.excluded_hosts.empty()) jv.excluded_hosts = job.excluded_hosts;
  jv.user = job.user();
  jv.res_req = requirement(job, qf);
  if (const auto& project = job.submission->derived.project; !project.empty()) jv.project = project;
  give_ids(job, jv);
  jv.min_slots = std::max(1, spec.min_processors());
  jv.max_slots = std::max(jv.min_slots, spec.max_processors());
  if (spec.asked_hosts_size() > 0) jv.asked_hosts = asked_hosts(job);
  jv.exclusive = spec.exclusive();
  jv.run_limit_s = run_limit(job, qf);
  // RUNTIME_ESTIMATE = PREDICT: what the user's last jobs ran, as bsim predicts it.
  // (Set only when predicted, so that a job started from it shows as predicted.)
  if (qf.predict && ctx_.state.runtimes().predicted(jv.user))
    jv.estimate_s = sched::predicted_estimate(ctx_.state.runtimes(), jv.user, jv.run_limit_s);
  jv.begin_time = spec.begin_time();
  jv.retry_at = job.retry_at;
  jv.dependency = dependency_state(ctx_.conf(), ctx_.state, job);
  jv.held = job.state == wire::JOB_PSUSP;
  jv.array_limit = spec.array_limit();
  if (auto r = memory_.reservations.find(key); r != memory_.reservations.end())
    sched::carry_reservation(jv, &r->second);
  jv.share_group = spec.user_group();
  jv.sla = spec.service_class();
  // A blocked job accrues no queue time; it starts anew when it is eligible again.
  jv.idle_since = job.blocked ? -1 : job.idle_since > 0 ? job.idle_since : job.submission->submit_time;
  jv.aps_system = spec.aps_system();
  jv.aps_admin = spec.aps_admin();
  if (!groups.empty() && !spec.job_group().empty())
    if (auto g = groups.find(spec.job_group()); g != groups.end()) jv.job_group = g->second;
  jv.bypass_count = job.bypass_count;
  jv.user_priority = spec.user_priority() > 0 ? spec.user_priority() : -1;
  jv.gpu = gpu_request(job, qf);
  return jv;
}

void ViewBuilder::count_array_running(sched::ClusterView& view, std::int64_t array_id) const {
  int running = 0;
  for (const Job* e : ctx_.state.elements(array_id))
    if (e->state == wire::JOB_RUN || e->state == wire::JOB_SSUSP || e->state == wire::JOB_USUSP) ++running;
  view.array_running[array_id] = running;
}

void ViewBuilder::add_running(sched::ClusterView& view, QueueTable& queues) const {
  view.running.reserve(ctx_.state.started().size());
  for (const auto& [key, job_ptr] : ctx_.state.started()) {
    const QueueFacts* qf = queues.find(*job_ptr);
    if (!qf || qf->index < 0) continue;
    view.running.push_back(running_view(key, *job_ptr, *qf));
  }
}

sched::RunningJobView ViewBuilder::running_view(const sched::JobKey& key, const Job& job, const QueueFacts& qf) const {
  sched::RunningJobView rv;
  rv.key = key;
  rv.queue = qf.index;
  rv.user = job.user();
  if (!job.spec().project().empty()) rv.project = job.spec().project();
  give_ids(job, rv);
  rv.hosts = job.exec_hosts;
  // The job's hosts as the table indexes them, worked out once per start and table.
  if (job.placed.table != host_table_ || job.placed.attempt != job.attempt) {
    job.placed.table = host_table_;
    job.placed.attempt = job.attempt;
    job.placed.slots =
        std::make_shared<const std::vector<std::pair<int, int>>>(sched::host_slots(*host_table_, job.exec_hosts));
  }
  rv.accel.table = job.placed.table;
  rv.accel.slots = job.placed.slots;
  rv.state = job.state == wire::JOB_RUN     ? sched::RunState::kRun
             : job.state == wire::JOB_SSUSP ? sched::RunState::kSsusp
                                            : sched::RunState::kUsusp;
  rv.cause = sched::suspend_cause_of(job.state == wire::JOB_SSUSP, job.reason);
  rv.start_time = job.start_time;
  rv.run_limit_s = run_limit(job, qf);
  rv.estimate_s = job.estimate_s;
  rv.exclusive = job.spec().exclusive();
  rv.forced = job.forced;
  rv.gpus = job.gpus;
  rv.res_req = requirement(job, qf);
  rv.cpu_s = job.cpu_time;
  rv.share_group = job.spec().user_group();
  rv.sla = job.spec().service_class();
  return rv;
}

void ViewBuilder::share_name_ids(sched::ClusterView& view) const {
  if (!user_ids_copy_ || user_ids_copy_->size() != user_ids_.size())
    user_ids_copy_ = std::make_shared<const sched::NameIndex>(user_ids_);
  if (!project_ids_copy_ || project_ids_copy_->size() != project_ids_.size())
    project_ids_copy_ = std::make_shared<const sched::NameIndex>(project_ids_);
  view.accel.user_ids = user_ids_copy_;
  view.accel.project_ids = project_ids_copy_;
}

// Found once per submission, queue and configuration; array elements share it.
std::shared_ptr<const config::ResourceRequirement> ViewBuilder::requirement(const Job& job,
                                                                            const QueueFacts& qf) const {
  auto& cached = job.submission->derived;
  if (cached.generation == generation_ && cached.queue == qf.index) return cached.requirement;
  auto key = std::make_tuple(job.spec().res_req(), job.spec().app(), job.queue);
  auto it = merged_requirements_.find(key);
  if (it == merged_requirements_.end()) {
    const auto* app = application(ctx_.conf(), job);
    std::shared_ptr<const config::ResourceRequirement> merged;
    if (auto combined =
            config::combine_requirements(job.submission->res_req.get(), app && app->res_req ? &*app->res_req : nullptr,
                                         qf.queue->res_req ? &*qf.queue->res_req : nullptr))
      merged = std::make_shared<const config::ResourceRequirement>(std::move(*combined));
    // Distinct -R strings are few in practice; a flood of unique ones must not grow
    // the cache without bound (dropping it only costs re-merging).
    if (merged_requirements_.size() > 100000) merged_requirements_.clear();
    it = merged_requirements_.emplace(key, merged).first;
  }
  cached.generation = generation_;
  cached.queue = qf.index;
  cached.requirement = it->second;
  cached.project = job.spec().project();
  return it->second;
}

// Worked out once per submission, queue and configuration; array elements share it.
// Most jobs ask for no GPU: for them it is a check of three levels, no allocation.
std::shared_ptr<const config::GpuRequest> ViewBuilder::gpu_request(const Job& job, const QueueFacts& qf) const {
  auto& cached = job.submission->derived;
  if (cached.gpu_generation == generation_ && cached.gpu_queue == qf.index) return cached.gpu;
  cached.gpu.reset();
  if (auto gpu = mbd::effective_gpu_request(ctx_.conf(), job))
    cached.gpu = std::make_shared<const config::GpuRequest>(*gpu);
  cached.gpu_generation = generation_;
  cached.gpu_queue = qf.index;
  return cached.gpu;
}

// Resolved once per submission and configuration; array elements share it.
std::shared_ptr<const sched::AskedHosts> ViewBuilder::asked_hosts(const Job& job) const {
  auto& cached = job.submission->derived;
  if (cached.asked_generation != generation_) {
    cached.asked_hosts = resolve_asked_hosts(ctx_.conf(), job.spec());
    cached.asked_generation = generation_;
  }
  return cached.asked_hosts;
}

std::int64_t ViewBuilder::run_limit(const Job& job, const QueueFacts& qf) const {
  return run_limit_s(job, application(ctx_.conf(), job), qf.queue, qf.run_limit_s);
}

// The job's user and project (as the view names them) as ids, found once per
// submission.
template <class View>
void ViewBuilder::give_ids(const Job& job, View& v) const {
  auto& d = job.submission->derived;
  if (d.user_id < 0) {
    d.user_id = user_ids_.insert(v.user).first;
    d.project_id = project_ids_.insert(v.project).first;
  }
  v.user_id = d.user_id;
  v.project_id = d.project_id;
}

}  // namespace lsf::mbd
