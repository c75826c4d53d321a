#include "daemons/mbatchd/cluster_state.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <google/protobuf/util/message_differencer.h>

#include "libconfig/resreq.h"
#include "libconfig/text.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {
namespace {

// Every new job shares this text until the first pass gives it its own reason.
std::shared_ptr<const std::string> new_job_reason() {
  static const auto text = std::make_shared<const std::string>(sched::reason::kNewJob);
  return text;
}

}  // namespace

daemon::Status prepare_submission(Submission& s) {
  // bmod copies the submission it changes: what the new spec no longer has must go.
  s.res_req.reset();
  s.dependency.reset();
  s.gpu.reset();
  if (!s.spec.res_req().empty()) {
    auto rr = config::ResourceRequirement::parse(s.spec.res_req());
    if (!rr) return daemon::fail("Bad resource requirement syntax: " + rr.error());
    s.res_req = std::make_shared<const config::ResourceRequirement>(*rr);
  }
  if (!s.spec.dependency().empty()) {
    auto dep = sched::DependencyExpr::parse(s.spec.dependency());
    if (!dep) return daemon::fail(dep.error());
    s.dependency = std::make_shared<const sched::DependencyExpr>(*dep);
  }
  if (!s.spec.gpu().empty()) {
    // mbatchd writes every amount with its unit (normalize_gpu_request), so the unit for
    // bare amounts does not matter here.
    auto gpu = config::GpuRequest::parse(s.spec.gpu());
    if (!gpu) return daemon::fail("Bad GPU requirement (-gpu): " + gpu.error());
    s.gpu = std::make_shared<const config::GpuRequest>(*gpu);
  }
  return {};
}

void add_gpu_uses(const sched::GpuAllocation& gpus, google::protobuf::RepeatedPtrField<wire::GpuUse>& out) {
  for (const auto& g : gpus) {
    auto* u = out.Add();
    u->set_host(g.host);
    u->set_gpu(g.gpu);
    u->set_exclusive(g.exclusive);
    u->set_mem_mb(g.mem_mb);
  }
}

sched::GpuAllocation gpu_allocation(const google::protobuf::RepeatedPtrField<wire::GpuUse>& in) {
  sched::GpuAllocation out;
  out.reserve(static_cast<size_t>(in.size()));
  for (const auto& g : in) out.push_back({g.host(), g.gpu(), g.exclusive(), g.mem_mb()});
  return out;
}

daemon::Status normalize_gpu_request(wire::JobSpec& spec, config::MemoryUnit unit) {
  if (spec.gpu().empty() && spec.res_req().find("ngpus_physical") != std::string::npos) {
    // -R "rusage[ngpus_physical=N]", LSF's older way to ask for GPUs: N devices on each
    // of the job's hosts, in the default modes, as -gpu "num=N" asks.
    auto rr = config::ResourceRequirement::parse(spec.res_req());
    if (rr && !rr->rusage.empty())
      for (const auto& clause : rr->rusage.alternatives[0])
        for (const auto& item : clause.items) {
          if (item.name != "ngpus_physical") continue;
          if (item.value < 1 || item.value > 1024 || item.value != std::floor(item.value))
            return daemon::fail(
                "Bad resource requirement syntax: rusage[ngpus_physical=" + config::format_number(item.value) +
                "]: the number of GPUs must be a whole number from 1 to 1024");
          spec.set_gpu("num=" + std::to_string(static_cast<int>(item.value)));
        }
  }
  if (spec.gpu().empty()) return {};
  auto gpu = config::GpuRequest::parse(spec.gpu(), unit);
  if (!gpu) return daemon::fail("Bad GPU requirement (-gpu): " + gpu.error());
  spec.set_gpu(gpu->empty() ? "-" : gpu->to_string());
  return {};
}

const std::array<const char*, StateTally::kStates> kTallyStates = {"PEND",  "PSUSP", "RUN", "SSUSP",
                                                                   "USUSP", "DONE",  "EXIT"};

int StateTally::active_jobs() const { return jobs[0] + jobs[1] + jobs[2] + jobs[3] + jobs[4]; }

bool StateTally::empty() const {
  for (int n : jobs)
    if (n != 0) return false;
  return true;
}

namespace {

int tally_index(wire::JobState state) {
  switch (state) {
    case wire::JOB_PEND:
      return 0;
    case wire::JOB_PSUSP:
      return 1;
    case wire::JOB_RUN:
      return 2;
    case wire::JOB_SSUSP:
      return 3;
    case wire::JOB_USUSP:
      return 4;
    case wire::JOB_DONE:
      return 5;
    case wire::JOB_EXIT:
      return 6;
    default:
      return -1;
  }
}

}  // namespace

void ClusterState::track(Job& job, int sign) {
  int slots = job.slots() * sign;
  auto q = queues_.find(job.queue);
  JobCounts* qc = q == queues_.end() ? nullptr : &q->second.counts;
  if (const int t = tally_index(job.state); t >= 0) {
    auto count = [&](StateTally& tally) {
      tally.jobs[t] += sign;
      tally.slots[t] += slots;
    };
    count(tally_);
    if (q != queues_.end()) count(q->second.tally);
    auto u = users_.try_emplace(job.user()).first;
    count(u->second);
    if (u->second.empty()) users_.erase(u);
  }
  auto add = [&](JobCounts* c, int n) {
    if (!c) return;
    switch (job.state) {
      case wire::JOB_PEND:
        c->pend += n;
        break;
      case wire::JOB_PSUSP:
        c->psusp += n;
        break;
      case wire::JOB_RUN:
        c->run += n;
        break;
      case wire::JOB_SSUSP:
        c->ssusp += n;
        break;
      case wire::JOB_USUSP:
        c->ususp += n;
        break;
      default:
        break;
    }
  };
  add(qc, slots);
  if (job.state == wire::JOB_RUN || job.state == wire::JOB_SSUSP || job.state == wire::JOB_USUSP) {
    for (const auto& h : job.exec_hosts) {
      auto it = hosts_.find(h);
      if (it == hosts_.end()) it = hosts_.emplace(h, HostState{h, false, {}, {}, 0, 0, {}}).first;
      add(&it->second.counts, sign);
    }
    if (job.gpus)
      for (const auto& use : *job.gpus) {
        auto it = hosts_.find(use.host);
        if (it != hosts_.end()) it->second.gpus_used += sign;
      }
    if (job.spec().exclusive() && !job.exec_hosts.empty()) {
      std::set<std::string> distinct(job.exec_hosts.begin(), job.exec_hosts.end());
      for (const auto& h : distinct) hosts_[h].exclusive_jobs += sign;
    }
  }
  if (job.pending()) {
    if (sign > 0)
      pending_.emplace(job.key, &job);
    else
      pending_.erase(job.key);
  }
  if (job.state == wire::JOB_RUN || job.state == wire::JOB_SSUSP || job.state == wire::JOB_USUSP) {
    if (sign > 0)
      started_.emplace(job.key, &job);
    else
      started_.erase(job.key);
    if (!job.exec_hosts.empty()) {
      auto& here = hosts_.find(job.exec_hosts.front())->second.started_here;  // made just above
      if (sign > 0)
        here.insert(job.key);
      else
        here.erase(job.key);
    }
  }
}

Job& ClusterState::add_job(Job job) {
  auto key = job.key;
  auto [it, inserted] = jobs_.insert_or_assign(key, std::move(job));
  (void)inserted;
  track(it->second, +1);
  return it->second;
}

Job* ClusterState::find_job(const sched::JobKey& key) {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}
const Job* ClusterState::find_job(const sched::JobKey& key) const {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::vector<const Job*> ClusterState::elements(std::int64_t job_id) const {
  std::vector<const Job*> out;
  for (auto it = jobs_.lower_bound({job_id, 0}); it != jobs_.end() && it->first.id == job_id; ++it)
    out.push_back(&it->second);
  return out;
}

std::int64_t ClusterState::job_of_request(const std::string& user, const std::string& request_id) const {
  auto it = by_request_.find(user + "/" + request_id);
  return it == by_request_.end() || elements(it->second).empty() ? 0 : it->second;
}

std::vector<std::int64_t> ClusterState::jobs_named(const std::string& pattern) const {
  std::vector<std::int64_t> out;
  for (const auto& [name, id] : by_name_)
    if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) out.push_back(id);
  std::sort(out.rbegin(), out.rend());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void ClusterState::set_pending_reasons(std::vector<sched::PendingReason>& reasons, std::int64_t now,
                                       std::span<Job* const> by_index) {
  auto take = [now](Job& job, sched::PendingReason& r) {
    job.pending_reason = std::move(r.text);
    job.pending_hosts = std::move(r.hosts);
    if (job.blocked && !r.blocked) job.idle_since = now;  // eligible again: queue time starts anew
    job.bypass_count += r.bypassed;
    job.blocked = r.blocked;
  };
  auto job_at = [&](size_t i) -> Job* {
    const int v = reasons[i].view_index;
    return v >= 0 && static_cast<size_t>(v) < by_index.size() ? by_index[static_cast<size_t>(v)] : nullptr;
  };
  std::vector<sched::PendingReason> rest;
  constexpr size_t kAhead = 8;  // the jobs are all over memory: ask for them early
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i + kAhead < reasons.size())
      if (Job* later = job_at(i + kAhead)) {
        __builtin_prefetch(later);
        __builtin_prefetch(&later->bypass_count);
        __builtin_prefetch(&later->pending_reason);
      }
    auto& r = reasons[i];
    Job* job = job_at(i);
    if (job && job->key == r.job) {
      if (job->pending()) take(*job, r);  // else started or killed since the pass began
    } else {
      rest.push_back(std::move(r));
    }
  }
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.job < b.job; });
  auto it = pending_.begin();
  for (auto& r : rest) {
    while (it != pending_.end() && it->first < r.job) ++it;
    if (it == pending_.end()) break;
    if (it->first != r.job) continue;  // started or killed since the pass began
    take(*it->second, r);
  }
}

void ClusterState::set_aps(std::vector<sched::ApsScore>& scores) {
  // Only jobs of APS queues have values: forget the last pass's without walking every
  // pending job.
  for (const auto& key : with_aps_)
    if (Job* job = find_job(key)) job->aps.reset();
  with_aps_.clear();
  for (auto& s : scores)
    if (auto it = pending_.find(s.job); it != pending_.end()) {
      it->second->aps = std::make_shared<sched::ApsScore>(std::move(s));
      with_aps_.push_back(it->first);
    }
}

void ClusterState::charge_share(const Job& job) {
  int q = policy_ ? policy_->queue_index(job.queue) : -1;
  if (q < 0 || !sched::charges_history(policy_->queues[static_cast<size_t>(q)]) || job.start_time <= 0 ||
      job.end_time < job.start_time)
    return;
  // Passes read the history from other threads through their views: a view may hold
  // this one, so change a copy (views are only made on this thread, so a count of one
  // means nobody else can see it).
  if (share_history_.use_count() > 1) share_history_ = std::make_shared<sched::ShareHistory>(*share_history_);
  double slots = static_cast<double>(std::max<size_t>(1, job.exec_hosts.size()));
  sched::ShareUse use{job.cpu_time, static_cast<double>(job.end_time - job.start_time) * slots};
  sched::charge_finished(*share_history_, policy_->queues[static_cast<size_t>(q)], job.user(), job.spec().user_group(),
                         use, job.end_time);
}

void ClusterState::set_pending_reason(const sched::JobKey& key, std::shared_ptr<const std::string> reason,
                                      std::shared_ptr<const sched::HostReasons> hosts) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  Job* j = it->second;
  j->pending_reason = std::move(reason);
  j->pending_hosts = std::move(hosts);
  j->blocked = false;
}

daemon::Status ClusterState::apply_status(const wire::JobStatusEvent& e, std::int64_t time) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_STATUS for unknown job " + job_label({e.job_id(), e.index()}));
  track(*job, -1);
  bool was_finished = job->finished();
  job->state = e.state();
  if (job->finished()) {
    job->end_time = time;
    job->exit_status = e.exit_status();
    job->cpu_time = e.cpu_time();
    job->max_rss_kb = e.max_rss_kb();
    if (!was_finished) {
      ++finished_since_snapshot_;
      charge_share(*job);
      if (job->start_time > 0 && job->end_time >= job->start_time)
        runtimes_.finished(job->user(), job->end_time - job->start_time);
    }
  }
  if (!e.reason().empty() || job->finished()) job->reason = e.reason();
  if (job->state == wire::JOB_RUN) job->reason.clear();
  track(*job, +1);
  return {};
}

daemon::Status ClusterState::apply(const wire::EventRecord& r) {
  if (r.seq() > last_seq_) last_seq_ = r.seq();
  switch (r.event_case()) {
    case wire::EventRecord::kJobNew:
      return apply_new(r.job_new());
    case wire::EventRecord::kJobStart:
      return apply_start(r.job_start(), r.time());
    case wire::EventRecord::kJobExecute:
      return apply_execute(r.job_execute());
    case wire::EventRecord::kJobStatus:
      return apply_status(r.job_status(), r.time());
    case wire::EventRecord::kJobRequeue:
      return apply_requeue(r.job_requeue(), r.time(), r.seq());
    case wire::EventRecord::kJobSwitch:
      return apply_switch(r.job_switch());
    case wire::EventRecord::kJobModify:
      return apply_modify(r.job_modify());
    case wire::EventRecord::kJobMove:
      return apply_move(r.job_move());
    case wire::EventRecord::kQueueCtrl:
      return apply_queue_ctrl(r.queue_ctrl());
    case wire::EventRecord::kHostCtrl:
      return apply_host_ctrl(r.host_ctrl());
    case wire::EventRecord::kJobGroup:
      return apply_job_group(r.job_group());
    case wire::EventRecord::kMbdStart:
      return {};
    case wire::EventRecord::EVENT_NOT_SET:
      return {};  // a record type from a newer version: skipped, as LSF readers do
  }
  return {};
}

daemon::Status ClusterState::apply_new(const wire::JobNewEvent& e) {
  auto sub = std::make_shared<Submission>();
  sub->spec = e.spec();
  sub->user = e.user();
  sub->uid = e.uid();
  sub->submit_time = e.submit_time();
  sub->indices.assign(e.indices().begin(), e.indices().end());
  if (auto prepared = prepare_submission(*sub); !prepared) return prepared;
  std::shared_ptr<const Submission> shared = sub;
  auto make = [&](std::int32_t index) {
    Job job;
    job.key = {e.job_id(), index};
    job.submission = shared;
    job.queue = e.queue();
    job.state = e.spec().hold() ? wire::JOB_PSUSP : wire::JOB_PEND;
    job.position = e.job_id();
    job.pending_reason = new_job_reason();
    add_job(std::move(job));
  };
  if (sub->indices.empty())
    make(0);
  else
    for (auto i : sub->indices) make(i);
  if (!e.spec().job_name().empty()) by_name_.emplace(e.spec().job_name(), e.job_id());
  if (!e.spec().request_id().empty()) by_request_[e.user() + "/" + e.spec().request_id()] = e.job_id();
  next_job_id_ = std::max(next_job_id_, e.job_id() + 1);
  return {};
}

daemon::Status ClusterState::apply_start(const wire::JobStartEvent& e, std::int64_t time) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_START for unknown job " + job_label({e.job_id(), e.index()}));
  track(*job, -1);
  job->state = wire::JOB_RUN;
  job->exec_hosts.assign(e.exec_hosts().begin(), e.exec_hosts().end());
  job->forced = e.forced();
  job->gpus.reset();
  if (e.gpus_size() > 0) job->gpus = std::make_shared<const sched::GpuAllocation>(gpu_allocation(e.gpus()));
  job->start_time = time;
  job->estimate_s = e.run_estimate();
  ++job->attempt;
  job->pending_reason.reset();
  job->reason.clear();
  track(*job, +1);
  return {};
}

daemon::Status ClusterState::apply_execute(const wire::JobExecuteEvent& e) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_EXECUTE for unknown job " + job_label({e.job_id(), e.index()}));
  job->pid = e.pid();
  job->exec_cwd = e.exec_cwd();
  job->exec_home = e.exec_home();
  return {};
}

daemon::Status ClusterState::apply_requeue(const wire::JobRequeueEvent& e, std::int64_t time, std::int64_t seq) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_REQUEUE for unknown job " + job_label({e.job_id(), e.index()}));
  track(*job, -1);
  job->state = e.hold() ? wire::JOB_PSUSP : wire::JOB_PEND;
  job->exec_hosts.clear();
  job->start_time = 0;
  job->end_time = 0;
  job->exit_status = 0;
  job->cpu_time = 0;
  job->max_rss_kb = 0;
  job->reason.clear();
  job->pid = 0;
  job->pending_reason = std::make_shared<const std::string>(e.reason().empty() ? sched::reason::kRequeued : e.reason());
  // A failed pre-exec is tried again on a later pass, not in the same instant.
  if (e.pre_exec_failed()) {
    ++job->pre_exec_failures;
    job->retry_at = time + kPreExecRetryDelay;
  }
  if (e.hold()) job->pre_exec_failures = 0;
  for (const auto& h : e.exclude_hosts())
    if (std::find(job->excluded_hosts.begin(), job->excluded_hosts.end(), h) == job->excluded_hosts.end())
      job->excluded_hosts.push_back(h);
  // A rerun goes ahead of every job waiting in its queue, earlier reruns first.
  if (e.to_top()) job->position = std::numeric_limits<std::int64_t>::min() / 2 + seq;
  if (e.to_bottom()) job->position = next_job_id_;
  track(*job, +1);
  return {};
}

daemon::Status ClusterState::apply_switch(const wire::JobSwitchEvent& e) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_SWITCH for unknown job " + job_label({e.job_id(), e.index()}));
  track(*job, -1);
  job->queue = e.queue();
  track(*job, +1);
  return {};
}

daemon::Status ClusterState::apply_modify(const wire::JobModifyEvent& e) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_MODIFY for unknown job " + job_label({e.job_id(), e.index()}));
  // The element gets a submission of its own; its array siblings keep theirs.
  auto sub = std::make_shared<Submission>(*job->submission);
  sub->spec = e.spec();
  sub->derived = {};
  if (auto prepared = prepare_submission(*sub); !prepared) return prepared;
  track(*job, -1);
  job->submission = std::move(sub);
  track(*job, +1);
  return {};
}

daemon::Status ClusterState::apply_move(const wire::JobMoveEvent& e) {
  Job* job = find_job({e.job_id(), e.index()});
  if (!job) return daemon::fail("JOB_MOVE for unknown job " + job_label({e.job_id(), e.index()}));
  job->position = e.position();
  return {};
}

daemon::Status ClusterState::apply_queue_ctrl(const wire::QueueCtrlEvent& e) {
  auto& q = queues_[e.queue()];
  q.name = e.queue();
  if (e.op() == wire::CONTROL_OPEN) q.open = true;
  if (e.op() == wire::CONTROL_CLOSE) q.open = false;
  if (e.op() == wire::CONTROL_ACTIVATE) q.active = true;
  if (e.op() == wire::CONTROL_INACTIVATE) q.active = false;
  return {};
}

daemon::Status ClusterState::apply_host_ctrl(const wire::HostCtrlEvent& e) {
  auto& h = hosts_[e.host()];
  h.name = e.host();
  h.admin_closed = e.op() == wire::CONTROL_CLOSE;
  h.admin_comment = e.comment();
  return {};
}

daemon::Status ClusterState::apply_job_group(const wire::JobGroupEvent& e) {
  if (e.op() == wire::JGRP_ADD) {
    job_groups_[e.path()] = JobGroup{e.path(), e.user(), e.limit()};
    return {};
  }
  auto it = job_groups_.find(e.path());
  if (it == job_groups_.end()) return daemon::fail("JOB_GROUP for unknown group " + e.path());
  if (e.op() == wire::JGRP_MOD) {
    it->second.limit = e.limit();
    return {};
  }
  // JGRP_DEL: the group and everything below it.
  const std::string below = e.path() + "/";
  std::erase_if(job_groups_, [&](const auto& g) { return g.first == e.path() || g.first.starts_with(below); });
  return {};
}

int ClusterState::clean_finished(std::int64_t cutoff) {
  int n = 0;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->second.finished() && it->second.end_time < cutoff) {
      track(it->second, -1);
      ++jobs_dropped_;
      it = jobs_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  if (n > 0) {
    for (auto it = by_name_.begin(); it != by_name_.end();) {
      if (elements(it->second).empty())
        it = by_name_.erase(it);
      else
        ++it;
    }
    for (auto it = by_request_.begin(); it != by_request_.end();) {
      if (elements(it->second).empty())
        it = by_request_.erase(it);
      else
        ++it;
    }
  }
  return n;
}

wire::Snapshot ClusterState::snapshot(std::int64_t now) const {
  wire::Snapshot s;
  s.set_time(now);
  s.set_next_job_id(next_job_id_);
  s.set_last_seq(last_seq_);
  for (const auto& [key, job] : jobs_) {
    auto* r = s.add_jobs();
    r->set_job_id(key.id);
    r->set_index(key.index);
    *r->mutable_spec() = job.spec();
    r->set_user(job.user());
    r->set_uid(job.submission->uid);
    r->set_queue(job.queue);
    r->set_state(job.state);
    r->set_submit_time(job.submission->submit_time);
    r->set_start_time(job.start_time);
    r->set_end_time(job.end_time);
    for (const auto& h : job.exec_hosts) r->add_exec_hosts(h);
    r->set_exit_status(job.exit_status);
    r->set_cpu_time(job.cpu_time);
    r->set_max_rss_kb(job.max_rss_kb);
    r->set_pid(job.pid);
    r->set_reason(job.reason);
    r->set_exec_cwd(job.exec_cwd);
    r->set_exec_home(job.exec_home);
    r->set_position(job.position);
    r->set_forced(job.forced);
    r->set_attempt(job.attempt);
    r->set_pre_exec_failures(job.pre_exec_failures);
    r->set_run_estimate(job.estimate_s);
    for (const auto& h : job.excluded_hosts) r->add_excluded_hosts(h);
  }
  for (const auto& [name, q] : queues_) {
    // Named apart: clang before 16 cannot capture a structured binding.
    auto add = [&s, &queue = name](wire::ControlOp op) {
      auto* e = s.add_queue_states();
      e->set_queue(queue);
      e->set_op(op);
    };
    if (!q.open) add(wire::CONTROL_CLOSE);
    if (!q.active) add(wire::CONTROL_INACTIVATE);
  }
  for (const auto& [name, h] : hosts_) {
    if (!h.admin_closed) continue;
    auto* e = s.add_host_states();
    e->set_host(name);
    e->set_op(wire::CONTROL_CLOSE);
    e->set_comment(h.admin_comment);
  }
  for (const auto& [path, g] : job_groups_) {
    auto* e = s.add_job_groups();
    e->set_path(path);
    e->set_op(wire::JGRP_ADD);
    e->set_user(g.owner);
    e->set_limit(g.limit);
  }
  for (const auto& e : runtimes_.entries()) {
    auto* u = s.add_runtimes();
    u->set_user(e.user);
    u->set_newest(e.newest);
    u->set_older(e.older);
  }
  for (const auto& e : share_history_->entries()) {
    auto* u = s.add_share_usage();
    u->set_queue(e.queue);
    u->set_user(e.user);
    u->set_cpu_s(e.use.cpu_s);
    u->set_run_s(e.use.run_s);
    u->set_as_of(e.as_of);
  }
  return s;
}

void ClusterState::load_snapshot(const wire::Snapshot& s) {
  next_job_id_ = s.next_job_id();
  last_seq_ = s.last_seq();
  // Elements of one array share their submission again, as they did when live.
  std::shared_ptr<const Submission> last;
  std::int64_t last_id = -1;
  for (const auto& r : s.jobs()) {
    // An element bmod changed has a submission of its own.
    if (!last || r.job_id() != last_id || !google::protobuf::util::MessageDifferencer::Equals(r.spec(), last->spec)) {
      auto sub = std::make_shared<Submission>();
      sub->spec = r.spec();
      sub->user = r.user();
      sub->uid = r.uid();
      sub->submit_time = r.submit_time();
      (void)prepare_submission(*sub);  // the log took it: it parsed then
      last = sub;
      last_id = r.job_id();
    }
    Job job;
    job.key = {r.job_id(), r.index()};
    job.submission = last;
    job.queue = r.queue();
    job.state = r.state();
    job.start_time = r.start_time();
    job.end_time = r.end_time();
    job.exec_hosts.assign(r.exec_hosts().begin(), r.exec_hosts().end());
    job.exit_status = r.exit_status();
    job.cpu_time = r.cpu_time();
    job.max_rss_kb = r.max_rss_kb();
    job.pid = r.pid();
    job.reason = r.reason();
    job.exec_cwd = r.exec_cwd();
    job.exec_home = r.exec_home();
    job.position = r.position() != 0 ? r.position() : r.job_id();
    job.forced = r.forced();
    job.attempt = r.attempt();
    job.pre_exec_failures = r.pre_exec_failures();
    job.estimate_s = r.run_estimate();
    job.excluded_hosts.assign(r.excluded_hosts().begin(), r.excluded_hosts().end());
    if (job.pending()) job.pending_reason = new_job_reason();
    if (!r.spec().job_name().empty() && r.index() <= 1) by_name_.emplace(r.spec().job_name(), r.job_id());
    if (!r.spec().request_id().empty()) by_request_[r.user() + "/" + r.spec().request_id()] = r.job_id();
    add_job(std::move(job));
  }
  // A snapshot's queue, host and group states are the records that would make them;
  // each is a control or a group added, and always applies.
  for (const auto& e : s.queue_states()) (void)apply_queue_ctrl(e);
  for (const auto& e : s.host_states()) (void)apply_host_ctrl(e);
  for (const auto& e : s.job_groups()) (void)apply_job_group(e);
  auto history = std::make_shared<sched::ShareHistory>();
  for (const auto& u : s.share_usage()) history->restore({u.queue(), u.user(), {u.cpu_s(), u.run_s()}, u.as_of()});
  share_history_ = std::move(history);
  runtimes_ = {};
  for (const auto& u : s.runtimes()) runtimes_.restore({u.user(), u.newest(), u.older()});
}

void ClusterState::sync_config(const config::ClusterConfig& config, std::shared_ptr<const sched::SchedPolicy> policy) {
  policy_ = std::move(policy);
  for (const auto& q : config.queues) {
    auto& s = queues_[q.name];
    s.name = q.name;
  }
  for (const auto& h : config.hosts) {
    auto& s = hosts_[h.name];
    s.name = h.name;
  }
}

}  // namespace lsf::mbd
