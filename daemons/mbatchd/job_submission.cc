// JobService's submissions: bsub and bsub -pack. A submission is checked whole (its
// queue, hosts, limits, profile, group, service class, share) before its id is taken
// and its JOB_NEW recorded; a refused one changes nothing.
#include <algorithm>
#include <optional>

#include "daemons/mbatchd/job_groups.h"
#include "daemons/mbatchd/job_service.h"
#include "daemons/mbatchd/submission_bounds.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libconfig/shares.h"
#include "libconfig/text.h"
#include "libsched/array_index_list.h"

namespace lsf::mbd {
namespace {

// "1-100:2,200" -> indices.
daemon::Result<std::vector<std::int32_t>> parse_array_spec(const std::string& spec, int max_size) {
  auto indices = sched::parse_array_index_list(spec, max_size);
  if (!indices) return daemon::fail(indices.error());
  return *indices;
}

std::string strip_pref(std::string_view item) {
  auto plus = item.find('+');
  return std::string(item.substr(0, plus));
}

}  // namespace

JobService::JobService(ComponentContext ctx, const ConfigIndex& index, const Permissions& permissions,
                       JobServiceHooks hooks)
    : ctx_(std::move(ctx)), index_(index), permissions_(permissions), hooks_(std::move(hooks)) {}

daemon::Status JobService::check_submission(const wire::JobSpec& spec, std::string& queue_name, bool& default_queue,
                                            std::vector<std::int32_t>& indices) const {
  const auto& cfg = ctx_.conf();
  if (auto bounded = check_spec_bounds(spec); !bounded) return bounded;
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
    auto st = ctx_.state.queues().find(name);
    if (st != ctx_.state.queues().end() && !st->second.open) {
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
  if (!spec.gpu().empty()) {
    auto gpu = config::GpuRequest::parse(spec.gpu(), cfg.lsf_conf.unit_for_limits);
    if (!gpu) return daemon::fail("Bad GPU requirement (-gpu): " + gpu.error());
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
    int mxj = hooks_.host_max_slots(h);
    if (mxj < 0) unlimited = true;
    total += std::max(0, mxj);
  };
  const auto& policy = *index_.policy;
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
    auto parsed = parse_array_spec(spec.array_spec(), cfg.params.max_job_array_size);
    if (!parsed) return parsed.status();
    indices = std::move(parsed).value();
  }
  if (!spec.dependency().empty()) {
    auto dep = sched::DependencyExpr::parse(spec.dependency());
    if (!dep) return daemon::fail(dep.error());
    for (const auto& ref : dep->references()) {
      bool found =
          ref.name.empty() ? !ctx_.state.elements(ref.job_id).empty() : !ctx_.state.jobs_named(ref.name).empty();
      if (!found) {
        std::string what = ref.name.empty() ? job_label({ref.job_id, ref.index}) : ref.name;
        return daemon::fail(what + ": No matching job found");
      }
    }
  }
  return {};
}

void JobService::on_submit(const wire::RequestEnvelope& request, const net::Responder& respond) {
  auto reply = net::ok_reply();
  if (auto st = submit_one(request.submit().spec(), request.caller(), *reply.mutable_submit()); !st.ok())
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, st.message()));
  ctx_.sink.reply_when_durable(respond, std::move(reply));
  // A held job (-H) cannot start until bresume, which asks for a pass itself; a pass for
  // it would only rebuild every pending job's view.
  if (!request.submit().spec().hold()) hooks_.request_pass();
}

void JobService::on_submit_pack(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.submit_pack();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_submit_pack();
  bool any = false;  // a job submitted that a pass could start
  for (const auto& spec : q.specs()) {
    auto* r = out->add_results();
    if (auto st = submit_one(spec, request.caller(), *r->mutable_submitted()); !st.ok()) {
      r->clear_submitted();
      r->set_message(st.message());
      if (!q.skip_errors()) break;
      continue;
    }
    r->set_ok(true);
    any = any || !spec.hold();
  }
  // One wait for durability covers the whole pack: the group commit is the point.
  ctx_.sink.reply_when_durable(respond, std::move(reply));
  if (any) hooks_.request_pass();
}

daemon::Status JobService::check_application(wire::JobSpec& spec) const {
  if (spec.app().empty()) return {};
  const config::Application* app = ctx_.conf().find_application(spec.app());
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

daemon::Status JobService::submit_one(const wire::JobSpec& spec, const wire::Identity& caller, wire::SubmitReply& out) {
  std::string queue;
  bool default_queue = false;
  std::vector<std::int32_t> indices;
  // A retry of a submission that was made (its reply lost to a timeout) gets that job.
  if (!spec.request_id().empty()) {
    if (std::int64_t id = ctx_.state.job_of_request(caller.user_name(), spec.request_id())) {
      const Job* first = ctx_.state.elements(id).front();
      ctx_.log->info("job {}: a repeated submission request from {}; answered with the job it made", id,
                     caller.user_name());
      out.set_job_id(id);
      out.set_queue(first->queue);
      out.set_default_queue(first->spec().queues().empty());
      return {};
    }
  }
  // Root submits only where the site allows it for now (LSF_ROOT_USER=Y), as in LSF.
  if (caller.uid() == 0 &&
      !config::parse_yes_no(ctx_.conf().lsf_conf.get("LSF_ROOT_USER").value_or("N")).value_or(false))
    return daemon::fail("User permission denied: root may not submit jobs (LSF_ROOT_USER is not Y)");
  // -G: a user group of lsb.users the caller belongs to directly, as LSF requires.
  if (!spec.user_group().empty()) {
    const auto* group = ctx_.conf().find_user_group(spec.user_group());
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
  const std::string project = spec.project().empty() ? ctx_.conf().params.default_project : spec.project();
  auto access = [&](const config::ServiceClass& sc) {
    auto listed = [](const std::vector<std::string>& names, const std::string& name) {
      return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
    };
    return admits(sc.user_group) && admits(sc.access_users) && listed(sc.access_queues, queue) &&
           listed(sc.access_projects, project);
  };
  const config::ServiceClass* sc = nullptr;
  if (!spec.service_class().empty()) {
    sc = ctx_.conf().find_service_class(spec.service_class());
    if (!sc) return daemon::fail(spec.service_class() + ": No such service class");
    if (!admits(sc->user_group) || !admits(sc->access_users))
      return daemon::fail("User <" + caller.user_name() + "> may not submit to service class <" + sc->name + ">");
  }
  // -app, else DEFAULT_APPLICATION.
  wire::JobSpec with_app = spec;
  if (with_app.app().empty()) with_app.set_app(ctx_.conf().params.default_application);
  if (auto st = check_application(with_app); !st.ok()) return st;
  if (auto st = normalize_gpu_request(with_app, ctx_.conf().lsf_conf.unit_for_limits); !st.ok()) return st;
  if (!spec.job_group().empty())
    if (auto st = check_job_group_path(spec.job_group()); !st.ok()) return st;
  if (auto st = check_submission(with_app, queue, default_queue, indices); !st.ok()) return st;
  if (auto st = permissions_.check_user_priority(spec.user_priority(), caller, queue); !st.ok()) return st;
  if (sc && !access(*sc))
    return daemon::fail("Service class <" + sc->name + "> does not accept jobs of queue <" + queue + ">" +
                        (sc->access_projects.empty() ? "" : " and project <" + project + ">"));
  if (!sc)
    for (const auto& c : ctx_.conf().service_classes)
      if (c.guarantee && c.auto_attach && access(c)) {
        sc = &c;
        break;
      }
  // Only users with a share may submit to a fairshare queue, administrators included.
  const auto& policy = *index_.policy;
  if (const auto& fs = policy.queues[static_cast<size_t>(policy.queue_index(queue))].fairshare;
      fs && sched::share_path(*fs, caller.user_name()).empty())
    return daemon::fail("User <" + caller.user_name() + "> has no share in fairshare queue <" + queue + ">");

  // The id is on record in lsb.jobid before it is used, and before anything is applied.
  std::int64_t id = ctx_.state.next_job_id();
  if (auto st = hooks_.cover_job_id(id); !st.ok()) return st;
  // -g names a group that may not exist yet: LSF creates it (and the groups above it),
  // owned by the submitter.
  if (!spec.job_group().empty()) hooks_.ensure_job_group(spec.job_group(), caller.user_name());
  wire::EventRecord ev;
  auto* e = ev.mutable_job_new();
  e->set_job_id(id);
  *e->mutable_spec() = std::move(with_app);
  if (sc) e->mutable_spec()->set_service_class(sc->name);
  if (e->spec().min_processors() < 1) e->mutable_spec()->set_min_processors(1);
  if (e->spec().project().empty()) e->mutable_spec()->set_project(ctx_.conf().params.default_project);
  e->set_user(caller.user_name());
  e->set_uid(caller.uid());
  e->set_queue(queue);
  e->set_submit_time(ctx_.sink.now());
  for (auto i : indices) e->add_indices(i);
  ctx_.sink.record(ev);
  ++submissions_total_;
  ctx_.log->debug("job {} submitted to queue {} by {}", id, queue, caller.user_name());
  out.set_job_id(id);
  out.set_queue(queue);
  out.set_default_queue(default_queue);
  return {};
}

}  // namespace lsf::mbd
