// ConfigQueries's bqueues and bhosts (config_queries.h): each queue and host as
// configured, with its jobs from the state, its status and load from host tracking,
// and its share tree or slot pool from a view of the state.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/config_queries.h"
#include "daemons/mbatchd/share_rows.h"
#include "libconfig/config_loader.h"
#include "libconfig/host_resolution.h"
#include "libconfig/load_index.h"
#include "libconfig/shares.h"
#include "libsched/pool_usage.h"

namespace lsf::mbd {

namespace {

// bhosts -gpu: each host's devices as the started jobs hold them, by one walk of the
// started jobs (only when some host has GPUs).
using GpuUses = std::unordered_map<std::string_view, std::map<int, wire::GpuHostUse>>;

GpuUses gpu_host_uses(const ClusterState& state) {
  GpuUses out;
  for (const auto& [key, job] : state.started()) {
    if (!job->gpus) continue;
    const bool running = job->state == wire::JOB_RUN;
    for (const auto& g : *job->gpus) {
      auto& u = out[g.host][g.gpu];
      u.set_gpu(g.gpu);
      u.set_mrsv_mb(u.mrsv_mb() + g.mem_mb);
      u.set_njobs(u.njobs() + 1);
      if (running)
        u.set_run(u.run() + 1);
      else
        u.set_susp(u.susp() + 1);
    }
  }
  return out;
}

}  // namespace

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
    if (q->gpu_req) i->set_gpu_req(q->gpu_req->to_string());
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
  // Each host's own lsb.hosts line, found once rather than by a walk of every line per
  // host: a site may list thousands. The `default` lines above a host's own line apply
  // to it, then its own line does (all of them for a host without one).
  const auto& lines = ctx_.conf().batch_hosts;
  std::unordered_map<std::string_view, size_t> own_line;
  std::vector<size_t> default_lines;
  for (size_t k = 0; k < lines.size(); ++k) {
    own_line.try_emplace(lines[k].name, k);
    if (lines[k].name == "default") default_lines.push_back(k);
  }
  std::optional<GpuUses> gpu_uses;
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
    auto take_line = [i](const config::BatchHost& b) {
      if (b.jl_u) i->set_jl_u(*b.jl_u);
      if (!b.dispatch_window.always_open()) i->set_dispatch_window(b.dispatch_window.to_string());
    };
    const auto own = own_line.find(h.name);
    const size_t own_at = own == own_line.end() ? lines.size() : own->second;
    for (size_t k : default_lines)
      if (k < own_at) take_line(lines[k]);
    if (own_at < lines.size()) take_line(lines[own_at]);
    if (link) *i->mutable_load() = link->load;
    if (link && !link->load.gpus().empty()) {
      if (!gpu_uses) gpu_uses = gpu_host_uses(ctx_.state);
      const auto held = gpu_uses->find(h.name);
      for (const auto& g : link->load.gpus()) {
        auto* u = i->add_gpu_use();
        u->set_gpu(g.id());
        if (held == gpu_uses->end()) continue;
        if (auto d = held->second.find(g.id()); d != held->second.end()) *u = d->second;
      }
    }
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

}  // namespace lsf::mbd
