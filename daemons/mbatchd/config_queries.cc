// The configuration in force with its usage: bparams, bmgroup, bugroup, lsinfo,
// bresources -g, bsla, bapp, bhpart, busers, blimits, shared resources, bqueues,
// bhosts and badmin perfmon (config_queries.h).
#include "daemons/mbatchd/config_queries.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/share_rows.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libconfig/load_index.h"
#include "libconfig/params_table.h"
#include "libconfig/shares.h"
#include "libconfig/text.h"
#include "libsched/limit_usage.h"
#include "libsched/pool_usage.h"

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

wire::ReplyEnvelope ConfigQueries::queues(const wire::RequestEnvelope& request) const {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_queues();
  auto week = config::local_week_instant();
  std::set<std::string> defaults(ctx_.conf().params.default_queues.begin(), ctx_.conf().params.default_queues.end());
  for (const auto& name : request.queues().names())
    if (!ctx_.conf().find_queue(name)) return net::error_reply(wire::STATUS_NOT_FOUND, name + ": No such queue");
  std::vector<const config::Queue*> queues;
  for (const auto& q : ctx_.conf().queues)
    if (request.queues().names().empty() || std::find(request.queues().names().begin(), request.queues().names().end(),
                                                      q.name) != request.queues().names().end())
      queues.push_back(&q);
  // bqueues lists queues by priority, highest first.
  std::stable_sort(queues.begin(), queues.end(), [](auto* a, auto* b) { return a->priority > b->priority; });
  // Share trees need running jobs and history: one view (without pending jobs) for all.
  std::optional<sched::ClusterView> view;
  std::optional<std::vector<sched::PoolShare>> pools;
  for (const auto* q : queues) {
    const auto& st = ctx_.state.queues().at(q->name);
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
      if (!view) view = hooks_.build_view(false);
      if (!pools) {
        std::vector<int> pending(view->policy->queues.size(), 0);
        for (size_t k = 0; k < pending.size(); ++k) {
          auto s = ctx_.state.queues().find(view->policy->queues[k].name);
          if (s != ctx_.state.queues().end()) pending[k] = s->second.counts.pend;
        }
        pools = sched::slot_pool_usage(*view, hooks_.now(), pending);
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
      if (!view) view = hooks_.build_view(false);
      int index = view->policy->queue_index(q->name);
      if (index < 0) continue;
      add_share_rows(sched::share_table(*view, index, hooks_.now()), i->mutable_share_accounts());
    }
  }
  return reply;
}

wire::ReplyEnvelope ConfigQueries::hosts(const wire::RequestEnvelope& request) const {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_hosts();
  std::set<std::string> names(request.hosts().names().begin(), request.hosts().names().end());
  const auto borrowed = hooks_.borrowed_hosts();
  for (const auto& n : names)
    if (!ctx_.conf().find_host(n) && !ctx_.conf().find_host_group(n) && !borrowed.count(n))
      return net::error_reply(wire::STATUS_NOT_FOUND, n + ": Bad host name, host group name or cluster name");
  std::set<std::string> wanted;
  for (const auto& n : names) {
    if (ctx_.conf().find_host(n) || borrowed.count(n)) {
      wanted.insert(n);
    } else {
      config::HostListItem group;
      group.name = n;
      auto members = config::resolve_host_list(ctx_.conf(), {group});
      wanted.insert(members.begin(), members.end());
    }
  }
  // -R: select[] over each host's static resources and load, as the scheduler reads them.
  std::optional<config::ResourceRequirement> select;
  if (!request.hosts().res_req().empty()) {
    auto parsed = config::ResourceRequirement::parse(request.hosts().res_req());
    if (!parsed)
      return net::error_reply(wire::STATUS_BAD_REQUEST,
                              request.hosts().res_req() + ": Bad resource requirement syntax: " + parsed.error());
    select = *parsed;
  }
  for (const auto& h : ctx_.conf().hosts) {
    if (!wanted.empty() && !wanted.count(h.name)) continue;
    if (select) {
      auto res = hooks_.host_resources(h.name);
      auto lookup = [&res](std::string_view name) -> config::ResourceValue {
        auto it = res.find(name);
        return it == res.end() ? config::ResourceValue{} : it->second;
      };
      if (!select->select.matches(lookup)) continue;
    }
    const auto& st = ctx_.state.hosts().at(h.name);
    auto* i = out->add_hosts();
    i->set_name(h.name);
    i->set_status(hooks_.host_status(h.name));
    i->set_max_slots(hooks_.host_max_slots(h.name));
    i->set_jl_u(-1);
    i->set_njobs(st.counts.run + st.counts.ssusp + st.counts.ususp);
    i->set_run(st.counts.run);
    i->set_ssusp(st.counts.ssusp);
    i->set_ususp(st.counts.ususp);
    i->set_admin_comment(st.admin_comment);
    const HostLink* link = hooks_.link(h.name);
    if (link) {
      const auto& l = *link;
      i->set_clock_offset_ms(l.clock_refused ? l.refused_clock_offset_ms : l.clock_offset_ms);
      i->set_clock_refused(l.clock_refused);
    }
    i->set_type(h.type);
    i->set_model(h.model);
    for (const auto& r : h.resources) i->add_resources(r);
    i->set_server(h.server);
    if (const auto* m = ctx_.conf().find_host_model(h.model))
      i->set_cpu_factor(m->cpu_factor);
    else
      i->set_cpu_factor(1.0);
    for (const auto& b : ctx_.conf().batch_hosts)
      if (b.name == h.name || b.name == "default") {
        if (b.jl_u) i->set_jl_u(*b.jl_u);
        if (!b.dispatch_window.always_open()) i->set_dispatch_window(b.dispatch_window.to_string());
        if (b.name == h.name) break;
      }
    if (link) *i->mutable_load() = link->load;
    // The thresholds the scheduler applies to the host (its lsb.hosts line, else default's).
    for (const auto& [index, threshold] : index_.policy->host(h.name).thresholds) {
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
      std::string status = hooks_.borrowed_host_status(name);
      if (auto st = ctx_.state.hosts().find(name); st != ctx_.state.hosts().end()) {
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
