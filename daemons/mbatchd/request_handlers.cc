// Requests from commands: submission, queries and control. Each change is recorded
// (applied + appended to lsb.events) and answered only once it is durable; a request
// that fails validation changes nothing.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <set>

#include "daemons/mbatchd/mbatchd.h"
#include "daemons/mbatchd/share_rows.h"
#include "daemons/mbatchd/submission_bounds.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libconfig/load_index.h"
#include "libconfig/shares.h"
#include "libconfig/text.h"
#include "libsched/array_index_list.h"
#include "libsched/pending_reason.h"
#include "libsched/pool_usage.h"

namespace lsf::mbd {
namespace {

// "1-100:2,200" -> indices. Empty string on success.
std::string parse_array_spec(const std::string& spec, int max_size, std::vector<std::int32_t>& out) {
  auto indices = sched::parse_array_index_list(spec, max_size);
  if (!indices) return indices.error();
  out = *indices;
  return {};
}

std::string strip_pref(std::string_view item) {
  auto plus = item.find('+');
  return std::string(item.substr(0, plus));
}

int signal_number(const std::string& name) {
  static const std::pair<const char*, int> names[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"KILL", SIGKILL}, {"USR1", SIGUSR1},
      {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"STOP", SIGSTOP}, {"CONT", SIGCONT}, {"TSTP", SIGTSTP},
      {"ALRM", SIGALRM}, {"ABRT", SIGABRT}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"WINCH", SIGWINCH}};
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::toupper(c); });
  if (n.rfind("SIG", 0) == 0) n = n.substr(3);
  for (auto [s, v] : names)
    if (n == s) return v;
  if (auto v = config::parse_int(n); v && *v > 0 && *v < 65) return static_cast<int>(*v);
  return -1;
}

}  // namespace

daemon::Status Mbatchd::check_submission(const wire::JobSpec& spec, std::string& queue_name, bool& default_queue,
                                         std::vector<std::int32_t>& indices) const {
  const auto& cfg = *config_;
  if (auto why = check_spec_bounds(spec); !why.empty()) return daemon::fail(why);
  if (spec.command().empty()) return daemon::fail("No command is specified");
  // Queue: the first candidate that exists and is open.
  std::vector<std::string> candidates(spec.queues().begin(), spec.queues().end());
  default_queue = candidates.empty();
  if (default_queue) {
    candidates = cfg.params.default_queues;
    if (candidates.empty() && !cfg.queues.empty()) candidates.push_back(cfg.queues.front().name);
  }
  const config::Queue* queue = nullptr;
  std::string why;
  for (const auto& name : candidates) {
    const auto* q = cfg.find_queue(name);
    if (!q) {
      why = name + ": No such queue";
      continue;
    }
    auto st = state_.queues().find(name);
    if (st != state_.queues().end() && !st->second.open) {
      why = name + ": Queue has been closed";
      continue;
    }
    queue = q;
    break;
  }
  if (!queue) return daemon::fail(why.empty() ? "No default queue is defined" : why);
  queue_name = queue->name;

  if (spec.min_processors() < 0 || (spec.max_processors() > 0 && spec.max_processors() < spec.min_processors()))
    return daemon::fail("Bad argument for option -n");
  if (spec.exclusive() && !queue->exclusive) return daemon::fail("Queue does not accept EXCLUSIVE jobs");
  if (!spec.res_req().empty()) {
    auto rr = config::ResourceRequirement::parse(spec.res_req());
    if (!rr) return daemon::fail("Bad resource requirement syntax: " + rr.error());
  }
  for (const auto& item : spec.asked_hosts()) {
    std::string name = strip_pref(item);
    if (name == "others" || name == "all") continue;
    if (const auto at = name.rfind('@'); at != std::string::npos) {
      // A borrowed host: whether the cluster offers it is known only when it runs.
      if (at == 0 || !cfg.is_known_cluster(name.substr(at + 1)) || name.substr(at + 1) == cfg.cluster_name)
        return daemon::fail(name + ": Bad host name, host group name or cluster name");
      continue;
    }
    if (!cfg.find_host(name) && !cfg.find_host_group(name))
      return daemon::fail(name + ": Bad host name, host group name or cluster name");
  }
  if (queue->run_limit && spec.run_limit_s() > 0 && queue->run_limit->maximum.minutes > 0 &&
      spec.run_limit_s() > std::int64_t{queue->run_limit->maximum.minutes} * 60)
    return daemon::fail("Cannot exceed queue's hard limit(s)");

  // More slots than every host the queue may use together: it could never run.
  long total = 0;
  bool unlimited = false;
  auto count = [&](const std::string& h) {
    int mxj = host_max_slots(h);
    if (mxj < 0) unlimited = true;
    total += std::max(0, mxj);
  };
  const auto& policy = *config_index_.policy;
  const auto& queue_policy = policy.queues[policy.queue_index(queue->name)];
  const auto& queue_hosts = queue_policy.hosts;  // empty: every host
  // Borrowed hosts come and go with the offers: they are not counted here.
  if (queue_policy.all_remote || !queue_policy.remote_clusters.empty() || !queue_policy.remote_hosts.empty())
    unlimited = true;
  for (const auto& h : cfg.hosts)
    if (queue_hosts.empty() || queue_hosts.count(h.name)) count(h.name);
  if (!unlimited && spec.min_processors() > total) return daemon::fail("Too many processors requested");
  // As LSF: -m naming a host (or a group with no host) the queue does not use is refused
  // at once, not left pending for ever.
  if (!queue_hosts.empty()) {
    for (const auto& item : spec.asked_hosts()) {
      std::string name = strip_pref(item);
      if (name == "others" || name == "all" || name.find('@') != std::string::npos) continue;
      config::HostListItem asked;
      asked.name = name;
      const auto hosts = config::resolve_host_list(cfg, {asked});
      if (std::none_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return queue_hosts.count(h) > 0; }))
        return daemon::fail(name + ": Host or host group is not used by the queue");
    }
  }

  indices.clear();
  if (!spec.array_spec().empty()) {
    if (auto err = parse_array_spec(spec.array_spec(), cfg.params.max_job_array_size, indices); !err.empty())
      return daemon::fail(err);
  }
  if (!spec.dependency().empty()) {
    auto dep = sched::DependencyExpr::parse(spec.dependency());
    if (!dep) return daemon::fail(dep.error());
    for (const auto& ref : dep->references()) {
      bool found = ref.name.empty() ? !state_.elements(ref.job_id).empty() : !state_.jobs_named(ref.name).empty();
      if (!found) {
        std::string what = ref.name.empty() ? job_label({ref.job_id, ref.index}) : ref.name;
        return daemon::fail(what + ": No matching job found");
      }
    }
  }
  return {};
}

void Mbatchd::on_submit(const wire::RequestEnvelope& request, const net::Responder& respond) {
  auto reply = net::ok_reply();
  if (auto st = submit_one(request.submit().spec(), request.caller(), *reply.mutable_submit()); !st.ok())
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, st.message()));
  reply_when_durable(respond, std::move(reply));
  request_pass();
}

void Mbatchd::on_submit_pack(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.submit_pack();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_submit_pack();
  bool any = false;
  for (const auto& spec : q.specs()) {
    auto* r = out->add_results();
    if (auto st = submit_one(spec, request.caller(), *r->mutable_submitted()); !st.ok()) {
      r->clear_submitted();
      r->set_message(st.message());
      if (!q.skip_errors()) break;
      continue;
    }
    r->set_ok(true);
    any = true;
  }
  // One wait for durability covers the whole pack: the group commit is the point.
  reply_when_durable(respond, std::move(reply));
  if (any) request_pass();
}

daemon::Status Mbatchd::check_application(wire::JobSpec& spec) const {
  if (spec.app().empty()) return {};
  const config::Application* app = config_->find_application(spec.app());
  if (!app) return daemon::fail(spec.app() + ": No such application profile");
  if (const auto& p = app->proc_limit) {
    if (spec.min_processors() < 1) {
      spec.set_min_processors(p->default_value);
      spec.set_max_processors(p->default_value);
    } else if (spec.min_processors() < p->minimum ||
               std::max(spec.max_processors(), spec.min_processors()) > p->maximum) {
      return daemon::fail("Bad argument for option -n: application profile <" + app->name + "> allows " +
                          std::to_string(p->minimum) + " to " + std::to_string(p->maximum) + " processors (PROCLIMIT)");
    }
  }
  return {};
}

daemon::Status Mbatchd::submit_one(const wire::JobSpec& spec, const wire::Identity& caller, wire::SubmitReply& out) {
  std::string queue;
  bool default_queue = false;
  std::vector<std::int32_t> indices;
  // A retry of a submission that was made (its reply lost to a timeout) gets that job.
  if (!spec.request_id().empty()) {
    if (std::int64_t id = state_.job_of_request(caller.user_name(), spec.request_id())) {
      const Job* first = state_.elements(id).front();
      log_->info("job {}: a repeated submission request from {}; answered with the job it made", id,
                 caller.user_name());
      out.set_job_id(id);
      out.set_queue(first->queue);
      out.set_default_queue(first->spec().queues().empty());
      return {};
    }
  }
  // Root submits only where the site allows it for now (LSF_ROOT_USER=Y), as in LSF.
  if (caller.uid() == 0 && !config::parse_yes_no(config_->lsf_conf.get("LSF_ROOT_USER").value_or("N")).value_or(false))
    return daemon::fail("User permission denied: root may not submit jobs (LSF_ROOT_USER is not Y)");
  // -G: a user group of lsb.users the caller belongs to directly, as LSF requires.
  if (!spec.user_group().empty()) {
    const auto* group = config_->find_user_group(spec.user_group());
    if (!group) return daemon::fail(spec.user_group() + ": No such user group");
    bool member = false;
    for (const auto& m : group->members)
      member = member || (!m.exclude && (m.kind == config::UserListItem::Kind::kAll || m.name == caller.user_name()));
    if (!member)
      return daemon::fail("User <" + caller.user_name() + "> is not a direct member of user group <" +
                          spec.user_group() + ">");
  }
  // -sla: a service class of lsb.serviceclasses whose USER_GROUP (and, for guarantee
  // classes, ACCESS_CONTROL users, queues and projects) admits the job. Without -sla, the
  // first guarantee class with AUTO_ATTACH = Y whose ACCESS_CONTROL admits it takes it.
  auto admits = [&](const std::vector<std::string>& who) {
    return who.empty() ||
           std::any_of(who.begin(), who.end(), [&](const std::string& w) { return names_user(w, caller.user_name()); });
  };
  const std::string project = spec.project().empty() ? config_->params.default_project : spec.project();
  auto access = [&](const config::ServiceClass& sc) {
    auto listed = [](const std::vector<std::string>& names, const std::string& name) {
      return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
    };
    return admits(sc.user_group) && admits(sc.access_users) && listed(sc.access_queues, queue) &&
           listed(sc.access_projects, project);
  };
  const config::ServiceClass* sc = nullptr;
  if (!spec.service_class().empty()) {
    sc = config_->find_service_class(spec.service_class());
    if (!sc) return daemon::fail(spec.service_class() + ": No such service class");
    if (!admits(sc->user_group) || !admits(sc->access_users))
      return daemon::fail("User <" + caller.user_name() + "> may not submit to service class <" + sc->name + ">");
  }
  // -app, else DEFAULT_APPLICATION.
  wire::JobSpec with_app = spec;
  if (with_app.app().empty()) with_app.set_app(config_->params.default_application);
  if (auto st = check_application(with_app); !st.ok()) return st;
  if (!spec.job_group().empty())
    if (auto st = check_job_group_path(spec.job_group()); !st.ok()) return st;
  if (auto st = check_submission(with_app, queue, default_queue, indices); !st.ok()) return st;
  if (auto err = check_user_priority(spec.user_priority(), caller, queue); !err.empty()) return daemon::fail(err);
  if (sc && !access(*sc))
    return daemon::fail("Service class <" + sc->name + "> does not accept jobs of queue <" + queue + ">" +
                        (sc->access_projects.empty() ? "" : " and project <" + project + ">"));
  if (!sc)
    for (const auto& c : config_->service_classes)
      if (c.guarantee && c.auto_attach && access(c)) {
        sc = &c;
        break;
      }
  // Only users with a share may submit to a fairshare queue, administrators included.
  const auto& policy = *config_index_.policy;
  if (const auto& fs = policy.queues[static_cast<size_t>(policy.queue_index(queue))].fairshare;
      fs && sched::share_path(*fs, caller.user_name()).empty())
    return daemon::fail("User <" + caller.user_name() + "> has no share in fairshare queue <" + queue + ">");

  // The id is on record in lsb.jobid before it is used, and before anything is applied.
  std::int64_t id = state_.next_job_id();
  if (auto err = job_ids_.cover(id); !err.empty()) {
    note_refusal("cannot write lsb.jobid: " + err);
    return daemon::fail("cannot write lsb.jobid: " + err);
  }
  // -g names a group that may not exist yet: LSF creates it (and the groups above it),
  // owned by the submitter.
  if (!spec.job_group().empty()) ensure_job_group(spec.job_group(), caller.user_name());
  wire::EventRecord ev;
  auto* e = ev.mutable_job_new();
  e->set_job_id(id);
  *e->mutable_spec() = std::move(with_app);
  if (sc) e->mutable_spec()->set_service_class(sc->name);
  if (e->spec().min_processors() < 1) e->mutable_spec()->set_min_processors(1);
  if (e->spec().project().empty()) e->mutable_spec()->set_project(config_->params.default_project);
  e->set_user(caller.user_name());
  e->set_uid(caller.uid());
  e->set_queue(queue);
  e->set_submit_time(now());
  for (auto i : indices) e->add_indices(i);
  record(ev);
  ++submissions_total_;
  log_->debug("job {} submitted to queue {} by {}", id, queue, caller.user_name());
  out.set_job_id(id);
  out.set_queue(queue);
  out.set_default_queue(default_queue);
  return {};
}

wire::JobInfo Mbatchd::job_info(const Job& job) const {
  wire::JobInfo info;
  info.set_job_id(job.key.id);
  info.set_index(job.key.index);
  info.set_user(job.user());
  info.set_state(job.state);
  // As LSF: a started job whose host mbatchd cannot reach is shown UNKWN.
  if (!job.exec_hosts.empty() && !job.pending() && !job.finished()) {
    if (unreachable(status_of(job.exec_hosts.front()))) info.set_state(wire::JOB_UNKWN);
  }
  info.set_queue(job.queue);
  *info.mutable_spec() = job.spec();
  info.mutable_spec()->clear_env();  // kilobytes per job that no query prints
  info.set_submit_time(job.submission->submit_time);
  info.set_start_time(job.start_time);
  info.set_end_time(job.end_time);
  for (const auto& h : job.exec_hosts) info.add_exec_hosts(h);
  info.set_exit_status(job.exit_status);
  info.set_cpu_time(job.cpu_time);
  info.set_max_rss_kb(job.max_rss_kb);
  if (job.pending()) {
    if (job.state == wire::JOB_PSUSP)
      info.set_pending_class(wire::PENDING_HELD);
    else if (auto dep = dependency_state(job); job.spec().begin_time() > now() ||
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
  if (auto r = reservations().find(job.key); r != reservations().end() && job.pending()) {
    for (const auto& h : r->second.hosts) info.add_reserved_hosts(h);
    info.set_estimated_start(r->second.estimated_start);
    info.set_reserved_since(r->second.since);
  }
  info.set_pid(job.pid);
  if (job.state == wire::JOB_USUSP || job.state == wire::JOB_SSUSP) info.set_suspend_reason(job.reason);
  if (job.finished()) info.set_exit_reason(job.reason);
  info.set_exec_cwd(job.exec_cwd);
  info.set_exec_home(job.exec_home);
  info.set_job_name(job.display_name());
  // With MAX_USER_PRIORITY, "Job Priority" is the job's own (bsub -sp, else half the
  // maximum), as LSF shows it; without, the queue's.
  if (int max = config_->params.max_user_priority; max > 0)
    info.set_priority(job.spec().user_priority() > 0 ? job.spec().user_priority() : max / 2);
  else if (const auto* q = config_->find_queue(job.queue))
    info.set_priority(q->priority);
  if (int q = config_index_.policy->queue_index(job.queue); q >= 0) {
    if (const auto& fs = config_index_.policy->queues[static_cast<size_t>(q)].fairshare)
      info.set_share_account(sched::share_path(*fs, job.user(), job.spec().user_group()).to_string());
  }
  return info;
}

std::optional<config::ResourceRequirement> Mbatchd::merged_requirement(const Job& job) const {
  const auto* app = application(job);
  const auto* queue = config_->find_queue(job.queue);
  return config::combine_requirements(job.submission->res_req.get(), app && app->res_req ? &*app->res_req : nullptr,
                                      queue && queue->res_req ? &*queue->res_req : nullptr);
}

std::string Mbatchd::combined_requirement(const Job& job) const {
  auto combined = merged_requirement(job);
  config::ResourceRequirement shown = combined ? std::move(*combined) : config::ResourceRequirement{};
  // As the pass reads it: no select[] is any host, no order[] is r15s:pg.
  if (shown.order.empty()) shown.order = {{"r15s", false}, {"pg", false}};
  std::string text = shown.to_string();
  return shown.select.empty() ? "select[type == any] " + text : text;
}

namespace {
constexpr std::size_t kJobsPageBytes = 4u << 20;
}  // namespace

void Mbatchd::on_jobs(const wire::RequestEnvelope& request, const net::Responder& respond) {
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
    }
    return info;
  };
  if (q.jobs_size() > 0) {
    for (const auto& ref : q.jobs()) {
      std::vector<const Job*> found;
      if (ref.index() > 0) {
        if (const auto* j = state_.find_job({ref.job_id(), ref.index()})) found.push_back(j);
      } else {
        found = state_.elements(ref.job_id());
      }
      if (found.empty()) {
        if (is_leased_job({ref.job_id(), ref.index()})) continue;  // add_leased_jobs
        out->add_errors("Job <" + job_label({ref.job_id(), ref.index()}) + "> is not found");
        continue;
      }
      for (const auto* j : found)
        if (wanted(*j, true)) add_job(*j);
    }
  } else {
    // A page stays well under the largest frame whatever the jobs hold; a client that
    // does not page gets every job as before.
    const auto& jobs = state_.jobs();
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
  if (!out->more()) add_leased_jobs(q, user, *out);
  respond(reply);
}

void Mbatchd::on_signal_jobs(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.signal_jobs();
  const auto& caller = request.caller();
  int sig = 0;
  if (q.action() == wire::JOB_ACTION_SIGNAL) {
    sig = signal_number(q.signal_name());
    if (sig < 0) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, q.signal_name() + ": Bad signal name"));
  }
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  auto fail = [&](const sched::JobKey& key, const std::string& why) {
    auto* r = out->add_results();
    r->mutable_job()->set_job_id(key.id);
    r->mutable_job()->set_index(key.index);
    r->set_ok(false);
    r->set_message("Job <" + job_label(key) + ">: " + why);
  };
  // bkill 0: every unfinished job of the user (or of everyone for -u all).
  if (!q.job_group().empty() && !state_.job_groups().count(q.job_group()))
    return respond(net::error_reply(wire::STATUS_NOT_FOUND, "Job group <" + q.job_group() + "> does not exist"));
  std::vector<Job*> targets = named_jobs(q.jobs(), q.user().empty() ? caller.user_name() : q.user(), out);
  // -g: only the jobs of that group and the groups below it.
  if (!q.job_group().empty())
    std::erase_if(targets, [&](const Job* j) { return !in_job_group(j->spec().job_group(), q.job_group()); });
  if (targets.empty() && q.jobs_size() > 0 && out->results_size() == 0) {
    auto* r = out->add_results();
    r->set_ok(false);
    r->set_message("No unfinished job found");
  }
  bool changed = false;
  for (Job* job : targets) {
    const bool admin = acts_as_admin(caller, *job);
    if (!admin && job->user() != caller.user_name()) {
      fail(job->key, "User permission denied");
      continue;
    }
    if (job->finished()) {
      fail(job->key, "Job has already finished");
      continue;
    }
    const std::string label = "Job <" + job_label(job->key) + ">";
    std::string done_msg;
    switch (q.action()) {
      case wire::JOB_ACTION_KILL: {
        std::string reason = admin && job->user() != caller.user_name() ? "TERM_ADMIN" : "TERM_OWNER";
        if (job->pending()) {
          finish_job(*job, wire::JOB_EXIT, 0, 0, 0, reason);
          changed = true;
        } else if (q.remove()) {
          // bkill -r: the job leaves the system now; its host is still told to kill it,
          // and whatever it reports later about the job is ignored.
          reason = admin && job->user() != caller.user_name() ? "TERM_FORCE_ADMIN" : "TERM_FORCE_OWNER";
          signal_on_host(*job, SIGKILL, reason);
          finish_job(*job, wire::JOB_EXIT, SIGKILL, job->cpu_time, job->max_rss_kb, reason);
          changed = true;
        } else {
          // SIGINT, SIGTERM, then SIGKILL, so the job can clean up; -r above does not wait.
          terminate_on_host(*job, reason);
        }
        done_msg = label + " is being terminated";
        break;
      }
      case wire::JOB_ACTION_STOP: {
        wire::EventRecord ev;
        auto* st = ev.mutable_job_status();
        st->set_job_id(job->key.id);
        st->set_index(job->key.index);
        if (job->state == wire::JOB_PEND) {
          st->set_state(wire::JOB_PSUSP);
        } else if (job->state == wire::JOB_RUN || job->state == wire::JOB_SSUSP) {
          st->set_state(wire::JOB_USUSP);
          st->set_reason(admin && job->user() != caller.user_name() ? "The job was suspended by LSF admin or root"
                                                                    : "The job was suspended by user");
          signal_on_host(*job, SIGSTOP, {});
        } else {
          done_msg = label + " is being stopped";
          break;
        }
        record(ev);
        changed = true;
        done_msg = label + " is being stopped";
        break;
      }
      case wire::JOB_ACTION_RESUME: {
        if (job->state != wire::JOB_PSUSP && job->state != wire::JOB_USUSP) {
          fail(job->key, "Job is not suspended");
          continue;
        }
        wire::EventRecord ev;
        auto* st = ev.mutable_job_status();
        st->set_job_id(job->key.id);
        st->set_index(job->key.index);
        // A job its owner resumes goes to SSUSP: the system resumes it when the host's
        // load is within the scheduling thresholds, so a resume cannot overload a host.
        st->set_state(job->state == wire::JOB_PSUSP ? wire::JOB_PEND : wire::JOB_SSUSP);
        if (job->state == wire::JOB_USUSP) st->set_reason(sched::reason::kSuspResumeWait);
        record(ev);
        changed = true;
        done_msg = label + " is being resumed";
        break;
      }
      case wire::JOB_ACTION_SIGNAL:
        if (job->pending()) {
          fail(job->key, "Job has not started yet");
          continue;
        }
        signal_on_host(*job, sig, sig == SIGKILL ? "TERM_OWNER" : "");
        done_msg = label + " is being signaled";
        break;
      default:
        return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "unknown job action"));
    }
    auto* r = out->add_results();
    r->mutable_job()->set_job_id(job->key.id);
    r->mutable_job()->set_index(job->key.index);
    r->set_ok(true);
    r->set_message(done_msg);
  }
  if (changed) request_pass();
  reply_when_durable(respond, std::move(reply));
}

void Mbatchd::on_queues(const wire::RequestEnvelope& request, const net::Responder& respond) {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_queues();
  auto week = config::local_week_instant();
  std::set<std::string> defaults(config_->params.default_queues.begin(), config_->params.default_queues.end());
  for (const auto& name : request.queues().names())
    if (!config_->find_queue(name)) return respond(net::error_reply(wire::STATUS_NOT_FOUND, name + ": No such queue"));
  std::vector<const config::Queue*> queues;
  for (const auto& q : config_->queues)
    if (request.queues().names().empty() || std::find(request.queues().names().begin(), request.queues().names().end(),
                                                      q.name) != request.queues().names().end())
      queues.push_back(&q);
  // bqueues lists queues by priority, highest first.
  std::stable_sort(queues.begin(), queues.end(), [](auto* a, auto* b) { return a->priority > b->priority; });
  // Share trees need running jobs and history: one view (without pending jobs) for all.
  std::optional<sched::ClusterView> view;
  std::optional<std::vector<sched::PoolShare>> pools;
  for (const auto* q : queues) {
    const auto& st = state_.queues().at(q->name);
    auto* i = out->add_queues();
    i->set_name(q->name);
    i->set_priority(q->priority);
    i->set_open(st.open);
    i->set_active(st.active);
    i->set_window_open(q->run_window.is_open(week) && q->dispatch_window.is_open(week));
    i->set_max_slots(q->qjob_limit.value_or(-1));
    i->set_user_slots(q->ujob_limit.value_or(-1));
    i->set_proc_slots(q->pjob_limit.value_or(-1));
    i->set_host_slots(q->hjob_limit.value_or(-1));
    i->set_njobs(st.counts.njobs());
    i->set_pend(st.counts.pend + st.counts.psusp);
    i->set_run(st.counts.run);
    i->set_ssusp(st.counts.ssusp);
    i->set_ususp(st.counts.ususp);
    i->set_description(q->description);
    i->set_nice(q->nice);
    for (const auto& h : q->hosts) i->add_hosts(h.to_string());
    for (const auto& u : q->users) i->add_users(u.to_string());
    i->set_run_window(q->run_window.to_string());
    i->set_dispatch_window(q->dispatch_window.to_string());
    if (q->run_limit) i->set_run_limit_s(std::int64_t{q->run_limit->maximum.minutes} * 60);
    i->set_is_default(defaults.count(q->name) > 0);
    if (q->res_req) i->set_res_req(q->res_req->to_string());
    for (const auto& [index, t] : q->thresholds) {
      auto* th = i->add_thresholds();
      // Written `cpu`, `login`, `idle` or `swap`, shown under the index's own name.
      const auto known = config::find_load_index(index);
      th->set_name(known ? std::string(config::load_index_info(*known).name) : index);
      if (t.sched) {
        th->set_has_sched(true);
        th->set_sched(*t.sched);
      }
      if (t.stop) {
        th->set_has_stop(true);
        th->set_stop(*t.stop);
      }
    }
    if (!q->slot_pool.empty()) {
      if (!view) view = build_view(false);
      if (!pools) {
        std::vector<int> pending(view->policy->queues.size(), 0);
        for (size_t k = 0; k < pending.size(); ++k) {
          auto s = state_.queues().find(view->policy->queues[k].name);
          if (s != state_.queues().end()) pending[k] = s->second.counts.pend;
        }
        pools = sched::slot_pool_usage(*view, now(), pending);
      }
      for (const auto& p : *pools) {
        if (view->policy->queues[static_cast<size_t>(p.queue)].name != q->name) continue;
        i->set_slot_pool(p.pool);
        i->set_slot_share(p.share);
        i->set_pool_entitled(p.entitled);
        i->set_pool_used(p.used);
        i->set_pool_total(p.total);
      }
    }
    if (q->fairshare) {
      i->set_user_shares(config::format_shares(*q->fairshare));
      if (!view) view = build_view(false);
      int index = view->policy->queue_index(q->name);
      if (index < 0) continue;
      add_share_rows(sched::share_table(*view, index, now()), i->mutable_share_accounts());
    }
  }
  respond(reply);
}

void Mbatchd::on_hosts(const wire::RequestEnvelope& request, const net::Responder& respond) {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_hosts();
  std::set<std::string> names(request.hosts().names().begin(), request.hosts().names().end());
  const auto borrowed = borrowed_hosts();
  for (const auto& n : names)
    if (!config_->find_host(n) && !config_->find_host_group(n) && !borrowed.count(n))
      return respond(net::error_reply(wire::STATUS_NOT_FOUND, n + ": Bad host name, host group name or cluster name"));
  std::set<std::string> wanted;
  for (const auto& n : names) {
    if (config_->find_host(n) || borrowed.count(n)) {
      wanted.insert(n);
    } else {
      config::HostListItem group;
      group.name = n;
      auto members = config::resolve_host_list(*config_, {group});
      wanted.insert(members.begin(), members.end());
    }
  }
  // -R: select[] over each host's static resources and load, as the scheduler reads them.
  std::optional<config::ResourceRequirement> select;
  if (!request.hosts().res_req().empty()) {
    auto parsed = config::ResourceRequirement::parse(request.hosts().res_req());
    if (!parsed)
      return respond(
          net::error_reply(wire::STATUS_BAD_REQUEST,
                           request.hosts().res_req() + ": Bad resource requirement syntax: " + parsed.error()));
    select = *parsed;
  }
  for (const auto& h : config_->hosts) {
    if (!wanted.empty() && !wanted.count(h.name)) continue;
    if (select) {
      auto res = host_resources(h.name);
      auto lookup = [&res](std::string_view name) -> config::ResourceValue {
        auto it = res.find(name);
        return it == res.end() ? config::ResourceValue{} : it->second;
      };
      if (!select->select.matches(lookup)) continue;
    }
    const auto& st = state_.hosts().at(h.name);
    auto* i = out->add_hosts();
    i->set_name(h.name);
    i->set_status(host_status(h.name));
    i->set_max_slots(host_max_slots(h.name));
    i->set_jl_u(-1);
    i->set_njobs(st.counts.run + st.counts.ssusp + st.counts.ususp);
    i->set_run(st.counts.run);
    i->set_ssusp(st.counts.ssusp);
    i->set_ususp(st.counts.ususp);
    i->set_admin_comment(st.admin_comment);
    if (auto link = links_.find(h.name); link != links_.end()) {
      const auto& l = link->second;
      i->set_clock_offset_ms(l.clock_refused ? l.refused_clock_offset_ms : l.clock_offset_ms);
      i->set_clock_refused(l.clock_refused);
    }
    i->set_type(h.type);
    i->set_model(h.model);
    for (const auto& r : h.resources) i->add_resources(r);
    i->set_server(h.server);
    if (const auto* m = config_->find_host_model(h.model))
      i->set_cpu_factor(m->cpu_factor);
    else
      i->set_cpu_factor(1.0);
    for (const auto& b : config_->batch_hosts)
      if (b.name == h.name || b.name == "default") {
        if (b.jl_u) i->set_jl_u(*b.jl_u);
        if (!b.dispatch_window.always_open()) i->set_dispatch_window(b.dispatch_window.to_string());
        if (b.name == h.name) break;
      }
    auto link = links_.find(h.name);
    if (link != links_.end()) *i->mutable_load() = link->second.load;
    // The thresholds the scheduler applies to the host (its lsb.hosts line, else default's).
    for (const auto& [index, threshold] : config_index_.policy->host(h.name).thresholds) {
      if (threshold.sched) (*i->mutable_load_sched())[index] = *threshold.sched;
      if (threshold.stop) (*i->mutable_load_stop())[index] = *threshold.stop;
    }
  }
  // Hosts borrowed from providers, as this cluster sees them: the slots it was offered,
  // its own jobs there, closed_Adm only when its own administrator closed them.
  if (!select)
    for (const auto& [name, offered] : borrowed) {
      if (!wanted.empty() && !wanted.count(name)) continue;
      auto* i = out->add_hosts();
      i->set_name(name);
      i->set_max_slots(offered.slots());
      i->set_jl_u(-1);
      std::string status = borrowed_host_status(name);
      if (auto st = state_.hosts().find(name); st != state_.hosts().end()) {
        const auto& c = st->second.counts;
        i->set_njobs(c.run + c.ssusp + c.ususp);
        i->set_run(c.run);
        i->set_ssusp(c.ssusp);
        i->set_ususp(c.ususp);
        i->set_admin_comment(st->second.admin_comment);
        if (status == "ok" && i->njobs() >= offered.slots()) status = "closed_Full";
      }
      i->set_status(status);
      i->set_type(offered.type());
      i->set_model(offered.model());
      i->set_server(true);
      i->set_cpu_factor(1.0);
    }
  respond(reply);
}

void Mbatchd::on_host_control(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.host_control();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_control();
  out->set_all_ok(true);
  std::vector<std::string> hosts(q.hosts().begin(), q.hosts().end());
  if (hosts.empty())
    for (const auto& h : config_->hosts) hosts.push_back(h.name);
  const bool close = q.op() == wire::CONTROL_CLOSE;
  // A borrowed host (host@cluster) is closed and opened for this cluster's jobs only;
  // the provider and its other consumers go on using it.
  const auto borrowed = borrowed_hosts();
  for (const auto& name : hosts) {
    if (!config_->find_host(name) && !borrowed.count(name)) {
      out->add_lines(name + ": Bad host name, host group name or cluster name");
      out->set_all_ok(false);
      continue;
    }
    wire::EventRecord ev;
    auto* e = ev.mutable_host_ctrl();
    e->set_host(name);
    e->set_op(close ? wire::CONTROL_CLOSE : wire::CONTROL_OPEN);
    e->set_user(request.caller().user_name());
    e->set_comment(q.comment());
    record(ev);
    log_->info("host {} {} by {}", name, close ? "closed" : "opened", request.caller().user_name());
    out->add_lines(std::string(close ? "Close" : "Open") + " <" + name + "> ...... done");
  }
  request_pass();
  reply_when_durable(respond, std::move(reply));
}

void Mbatchd::on_queue_control(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.queue_control();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_control();
  out->set_all_ok(true);
  std::vector<std::string> queues(q.queues().begin(), q.queues().end());
  if (queues.empty())
    for (const auto& cq : config_->queues) queues.push_back(cq.name);
  const char* verb = q.op() == wire::CONTROL_OPEN       ? "opened"
                     : q.op() == wire::CONTROL_CLOSE    ? "closed"
                     : q.op() == wire::CONTROL_ACTIVATE ? "activated"
                                                        : "inactivated";
  for (const auto& name : queues) {
    if (!config_->find_queue(name)) {
      out->add_lines("Queue <" + name + ">: No such queue");
      out->set_all_ok(false);
      continue;
    }
    if (!is_queue_admin(request.caller(), name)) {
      out->add_lines("Queue <" + name + ">: User permission denied");
      out->set_all_ok(false);
      continue;
    }
    wire::EventRecord ev;
    auto* e = ev.mutable_queue_ctrl();
    e->set_queue(name);
    e->set_op(q.op());
    e->set_user(request.caller().user_name());
    record(ev);
    log_->info("queue {} {} by {}", name, verb, request.caller().user_name());
    out->add_lines("Queue <" + name + "> is " + verb);
  }
  request_pass();
  reply_when_durable(respond, std::move(reply));
}

void Mbatchd::on_reconfig(const wire::RequestEnvelope& request, const net::Responder& respond) {
  config::LoadOptions lo;
  lo.envdir = options_.envdir;
  lo.now = config::local_week_instant();
  auto result = config::load_cluster_config(lo);
  auto reply = net::ok_reply();
  auto* out = reply.mutable_reconfig();
  for (const auto& d : result.diagnostics.items()) {
    if (d.severity == config::Severity::kError)
      out->add_errors(d.to_string());
    else
      out->add_warnings(d.to_string());
  }
  if (!result.usable()) {
    log_->warn("reconfig by {} refused: {} error(s); the running configuration is kept", request.caller().user_name(),
               result.diagnostics.error_count());
    return respond(reply);
  }
  if (request.reconfig().restart()) {
    // badmin mbdrestart: the new process reads the configuration and replays the log.
    out->set_applied(true);
    log_->info("mbatchd restart requested by {}", request.caller().user_name());
    lifecycle_.restart();
    respond(reply);
    stop();
    return;
  }
  if (result.config->cluster_name != config_->cluster_name) {
    out->add_errors("the cluster name changed from " + config_->cluster_name + " to " + result.config->cluster_name +
                    "; restart mbatchd instead");
    return respond(reply);
  }
  config_ = result.config;
  config_index_ = index_config(*config_);
  scheduling_.reconfigured();
  ++config_generation_;
  state_.sync_config(*config_, config_index_.policy);
  out->set_applied(true);
  last_reconfig_time_ = now();
  log_->info("reconfig by {}: new configuration applied", request.caller().user_name());
  respond(reply);
  // Exports may have changed: leased slots, offers and withdrawals follow now.
  update_lent_slots();
  offer_to_consumers();
  request_pass();
}

}  // namespace lsf::mbd

namespace lsf::mbd {

void Mbatchd::on_perfmon(const wire::RequestEnvelope&, const net::Responder& respond) {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_perfmon();
  const PassCounters& passes = pass_counters();
  out->set_passes(passes.passes);
  out->set_last_pass_us(passes.last_took.count());
  out->set_max_pass_us(passes.max_took.count());
  out->set_total_pass_us(passes.total_took.count());
  out->set_jobs_pending(passes.last_stats.jobs_pending);
  out->set_jobs_considered(passes.last_stats.jobs_considered);
  out->set_dispatched(passes.last_stats.dispatched);
  out->set_reserved(passes.last_stats.reserved);
  out->set_preempted(passes.last_stats.preempted);
  out->set_classes(passes.last_stats.classes);
  out->set_host_matches(passes.last_stats.host_matches);
  out->set_jobs_dispatched_total(passes.dispatched_total);
  out->set_submissions_total(submissions_total_);
  out->set_uptime_s(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_at_).count());
  respond(reply);
}

// btop / bbot: the job takes the given position among its queue's pending jobs,
// counted from the top or the bottom. Users move their own jobs; administrators any.
void Mbatchd::on_job_move(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.job_move();
  const auto& caller = request.caller();
  sched::JobKey key{q.job().job_id(), q.job().index()};
  Job* job = state_.find_job(key);
  if (!job && key.index == 0) {
    auto elements = state_.elements(key.id);
    if (!elements.empty()) job = state_.find_job(elements.front()->key);
  }
  const std::string label = "Job <" + job_label(key) + ">";
  if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, label + ": No matching job found"));
  if (!may_control(caller, *job))
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, label + ": User permission denied"));
  if (!job->pending()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": Job has already started"));
  const int n = std::max(1, q.position());
  auto reply = net::ok_reply();
  reply.mutable_job_move()->set_message(label + " has been moved to position " + std::to_string(n) + " from " +
                                        (q.top() ? "top." : "bottom."));
  auto move = [&](std::int64_t id, std::int64_t position) {
    for (const Job* e : state_.elements(id)) {  // every element of an array moves together
      if (!e->pending() || e->position == position) continue;
      wire::EventRecord ev;
      auto* m = ev.mutable_job_move();
      m->set_job_id(e->key.id);
      m->set_index(e->key.index);
      m->set_position(position);
      record(ev);
    }
  };
  if (!acts_as_admin(caller, *job)) {
    // A user reorders only their own jobs, as LSF: they swap the places their jobs
    // already hold in the queue, so no one else's job moves back.
    std::map<std::int64_t, std::int64_t> place;  // job id -> its first place
    for (const auto& [k, j] : state_.pending()) {
      if (j->queue != job->queue || j->user() != job->user()) continue;
      auto [it, fresh] = place.emplace(j->key.id, j->position);
      if (!fresh) it->second = std::min(it->second, j->position);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> order(place.begin(), place.end());  // (id, place)
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    std::vector<std::int64_t> places, ids;
    for (const auto& [id, at] : order) {
      places.push_back(at);
      if (id != job->key.id) ids.push_back(id);
    }
    const size_t at = std::min<size_t>(static_cast<size_t>(n - 1), ids.size());
    ids.insert(q.top() ? ids.begin() + static_cast<long>(at) : ids.end() - static_cast<long>(at), job->key.id);
    for (size_t i = 0; i < ids.size(); ++i) move(ids[i], places[i]);
    request_pass();
    return reply_when_durable(respond, std::move(reply));
  }

  // The queue's other pending jobs in their current order.
  std::vector<const Job*> others;
  for (const auto& [k, j] : state_.pending())
    if (j->queue == job->queue && j->key.id != job->key.id) others.push_back(j);
  std::sort(others.begin(), others.end(), [](const Job* a, const Job* b) {
    return a->position != b->position ? a->position < b->position : a->key < b->key;
  });
  std::int64_t position;
  if (others.empty()) {
    position = job->position;
  } else if (q.top()) {
    size_t at = std::min<size_t>(n - 1, others.size());
    position = at == 0 ? others.front()->position - 1 : others[at - 1]->position;
  } else {
    size_t at = std::min<size_t>(n - 1, others.size());
    position = at == 0 ? others.back()->position + 1 : others[others.size() - at]->position;
  }
  move(job->key.id, position);
  request_pass();
  reply_when_durable(respond, std::move(reply));
}

// brun: start a pending job now on the named hosts, past every scheduling policy.
// Administrators only. Slots go as `host#n` says, else all on the first host.
void Mbatchd::on_force_run(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.force_run();
  const auto& caller = request.caller();
  sched::JobKey key{q.job().job_id(), q.job().index()};
  const std::string label = "Job <" + job_label(key) + ">";
  Job* job = state_.find_job(key);
  if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, label + ": No matching job found"));
  if (job->state != wire::JOB_PEND)
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + (job->finished() ? ": Job has already finished"
                                                                                       : ": Job has already started")));
  std::vector<std::string> hosts;
  for (const auto& item : q.hosts()) {
    auto hash = item.find('#');
    std::string name = item.substr(0, hash);
    int n = 0;
    if (hash != std::string::npos) {
      try {
        n = std::stoi(item.substr(hash + 1));
      } catch (...) {
        n = 0;
      }
      if (n < 1) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, item + ": Bad number of processors"));
    }
    if (!config_->find_host(name))
      return respond(
          net::error_reply(wire::STATUS_BAD_REQUEST, name + ": Bad host name, host group name or cluster name"));
    if (unreachable(status_of(name)))
      return respond(net::error_reply(wire::STATUS_BAD_REQUEST, name + ": Host is not available"));
    for (int i = 0; i < n; ++i) hosts.push_back(name);
  }
  if (q.hosts().empty()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "brun: -m host is required"));
  int slots = job->slots();
  if (hosts.empty()) hosts.assign(slots, q.hosts(0).substr(0, q.hosts(0).find('#')));
  if (static_cast<int>(hosts.size()) < slots)
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": Too few processors specified for the job"));
  hosts.resize(slots);

  wire::EventRecord ev;
  auto* e = ev.mutable_job_start();
  e->set_job_id(key.id);
  e->set_index(key.index);
  for (const auto& h : hosts) e->add_exec_hosts(h);
  e->set_forced(q.force());
  record(ev);
  log_->info("job {} forced to run on {} by {}", job_label(key), hosts.front(), caller.user_name());
  event_log_->when_durable([this, key](bool ok) {
    if (ok) start_on_hosts({key});
  });
  auto reply = net::ok_reply();
  reply.mutable_force_run()->set_message(label + " is being forced to run.");
  reply_when_durable(respond, std::move(reply));
}

}  // namespace lsf::mbd
