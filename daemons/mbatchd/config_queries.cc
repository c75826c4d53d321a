// The configuration in force with its usage: bparams, bmgroup, bugroup, lsinfo,
// bresources -g, bsla, bapp, bhpart, busers, blimits, shared resources and badmin
// perfmon (config_queries.h); bqueues and bhosts are in queue_host_queries.cc.
#include "daemons/mbatchd/config_queries.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/share_rows.h"
#include "libconfig/params_table.h"
#include "libsched/limit_usage.h"

namespace lsf::mbd {
namespace {

struct Builtin {
  const char* name;
  const char* type;
  const char* order;
  const char* description;
};

// LSF's built-in resources as lsinfo lists them.
constexpr Builtin kBuiltins[] = {
    {"r15s", "Numeric", "Inc", "15-second CPU run queue length"},
    {"r1m", "Numeric", "Inc", "1-minute CPU run queue length (alias: cpu)"},
    {"r15m", "Numeric", "Inc", "15-minute CPU run queue length"},
    {"ut", "Numeric", "Inc", "1-minute CPU utilization (0.0 to 1.0)"},
    {"pg", "Numeric", "Inc", "Paging rate (pages/second)"},
    {"io", "Numeric", "Inc", "Disk IO rate (Kbytes/second)"},
    {"ls", "Numeric", "Inc", "Number of login sessions (alias: login)"},
    {"it", "Numeric", "Dec", "Idle time (minutes) (alias: idle)"},
    {"tmp", "Numeric", "Dec", "Disk space in /tmp (Mbytes)"},
    {"swp", "Numeric", "Dec", "Available swap space (Mbytes) (alias: swap)"},
    {"mem", "Numeric", "Dec", "Available memory (Mbytes)"},
    {"ncpus", "Numeric", "Dec", "Number of CPUs"},
    {"maxmem", "Numeric", "Dec", "Maximum memory (Mbytes)"},
    {"maxswp", "Numeric", "Dec", "Maximum swap space (Mbytes)"},
    {"maxtmp", "Numeric", "Dec", "Maximum /tmp space (Mbytes)"},
    {"cpuf", "Numeric", "Dec", "CPU factor"},
    {"type", "String", "N/A", "Host type"},
    {"model", "String", "N/A", "Host model"},
    {"status", "String", "N/A", "Host status"},
    {"server", "Boolean", "N/A", "LSF server host"},
    {"hname", "String", "N/A", "Host name"},
};

const char* type_name(config::ResourceDef::Type t) {
  switch (t) {
    case config::ResourceDef::Type::kNumeric:
      return "Numeric";
    case config::ResourceDef::Type::kString:
      return "String";
    default:
      return "Boolean";
  }
}

}  // namespace

ConfigQueries::ConfigQueries(ComponentContext ctx, const ConfigIndex& index, ConfigQueriesHooks hooks)
    : ctx_(std::move(ctx)), index_(index), hooks_(std::move(hooks)) {}

wire::ReplyEnvelope ConfigQueries::config_info(const wire::RequestEnvelope&) const {
  const auto& cfg = ctx_.conf();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_config_info();
  for (const auto& [k, v] : config::param_values(cfg.params)) {
    auto* p = out->add_params();
    p->set_name(k);
    p->set_value(v);
  }
  if (cfg.params.default_queues.empty() && !cfg.queues.empty()) out->add_default_queues(cfg.queues.front().name);
  for (const auto& q : cfg.params.default_queues) out->add_default_queues(q);
  for (const auto& g : cfg.user_groups) {
    auto* gi = out->add_user_groups();
    gi->set_name(g.name);
    for (const auto& m : g.members)
      gi->add_members(m.kind == config::UserListItem::Kind::kName && cfg.find_user_group(m.name) ? m.to_string() + "/"
                                                                                                 : m.to_string());
    for (const auto& a : g.admins) gi->add_admins(a);
    std::string shares;
    for (const auto& s : g.user_shares)
      shares += (shares.empty() ? "" : " ") + ("[" + s.name + ", " + s.to_string() + "]");
    gi->set_shares(shares);
  }
  for (const auto& g : cfg.host_groups) {
    auto* gi = out->add_host_groups();
    gi->set_name(g.name);
    for (const auto& m : g.members)
      gi->add_members(m.kind == config::HostListItem::Kind::kName && cfg.find_host_group(m.name) ? m.to_string() + "/"
                                                                                                 : m.to_string());
  }
  std::set<std::string> seen;
  for (const auto& b : kBuiltins) {
    auto* r = out->add_resources();
    r->set_name(b.name);
    r->set_type(b.type);
    r->set_order(b.order);
    r->set_description(b.description);
    r->set_builtin(true);
    seen.insert(b.name);
  }
  for (const auto& d : cfg.resources) {
    if (seen.count(d.name)) continue;
    auto* r = out->add_resources();
    r->set_name(d.name);
    r->set_type(type_name(d.type));
    r->set_order(d.type != config::ResourceDef::Type::kNumeric ? "N/A" : d.increasing ? "Inc" : "Dec");
    r->set_description(d.description);
    r->set_interval(d.interval.value_or(0));
  }
  for (const auto& t : cfg.host_types) out->add_host_types(t);
  for (const auto& m : cfg.host_models) {
    auto* mi = out->add_models();
    mi->set_name(m.name);
    mi->set_cpu_factor(m.cpu_factor);
    for (const auto& a : m.architectures) mi->add_architectures(a);
  }
  return reply;
}

// bresources -g and bsla: each guarantee pool as configured and as the last pass left
// it, and the guarantee service classes with their jobs.
wire::ReplyEnvelope ConfigQueries::guarantee_pools(const wire::RequestEnvelope& request) const {
  const auto& names = request.guarantee_pools().names();
  for (const auto& n : names)
    if (std::none_of(ctx_.conf().guarantee_pools.begin(), ctx_.conf().guarantee_pools.end(),
                     [&](const auto& p) { return p.name == n; }))
      return net::error_reply(wire::STATUS_NOT_FOUND, n + ": No such guaranteed resource pool");
  auto reply = net::ok_reply();
  auto* out = reply.mutable_guarantee_pools();
  for (const auto& pool : ctx_.conf().guarantee_pools) {
    if (!names.empty() && std::find(names.begin(), names.end(), pool.name) == names.end()) continue;
    auto* p = out->add_pools();
    p->set_name(pool.name);
    p->set_type(pool.type.to_string());
    std::string distribution;
    for (const auto& d : pool.distribution) distribution += (distribution.empty() ? "" : " ") + d.to_string();
    p->set_distribution(distribution);
    if (pool.loan_policies) p->set_loan_policies(pool.loan_policies->to_string());
    p->set_description(pool.description);
    auto report = std::find_if(hooks_.guarantees().begin(), hooks_.guarantees().end(),
                               [&](const auto& r) { return r.pool == pool.name; });
    if (report == hooks_.guarantees().end()) {  // licence pools, or no pass yet
      for (const auto& d : pool.distribution) p->add_owners()->set_service_class(d.name);
      continue;
    }
    p->set_overcommitted(report->overcommitted);
    p->set_total(report->total);
    p->set_free(report->free);
    p->set_slots_total(report->slots_total);
    p->set_slots_free(report->slots_free);
    p->set_mem_total_mb(report->mem_total);
    p->set_mem_free_mb(report->mem_free);
    p->set_package_slots(report->package_slots);
    p->set_package_mem_mb(report->package_mem);
    auto use = [](const sched::GuaranteeReport::Use& u, wire::GuaranteeUse* to) {
      to->set_slots(u.slots);
      to->set_mem_mb(u.mem);
    };
    use(report->owner_use, p->mutable_owner_use());
    use(report->loan_use, p->mutable_loan_use());
    use(report->other_use, p->mutable_other_use());
    for (const auto& o : report->owners) {
      auto* w = p->add_owners();
      w->set_service_class(o.service_class);
      w->set_guaranteed(o.guaranteed);
      w->set_used(o.used);
      use(o.use, w->mutable_use());
    }
    for (const auto& h : report->hosts) {
      auto* w = p->add_hosts();
      w->set_name(h.name);
      w->set_available(h.available);
      w->set_total(h.total);
      w->set_free(h.free);
    }
  }
  std::map<std::string, std::array<int, 3>> by_class;  // pending, running, suspended slots
  for (const auto& [key, job] : ctx_.state.jobs()) {
    if (job.finished() || job.spec().service_class().empty()) continue;
    auto& c = by_class[job.spec().service_class()];
    int slots = job.started() ? static_cast<int>(job.exec_hosts.size()) : job.slots();
    c[job.pending() ? 0 : job.state == wire::JOB_RUN ? 1 : 2] += slots;
  }
  for (const auto& sc : ctx_.conf().service_classes) {
    auto* c = out->add_classes();
    c->set_name(sc.name);
    c->set_description(sc.description);
    std::string access;
    for (const auto& [key, list] : {std::pair{"QUEUES", &sc.access_queues},
                                    {"USERS", &sc.access_users},
                                    {"FAIRSHARE_GROUPS", &sc.access_fairshare_groups},
                                    {"APPS", &sc.access_apps},
                                    {"PROJECTS", &sc.access_projects},
                                    {"LIC_PROJECTS", &sc.access_lic_projects}}) {
      if (list->empty()) continue;
      std::string names_text;
      for (const auto& n : *list) names_text += (names_text.empty() ? "" : " ") + n;
      access += (access.empty() ? "" : " ") + std::string(key) + "[" + names_text + "]";
    }
    c->set_access_control(access);
    c->set_auto_attach(sc.auto_attach);
    std::string goals;
    for (const auto& g : sc.goals) goals += (goals.empty() ? "" : " ") + g;
    c->set_goals(goals);
    if (auto it = by_class.find(sc.name); it != by_class.end()) {
      c->set_pending(it->second[0]);
      c->set_running(it->second[1]);
      c->set_suspended(it->second[2]);
    }
  }
  return reply;
}

// bapp: each application profile as configured, with its jobs' slots by state.
wire::ReplyEnvelope ConfigQueries::applications(const wire::RequestEnvelope& request) const {
  const auto& names = request.applications().names();
  for (const auto& n : names)
    if (!ctx_.conf().find_application(n))
      return net::error_reply(wire::STATUS_NOT_FOUND, n + ": No such application profile");
  std::map<std::string, std::array<int, 3>> by_app;  // pending, running, suspended slots
  for (const auto& [key, job] : ctx_.state.jobs()) {
    if (job.finished() || job.spec().app().empty()) continue;
    auto& c = by_app[job.spec().app()];
    int slots = job.started() ? static_cast<int>(job.exec_hosts.size()) : job.slots();
    c[job.pending() ? 0 : job.state == wire::JOB_RUN ? 1 : 2] += slots;
  }
  auto reply = net::ok_reply();
  auto* out = reply.mutable_applications();
  for (const auto& app : ctx_.conf().applications) {
    if (!names.empty() && std::find(names.begin(), names.end(), app.name) == names.end()) continue;
    auto* a = out->add_applications();
    a->set_name(app.name);
    a->set_description(app.description);
    a->set_is_default(app.name == ctx_.conf().params.default_application);
    if (auto it = by_app.find(app.name); it != by_app.end()) {
      a->set_pending(it->second[0]);
      a->set_running(it->second[1]);
      a->set_suspended(it->second[2]);
    }
    if (app.run_limit) a->set_run_limit_s(std::int64_t{app.run_limit->minutes} * 60);
    if (app.cpu_limit) a->set_cpu_limit_s(std::int64_t{app.cpu_limit->minutes} * 60);
    if (app.mem_limit) a->set_mem_limit_kb(*app.mem_limit);
    if (const auto& p = app.proc_limit)
      a->set_proc_limit(std::to_string(p->minimum) + " " + std::to_string(p->default_value) + " " +
                        std::to_string(p->maximum));
    if (app.res_req) a->set_res_req(app.res_req->to_string());
    if (app.gpu_req) a->set_gpu_req(app.gpu_req->to_string());
    a->set_pre_exec(app.pre_exec);
    a->set_post_exec(app.post_exec);
    a->set_job_starter(app.job_starter);
    if (app.requeue_exit_values) a->set_requeue_exit_values(app.requeue_exit_values->to_string());
    if (app.rerunnable) a->set_rerunnable(*app.rerunnable ? "yes" : "no");
  }
  return reply;
}

// bhpart: each HostPartition with its hosts and share tree (running jobs and history).
wire::ReplyEnvelope ConfigQueries::host_partitions(const wire::RequestEnvelope& request) const {
  const auto& names = request.host_partitions().names();
  const auto& parts = index_.policy->host_partitions;
  for (const auto& n : names)
    if (std::none_of(parts.begin(), parts.end(), [&](const auto& p) { return p.name == n; }))
      return net::error_reply(wire::STATUS_NOT_FOUND, n + ": No such host partition");
  auto reply = net::ok_reply();
  auto* out = reply.mutable_host_partitions();
  std::optional<sched::ClusterView> view;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (!names.empty() && std::find(names.begin(), names.end(), parts[k].name) == names.end()) continue;
    auto* p = out->add_partitions();
    p->set_name(parts[k].name);
    for (const auto& h : parts[k].hosts) p->add_hosts(h);
    if (!view) view = hooks_.build_view(true);
    add_share_rows(sched::partition_share_table(*view, k, hooks_.now()), p->mutable_share_accounts());
  }
  return reply;
}

wire::ReplyEnvelope ConfigQueries::users(const wire::RequestEnvelope& request) const {
  const auto& policy = *index_.policy;
  const auto& q = request.users();
  struct Counts {
    int pend = 0, run = 0, ssusp = 0, ususp = 0, rsv = 0;
  };
  std::map<std::string, Counts> by_user;
  for (const auto& [key, job] : ctx_.state.jobs()) {
    if (job.finished()) continue;
    auto& c = by_user[job.user()];
    int slots = job.started() ? static_cast<int>(job.exec_hosts.size()) : job.slots();
    switch (job.state) {
      case wire::JOB_PEND:
      case wire::JOB_PSUSP:
        c.pend += slots;
        break;
      case wire::JOB_RUN:
        c.run += slots;
        break;
      case wire::JOB_SSUSP:
        c.ssusp += slots;
        break;
      case wire::JOB_USUSP:
        c.ususp += slots;
        break;
      default:
        break;
    }
  }
  for (const auto& [key, r] : hooks_.reservations())
    if (const Job* job = ctx_.state.find_job(key)) by_user[job->user()].rsv += static_cast<int>(r.hosts.size());

  std::vector<std::string> names(q.names().begin(), q.names().end());
  if (names.empty()) names.push_back(request.caller().user_name());
  if (names.size() == 1 && names[0] == "all") {
    std::set<std::string> all;
    for (const auto& [u, c] : by_user) all.insert(u);
    for (const auto& [u, l] : policy.user_limits)
      if (u != "default") all.insert(u);
    names.assign(all.begin(), all.end());
  }
  auto reply = net::ok_reply();
  auto* out = reply.mutable_users();
  for (const auto& name : names) {
    auto* u = out->add_users();
    u->set_name(name);
    const sched::UserSlotLimit* limit = nullptr;
    Counts total;
    auto add = [&](const Counts& c) {
      total.pend += c.pend;
      total.run += c.run;
      total.ssusp += c.ssusp;
      total.ususp += c.ususp;
      total.rsv += c.rsv;
    };
    if (auto g = policy.group_members.find(name); g != policy.group_members.end()) {
      u->set_group(true);
      for (const auto& m : g->second)
        if (auto c = by_user.find(m); c != by_user.end()) add(c->second);
      if (auto l = policy.group_limits.find(name); l != policy.group_limits.end()) limit = &l->second;
    } else {
      if (auto c = by_user.find(name); c != by_user.end()) add(c->second);
      if (auto l = policy.user_limits.find(name); l != policy.user_limits.end())
        limit = &l->second;
      else if (auto d = policy.user_limits.find("default"); d != policy.user_limits.end())
        limit = &d->second;
    }
    u->set_max_jobs(limit && limit->max_jobs ? *limit->max_jobs : -1);
    u->set_jl_p(limit && limit->jl_p ? *limit->jl_p : -1);
    u->set_pend(total.pend);
    u->set_run(total.run);
    u->set_ssusp(total.ssusp);
    u->set_ususp(total.ususp);
    u->set_rsv(total.rsv);
    u->set_njobs(total.pend + total.run + total.ssusp + total.ususp + total.rsv);
  }
  return reply;
}

wire::ReplyEnvelope ConfigQueries::limits(const wire::RequestEnvelope&) const {
  const auto& policy = *index_.policy;
  auto reply = net::ok_reply();
  auto* out = reply.mutable_limits();
  auto consumers = [](const sched::ConsumerSet& c) {
    if (!c.given) return std::string();
    std::string s = c.all ? "all" : "";
    for (const auto& m : c.members) s += (s.empty() ? "" : " ") + m;
    for (const auto& m : c.excluded) s += (s.empty() ? "~" : " ~") + m;
    return s;
  };
  for (const auto& l : policy.limits) {
    auto* li = out->add_limits();
    li->set_name(l.name);
    li->set_users(consumers(l.users));
    li->set_queues(consumers(l.queues));
    li->set_hosts(consumers(l.hosts));
    li->set_projects(consumers(l.projects));
    li->set_per_user(l.users.per_member);
    li->set_per_queue(l.queues.per_member);
    li->set_per_host(l.hosts.per_member);
    li->set_per_project(l.projects.per_member);
    li->set_slots(l.slots.value_or(-1));
    li->set_jobs(l.jobs.value_or(-1));
    li->set_slots_per_processor(l.slots_per_processor.value_or(-1));
    li->set_jobs_soft(l.jobs_soft.value_or(-1));
    li->set_slots_soft(l.slots_soft.value_or(-1));
    li->set_idle_jobs(l.idle_jobs.value_or(-1));
    li->set_total_jobs(l.total_jobs.value_or(-1));
    li->set_proc_seconds_soft(l.proc_seconds_soft.value_or(-1));
    li->set_proc_seconds_hard(l.proc_seconds_hard.value_or(-1));
    for (const auto& [name, amount] : l.resources) (*li->mutable_resources())[name] = amount;
  }
  for (const auto& r : ctx_.conf().reservation_usage) {
    auto* p = out->add_reservation_usage();
    p->set_name(r.resource);
    using M = config::ReservationUsage::Method;
    p->set_value(r.method == M::kPerHost   ? "PER_HOST"
                 : r.method == M::kPerSlot ? "PER_SLOT"
                 : r.method == M::kPerTask ? "PER_TASK"
                                           : "PER_JOB");
  }
  for (const auto& u : sched::limit_usage(hooks_.build_view(false), hooks_.now())) {
    auto* row = out->add_usage();
    row->set_limit(static_cast<int>(u.limit));
    row->set_user(u.user);
    row->set_queue(u.queue);
    row->set_project(u.project);
    row->set_host(u.host);
    row->set_slots(u.slots);
    row->set_jobs(u.jobs);
    for (const auto& [name, amount] : u.resources) (*row->mutable_resources())[name] = amount;
  }
  // The throttles' counts come from the last pass (only it knows which pending jobs are
  // idle): onto the consumer's row, or a row of its own when nothing of it runs.
  for (const auto& t : hooks_.throttles()) {
    if (t.limit >= index_.policy->limits.size()) continue;  // a pass before a reconfig
    wire::LimitUsageRow* row = nullptr;
    for (auto& r : *out->mutable_usage())
      if (static_cast<size_t>(r.limit()) == t.limit && r.user() == t.user && r.queue() == t.queue &&
          r.project() == t.project && r.host().empty())
        row = &r;
    if (!row) {
      if (t.idle == 0 && t.running == 0) continue;
      row = out->add_usage();
      row->set_limit(static_cast<int>(t.limit));
      row->set_user(t.user);
      row->set_queue(t.queue);
      row->set_project(t.project);
      row->set_slots(static_cast<int>(t.slots));
      row->set_jobs(t.running);
    }
    row->set_idle_jobs(t.idle);
    row->set_proc_seconds(t.proc_seconds);
  }
  return reply;
}

wire::ReplyEnvelope ConfigQueries::shared_resources(const wire::RequestEnvelope&) const {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_shared_resources();
  // As the pass counts them: with instances borrowed from providers and lent to consumers.
  const auto view = hooks_.build_view(false);
  const auto& totals = view.policy->shared_resources;
  for (const auto& [name, reserved] : sched::shared_resource_usage(view, hooks_.now())) {
    auto* r = out->add_resources();
    r->set_name(name);
    r->set_total(totals.at(name));
    r->set_reserved(reserved);
    for (const auto& h : ctx_.conf().hosts)
      if (h.server) r->add_hosts(h.name);
  }
  return reply;
}

wire::ReplyEnvelope ConfigQueries::perfmon(const wire::RequestEnvelope&) const {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_perfmon();
  const PassCounters& passes = hooks_.pass_counters();
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
  out->set_submissions_total(hooks_.submissions_total());
  out->set_uptime_s(hooks_.uptime().count());
  return reply;
}

}  // namespace lsf::mbd
