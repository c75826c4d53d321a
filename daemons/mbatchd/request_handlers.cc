// Requests from commands: submission and control (the queries are JobQueries's and
// ConfigQueries's: job_queries.h, config_queries.h). Each change is recorded
// (applied + appended to lsb.events) and answered only once it is durable; a request
// that fails validation changes nothing.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <set>

#include "daemons/mbatchd/mbatchd.h"
#include "daemons/mbatchd/submission_bounds.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libconfig/shares.h"
#include "libconfig/text.h"
#include "libsched/array_index_list.h"
#include "libsched/pending_reason.h"

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
    return who.empty() || std::any_of(who.begin(), who.end(), [&](const std::string& w) {
             return permissions_.names_user(w, caller.user_name());
           });
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
  if (auto st = permissions_.check_user_priority(spec.user_priority(), caller, queue); !st.ok()) return st;
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
    const bool admin = permissions_.acts_as_admin(caller, *job);
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
    if (!permissions_.is_queue_admin(request.caller(), name)) {
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
  permissions_ = Permissions(*config_, config_index_);
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
  if (!permissions_.may_control(caller, *job))
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
  if (!permissions_.acts_as_admin(caller, *job)) {
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
