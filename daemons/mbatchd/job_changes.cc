// JobService's changes to a job after submission: brequeue, bswitch, bmod, bmig. Each
// names its jobs as bkill does, answers one LSF line per job, and changes nothing for a
// job it refuses. A started job brequeue or bmig moves is killed first and requeued
// when its end is reported (take_requeue_after_kill).
#include <algorithm>
#include <csignal>
#include <set>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include "daemons/mbatchd/job_groups.h"
#include "daemons/mbatchd/job_policy.h"
#include "daemons/mbatchd/job_service.h"
#include "libconfig/text.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {

// What a bmod request changes, worked out once for all the jobs it names.
struct ModifyScope {
  bool running_changes_allowed = false;  // LSB_MOD_ALL_JOBS=Y
  bool limits_only = true;               // only -W/-Wn and -M/-Mn: allowed on a started job
  bool sets_aps = false;
  bool sets_priority = false;
  bool sets_app = false;
  bool sets_group = false;
};

namespace {

void add_result(wire::SignalJobsReply* out, const sched::JobKey& key, bool ok, const std::string& message) {
  auto* r = out->add_results();
  r->mutable_job()->set_job_id(key.id);
  r->mutable_job()->set_index(key.index);
  r->set_ok(ok);
  r->set_message(message);
}

std::string label(const sched::JobKey& key) { return "Job <" + job_label(key) + ">"; }

// What every change refuses: another user's job (unless the caller is an LSF
// administrator or one of its queue's ADMINISTRATORS) and a finished one. Ok: go on.
daemon::Status refusal(const Job& job, const std::string& caller, bool admin) {
  if (!admin && job.user() != caller) return daemon::fail("User permission denied");
  if (job.finished()) return daemon::fail("Job has already finished");
  return {};
}

ModifyScope scope_of(const wire::ModifyRequest& q, const config::LsfConf& lsf_conf) {
  ModifyScope m;
  // LSB_MOD_ALL_JOBS=Y lets bmod change a running job's run and memory limits, which
  // its sbatchd then enforces.
  m.running_changes_allowed = config::iequals(lsf_conf.get("LSB_MOD_ALL_JOBS").value_or("N"), "Y");
  static const std::set<std::string> kRunningLimits = {"run_limit_s", "mem_limit_kb"};
  for (const auto* names : {&q.set(), &q.reset()})
    for (const auto& name : *names) {
      m.limits_only = m.limits_only && kRunningLimits.count(name) > 0;
      m.sets_aps = m.sets_aps || name.rfind("aps_", 0) == 0;
    }
  auto sets = [&](const char* field) { return std::find(q.set().begin(), q.set().end(), field) != q.set().end(); };
  m.sets_priority = sets("user_priority");
  m.sets_app = sets("app");
  m.sets_group = sets("job_group");
  return m;
}

// The job's spec with the request's fields cleared (reset) or copied in (set); the
// names were checked against JobSpec before.
wire::JobSpec modified_spec(const wire::JobSpec& current, const wire::ModifyRequest& q) {
  const auto* desc = wire::JobSpec::descriptor();
  const auto* refl = wire::JobSpec::GetReflection();
  wire::JobSpec spec = current;
  for (const auto& name : q.reset()) refl->ClearField(&spec, desc->FindFieldByName(name));
  for (const auto& name : q.set()) {
    const auto* f = desc->FindFieldByName(name);
    refl->ClearField(&spec, f);
    if (f->is_repeated()) {
      for (int i = 0; i < refl->FieldSize(q.changes(), f); ++i) {
        if (f->type() == google::protobuf::FieldDescriptor::TYPE_STRING)
          refl->AddString(&spec, f, refl->GetRepeatedString(q.changes(), f, i));
      }
      continue;
    }
    switch (f->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_STRING:
        refl->SetString(&spec, f, refl->GetString(q.changes(), f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
        refl->SetInt32(&spec, f, refl->GetInt32(q.changes(), f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_INT64:
        refl->SetInt64(&spec, f, refl->GetInt64(q.changes(), f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_BOOL:
        refl->SetBool(&spec, f, refl->GetBool(q.changes(), f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE:
        refl->SetDouble(&spec, f, refl->GetDouble(q.changes(), f));
        break;
      default:
        break;
    }
  }
  if (spec.max_processors() < spec.min_processors()) spec.set_max_processors(spec.min_processors());
  return spec;
}

}  // namespace

daemon::Status JobService::check_in_queue(const wire::JobSpec& spec, const std::string& queue,
                                          std::string* resolved) const {
  wire::JobSpec check = spec;
  check.clear_queues();
  check.add_queues(queue);
  check.clear_array_spec();  // the array exists already: its size was checked at submission
  std::string name;
  bool default_queue = false;
  std::vector<std::int32_t> indices;
  auto st = check_submission(check, name, default_queue, indices);
  if (resolved) *resolved = name;
  return st;
}

std::vector<Job*> JobService::named_jobs(const google::protobuf::RepeatedPtrField<wire::JobRef>& refs,
                                         const std::string& user_for_zero, wire::SignalJobsReply* out) {
  std::vector<Job*> targets;
  for (const auto& ref : refs) {
    if (ref.job_id() == 0) {
      for (auto& [key, job] : ctx_.state.jobs())
        if (!job.finished() && (user_for_zero == "all" || job.user() == user_for_zero))
          targets.push_back(ctx_.state.find_job(key));
      continue;
    }
    std::vector<const Job*> found;
    if (ref.index() > 0) {
      if (const auto* j = ctx_.state.find_job({ref.job_id(), ref.index()})) found.push_back(j);
    } else {
      found = ctx_.state.elements(ref.job_id());
    }
    if (found.empty())
      add_result(out, {ref.job_id(), ref.index()}, false,
                 label({ref.job_id(), ref.index()}) + ": No matching job found");
    for (const auto* j : found) targets.push_back(ctx_.state.find_job(j->key));
  }
  return targets;
}

void JobService::on_requeue(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.requeue();
  const auto& caller = request.caller();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  std::set<int> states(q.states().begin(), q.states().end());
  if (states.empty()) states = {wire::JOB_RUN, wire::JOB_SSUSP, wire::JOB_USUSP};
  bool changed = false;
  for (Job* job : named_jobs(q.jobs(), q.user().empty() ? caller.user_name() : q.user(), out)) {
    const bool admin = permissions_.acts_as_admin(caller, *job);
    if (!admin && job->user() != caller.user_name()) {
      add_result(out, job->key, false, label(job->key) + ": User permission denied");
      continue;
    }
    if (!states.count(job->state) || requeue_after_kill_.count(job->key)) {
      const char* why = job->finished()  ? "Job has already finished"
                        : job->pending() ? "Job has not started yet"
                                         : "Job is not in a state brequeue was asked to requeue";
      add_result(out, job->key, false, label(job->key) + ": " + why);
      continue;
    }
    if (job->pending() || job->finished()) {
      wire::EventRecord ev;
      auto* e = ev.mutable_job_requeue();
      e->set_job_id(job->key.id);
      e->set_index(job->key.index);
      e->set_hold(q.hold());
      e->set_to_bottom(true);
      ctx_.sink.record(ev);
      changed = true;
    } else {
      // Killed first; the requeue is recorded when sbatchd reports the job ended.
      requeue_after_kill_[job->key] = {q.hold(), false};
      hooks_.signal_on_host(*job, SIGKILL,
                            admin && job->user() != caller.user_name() ? "TERM_REQUEUE_ADMIN" : "TERM_REQUEUE_OWNER");
    }
    ctx_.log->info("job {} requeued by {}", job_label(job->key), caller.user_name());
    add_result(out, job->key, true, label(job->key) + " is being requeued");
  }
  if (changed) hooks_.request_pass();
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

void JobService::on_migrate(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.migrate();
  const auto& caller = request.caller();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  for (Job* job : named_jobs(q.jobs(), q.user().empty() ? caller.user_name() : q.user(), out)) {
    const std::string who = label(job->key);
    auto may = refusal(*job, caller.user_name(), permissions_.acts_as_admin(caller, *job));
    if (may && (job->pending() || requeue_after_kill_.count(job->key))) may = daemon::fail("Job has not started yet");
    if (!may) {
      add_result(out, job->key, false, who + ": " + may.message());
      continue;
    }
    if (!rerunnable(ctx_.conf(), *job)) {
      // Without checkpointing, a job can move only by starting over: it must be rerunnable.
      add_result(out, job->key, false, who + ": Job is not rerunnable (bsub -r or RERUNNABLE queue)");
      continue;
    }
    if (q.hosts_size() > 0) {
      // -m: where it may go now, checked as at submission.
      wire::JobSpec spec = job->spec();
      spec.clear_asked_hosts();
      for (const auto& h : q.hosts()) spec.add_asked_hosts(h);
      if (auto st = check_in_queue(spec, job->queue); !st.ok()) {
        add_result(out, job->key, false, who + ": " + st.message());
        continue;
      }
      wire::EventRecord ev;
      auto* e = ev.mutable_job_modify();
      e->set_job_id(job->key.id);
      e->set_index(job->key.index);
      *e->mutable_spec() = spec;
      ctx_.sink.record(ev);
    }
    requeue_after_kill_[job->key] = {false, true};
    hooks_.signal_on_host(*job, SIGKILL, "TERM_MIGRATE");
    ctx_.log->info("job {} migrated by {}", job_label(job->key), caller.user_name());
    add_result(out, job->key, true, who + " is being migrated");
  }
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

void JobService::on_switch(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.switch_queue();
  const auto& caller = request.caller();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  bool changed = false;
  for (Job* job : named_jobs(q.jobs(), caller.user_name(), out)) {
    if (auto may = refusal(*job, caller.user_name(), permissions_.acts_as_admin(caller, *job)); !may) {
      add_result(out, job->key, false, label(job->key) + ": " + may.message());
      continue;
    }
    // The new queue must take the job as it would at submission.
    std::string queue;
    if (auto st = check_in_queue(job->spec(), q.queue(), &queue); !st.ok()) {
      add_result(out, job->key, false, label(job->key) + ": " + st.message());
      continue;
    }
    if (queue != job->queue) {
      wire::EventRecord ev;
      auto* e = ev.mutable_job_switch();
      e->set_job_id(job->key.id);
      e->set_index(job->key.index);
      e->set_queue(queue);
      ctx_.sink.record(ev);
      changed = true;
      ctx_.log->info("job {} switched to queue {} by {}", job_label(job->key), queue, caller.user_name());
    }
    add_result(out, job->key, true, label(job->key) + " is switched to queue <" + queue + ">");
  }
  if (changed) hooks_.request_pass();
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

void JobService::on_modify(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.modify();
  const auto& caller = request.caller();
  // Fields a submission fixes for good: the array, where it came from, who sent it.
  static const std::set<std::string> kFixed = {"array_spec", "array_limit", "queues", "from_host",
                                               "env",        "umask",       "cwd"};
  for (const auto* names : {&q.set(), &q.reset()}) {
    for (const auto& name : *names) {
      if (!wire::JobSpec::descriptor()->FindFieldByName(name) || kFixed.count(name))
        return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "bmod cannot change " + name));
    }
  }
  const ModifyScope scope = scope_of(q, ctx_.conf().lsf_conf);
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  bool changed = false;
  for (Job* job : named_jobs(q.jobs(), caller.user_name(), out)) {
    wire::JobSpec spec;
    if (auto checked = check_modify(*job, q, caller, scope, spec); !checked) {
      add_result(out, job->key, false, label(job->key) + ": " + checked.message());
      continue;
    }
    if (scope.sets_group) hooks_.ensure_job_group(spec.job_group(), caller.user_name());
    wire::EventRecord ev;
    auto* e = ev.mutable_job_modify();
    e->set_job_id(job->key.id);
    e->set_index(job->key.index);
    *e->mutable_spec() = spec;
    ctx_.sink.record(ev);
    changed = true;
    ctx_.log->info("job {} modified by {}", job_label(job->key), caller.user_name());
    if (!job->pending()) send_limits(*job);
    add_result(out, job->key, true, "Parameters of job <" + job_label(job->key) + "> are being changed");
  }
  if (changed) hooks_.request_pass();
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

daemon::Status JobService::check_modify(const Job& job, const wire::ModifyRequest& q, const wire::Identity& caller,
                                        const ModifyScope& scope, wire::JobSpec& spec) const {
  const bool admin = permissions_.acts_as_admin(caller, job);
  if (auto may = refusal(job, caller.user_name(), admin); !may) return may;
  // APS values are the administrators' (LSF: "You must be an administrator").
  if (scope.sets_aps && !admin) return daemon::fail("User permission denied");
  // A started job: only its limits, and only where lsf.conf allows it, as LSF.
  if (!job.pending() && !scope.running_changes_allowed) return daemon::fail("Job has already started");
  if (!job.pending() && !scope.limits_only)
    return daemon::fail("Job has already started; only -W, -Wn, -M and -Mn change a running job");
  spec = modified_spec(job.spec(), q);
  if (auto gpu = normalize_gpu_request(spec, ctx_.conf().lsf_conf.unit_for_limits); !gpu) return gpu;
  // The job must still be one its queue takes, with requirements that parse.
  if (auto in_queue = check_in_queue(spec, job.queue); !in_queue) return in_queue;
  // -sp is checked when this bmod sets it: a lowered MAX_USER_PRIORITY does not lock
  // the job's other options.
  if (scope.sets_priority)
    if (auto ok = permissions_.check_user_priority(spec.user_priority(), caller, job.queue); !ok) return ok;
  // A new profile must exist and take the job's -n; one removed by a reconfig does
  // not lock the job's other options.
  if (scope.sets_app)
    if (auto ok = check_application(spec); !ok) return ok;
  if (scope.sets_group)
    if (auto ok = check_job_group_path(spec.job_group()); !ok) return ok;
  Submission trial;
  trial.spec = spec;
  return prepare_submission(trial);
}

void JobService::send_limits(const Job& job) {
  wire::JobLaunch launch;
  if (job.exec_hosts.empty() || !hooks_.make_launch(job.key, launch)) return;
  wire::RequestEnvelope req;
  auto* m = req.mutable_modify_limits();
  m->set_job_id(job.key.id);
  m->set_index(job.key.index);
  m->set_run_limit_s(launch.run_limit_s());
  m->set_mem_limit_kb(launch.mem_limit_kb());
  auto key = job.key;
  hooks_.call_host(job.exec_hosts.front(), std::move(req), [this, key](const net::CallResult& r) {
    if (!r.ok())
      ctx_.log->warn("job {}: its host did not take the new limits ({}); the old ones stay in force there",
                     job_label(key), r.message());
  });
}

bool JobService::kill_and_requeue(const Job& job, const std::string& exit_reason) {
  if (requeue_after_kill_.count(job.key)) return false;
  requeue_after_kill_[job.key] = {false, true};  // ahead of the waiting jobs
  hooks_.signal_on_host(job, SIGKILL, exit_reason);
  return true;
}

std::optional<JobService::RequeueAfterKill> JobService::take_requeue_after_kill(const sched::JobKey& key) {
  auto it = requeue_after_kill_.find(key);
  if (it == requeue_after_kill_.end()) return std::nullopt;
  RequeueAfterKill how = it->second;
  requeue_after_kill_.erase(it);
  return how;
}

}  // namespace lsf::mbd
