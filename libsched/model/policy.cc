#include "libsched/model/policy.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "libconfig/host_resolution.h"

namespace lsf::sched {
namespace {

// lsb.modules when absent. LSF's own default is schmod_default and schmod_fcfs; the
// policies every LSF admin expects to work out of the box (limits, parallel jobs,
// reservation, preemption) come with them, as lsfinstall's template configures them.
const std::vector<std::string> kDefaultModules = {"schmod_default",   "schmod_fcfs",     "schmod_fairshare",
                                                  "schmod_limit",     "schmod_parallel", "schmod_reserve",
                                                  "schmod_preemption"};

void expand_group(const config::ClusterConfig& cfg, const std::string& name, std::set<std::string, std::less<>>& out,
                  bool& all, std::set<std::string>& visiting) {
  const config::UserGroup* g = cfg.find_user_group(name);
  if (!g) {
    out.insert(name);
    return;
  }
  // Each group once per expansion: `out` is a union, so a group met again (a cycle,
  // reported by the checks, or a second path to it) adds nothing, and groups nested as
  // a lattice expand in linear, not exponential, time.
  if (!visiting.insert(name).second) return;
  for (const auto& m : g->members) {
    if (m.kind == config::UserListItem::Kind::kAll) {
      all = true;
      continue;
    }
    if (m.kind != config::UserListItem::Kind::kName || m.exclude) continue;
    expand_group(cfg, m.name, out, all, visiting);
  }
}

ConsumerSet users_of(const config::ClusterConfig& cfg, const std::vector<config::UserListItem>& items, bool per) {
  ConsumerSet set;
  set.given = !items.empty();
  set.per_member = per;
  for (const auto& item : items) {
    if (item.kind == config::UserListItem::Kind::kAll) {
      set.all = true;
      continue;
    }
    if (item.kind != config::UserListItem::Kind::kName) continue;
    std::set<std::string, std::less<>> expanded;
    bool all = false;
    std::set<std::string> visiting;
    expand_group(cfg, item.name, expanded, all, visiting);
    auto& into = item.exclude ? set.excluded : set.members;
    into.insert(expanded.begin(), expanded.end());
    if (all && !item.exclude) set.all = true;
  }
  return set;
}

ConsumerSet names_of(const std::vector<std::string>& items, bool per) {
  ConsumerSet set;
  set.given = !items.empty();
  set.per_member = per;
  for (const auto& n : items) {
    if (n == "all")
      set.all = true;
    else if (!n.empty() && n[0] == '~')
      set.excluded.insert(n.substr(1));
    else
      set.members.insert(n);
  }
  return set;
}

ConsumerSet hosts_of(const config::ClusterConfig& cfg, const std::vector<config::HostListItem>& items, bool per) {
  ConsumerSet set;
  set.given = !items.empty();
  set.per_member = per;
  for (const auto& h : config::resolve_host_list(cfg, items)) set.members.insert(h);
  return set;
}

HostPolicy host_policy(const config::BatchHost& b) {
  HostPolicy p;
  p.mxj = b.mxj.value_or(-1);
  p.mxj_is_ncpus = b.mxj_is_ncpus;
  p.jl_u = b.jl_u;
  p.dispatch_window = b.dispatch_window;
  p.thresholds = b.thresholds;
  return p;
}

// Which borrowed hosts a queue's HOSTS take: `allremote`, `all@cluster`, `host@cluster`,
// directly or through a host group (groups may hold `allremote`).
void take_borrowed_hosts(const config::ClusterConfig& cfg, const std::vector<config::HostListItem>& items,
                         QueuePolicy& qp, std::set<std::string>& visiting) {
  using Kind = config::HostListItem::Kind;
  for (const auto& item : items) {
    if (item.exclude) continue;
    if (item.kind == Kind::kAllRemote) qp.all_remote = true;
    if (item.cluster.empty()) {
      const config::HostGroup* g = item.kind == Kind::kName ? cfg.find_host_group(item.name) : nullptr;
      if (g && visiting.insert(g->name).second) take_borrowed_hosts(cfg, g->members, qp, visiting);
      continue;
    }
    if (item.kind == Kind::kAll)
      qp.remote_clusters.insert(item.cluster);
    else if (item.kind == Kind::kName)
      qp.remote_hosts.insert(item.name + "@" + item.cluster);
  }
}

// HOSTS levels: each word with +N gives the hosts it names level N (the highest when
// named twice); `others+N` gives it to the hosts no other word names.
void host_preferences(const config::ClusterConfig& cfg, const std::vector<config::HostListItem>& items,
                      QueuePolicy& qp) {
  using Kind = config::HostListItem::Kind;
  auto raise = [](std::map<std::string, int, std::less<>>& levels, const std::string& key, int level) {
    auto [it, fresh] = levels.try_emplace(key, level);
    if (!fresh) it->second = std::max(it->second, level);
  };
  auto plain = [](config::HostListItem item) {
    item.has_preference = false;
    item.preference = 0;
    return item;
  };
  for (const auto& item : items) {
    if (!item.has_preference || item.exclude || item.kind == Kind::kNone) continue;
    qp.has_preferences = true;
    const int level = item.preference;
    if (item.kind == Kind::kAllRemote) {
      qp.remote_preference = std::max(qp.remote_preference, level);
    } else if (!item.cluster.empty()) {
      if (item.kind == Kind::kAll)
        raise(qp.cluster_preference, item.cluster, level);
      else
        raise(qp.host_preference, item.name + "@" + item.cluster, level);
    } else if (item.kind == Kind::kOthers) {
      std::vector<config::HostListItem> named;
      for (const auto& other : items)
        if (other.kind != Kind::kOthers && !other.exclude && other.cluster.empty()) named.push_back(plain(other));
      const auto taken = config::resolve_host_list(cfg, named);
      for (const auto& h : cfg.hosts)
        if (!taken.count(h.name)) raise(qp.host_preference, h.name, level);
    } else {
      for (const auto& h : config::resolve_host_list(cfg, {plain(item)})) raise(qp.host_preference, h, level);
    }
  }
}

}  // namespace

bool past_threshold(std::string_view index, double value, double threshold) {
  return config::larger_is_better(index) ? value < threshold : value > threshold;
}

std::string first_past(const config::Thresholds& thresholds, const std::function<double(std::string_view)>& value,
                       bool stop, bool skip_pg) {
  for (const auto& [index, th] : thresholds) {
    const auto& limit = stop ? th.stop : th.sched;
    if (!limit || (skip_pg && index == "pg")) continue;
    double v = value(index);
    if (!std::isnan(v) && past_threshold(index, v, *limit)) return index;
  }
  return {};
}

std::string LimitPolicy::scope() const {
  if (users.given) return "on user or user group";
  if (queues.given) return "on queue";
  if (hosts.given) return "on host and/or host group";
  if (projects.given) return "on project";
  return "cluster-wide";
}

int SchedPolicy::queue_index(std::string_view name) const {
  for (size_t i = 0; i < queues.size(); ++i)
    if (queues[i].name == name) return static_cast<int>(i);
  return -1;
}

const HostPolicy& SchedPolicy::host(std::string_view name) const {
  auto it = hosts.find(name);
  return it == hosts.end() ? default_host : it->second;
}

std::vector<std::string> SchedPolicy::groups_of(std::string_view user) const {
  std::vector<std::string> out;
  for (const auto& [group, members] : group_members)
    if (members.count(user)) out.push_back(group);
  for (const auto& g : groups_with_all)
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  std::sort(out.begin(), out.end());
  return out;
}

UserSlotLimit SchedPolicy::user_limit(std::string_view user) const {
  if (auto it = user_limits.find(user); it != user_limits.end()) return it->second;
  for (const auto& g : groups_of(user))
    if (auto it = user_limits.find(g + "@"); it != user_limits.end()) return it->second;
  if (auto it = user_limits.find("default"); it != user_limits.end()) return it->second;
  return {};
}

namespace {

void add_host_policies(const config::ClusterConfig& cfg, SchedPolicy& p) {
  // lsb.hosts: a row for the host itself wins over its model or type, which wins
  // over `default`.
  const config::BatchHost* fallback = nullptr;
  for (const auto& b : cfg.batch_hosts)
    if (b.name == "default") fallback = &b;
  if (fallback) p.default_host = host_policy(*fallback);
  for (const auto& h : cfg.hosts) {
    const config::BatchHost* own = nullptr;
    const config::BatchHost* kind = nullptr;
    for (const auto& b : cfg.batch_hosts) {
      if (b.name == h.name) own = &b;
      if (!kind && (b.name == h.model || b.name == h.type)) kind = &b;
    }
    if (own || kind) p.hosts[h.name] = host_policy(own ? *own : *kind);
  }
}

// Each queue as the pass reads it, in lsb.queues order.
void add_queue_policies(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (const auto& q : cfg.queues) {
    QueuePolicy qp;
    qp.name = q.name;
    qp.priority = q.priority;
    if (!q.hosts.empty()) {
      for (const auto& h : config::resolve_host_list(cfg, q.hosts)) qp.hosts.insert(h);
      if (qp.hosts.empty()) qp.hosts.insert("-");  // names no host of this cluster
    }
    std::set<std::string> visiting;
    take_borrowed_hosts(cfg, q.hosts, qp, visiting);
    host_preferences(cfg, q.hosts, qp);
    qp.qjob_limit = q.qjob_limit;
    qp.ujob_limit = q.ujob_limit;
    qp.hjob_limit = q.hjob_limit;
    qp.pjob_limit = q.pjob_limit;
    qp.thresholds = q.thresholds;
    qp.run_window = q.run_window;
    qp.dispatch_window = q.dispatch_window;
    qp.backfill = q.backfill;
    qp.slot_reserve_time = q.slot_reserve_time;
    const config::Planning& cluster = cfg.params.planning;
    qp.reservation_plan = q.planning.plan.value_or(cfg.params.reservation_plan);
    qp.predict = q.planning.predict.value_or(cluster.predict.value_or(false));
    qp.shortest_first = q.planning.shortest_first.value_or(cluster.shortest_first.value_or(false));
    qp.max_wait_s = std::int64_t{q.planning.max_wait_minutes.value_or(cluster.max_wait_minutes.value_or(0))} * 60;
    p.reservation_plan = p.reservation_plan || qp.reservation_plan;
    qp.exclusive = q.exclusive;
    qp.job_accept_interval = q.job_accept_interval;
    qp.stop_cond = q.stop_cond;
    qp.resume_cond = q.resume_cond;
    qp.requeue_exit_values = q.requeue_exit_values;
    qp.fairshare = fairshare_policy(cfg, q);
    qp.slot_pool = q.slot_pool;
    qp.slot_share = q.slot_share.value_or(0);
    qp.aps = q.aps_priority;
    qp.max_slots_in_pool = q.max_slots_in_pool;
    qp.use_priority_in_pool = q.use_priority_in_pool;
    qp.hist_hours = q.hist_hours.value_or(cfg.params.hist_hours);
    p.queues.push_back(std::move(qp));
  }
}

void add_share_domains(const config::ClusterConfig& cfg, SchedPolicy& p) {
  // Cross-queue fairshare: the queues a master names in FAIRSHARE_QUEUES use its tree (a
  // FAIRSHARE of their own is ignored, as in LSF); their jobs and use count together.
  for (size_t i = 0; i < cfg.queues.size(); ++i)
    if (p.queues[i].fairshare) p.queues[i].share_domain = static_cast<int>(i);
  for (size_t i = 0; i < cfg.queues.size(); ++i) {
    if (!p.queues[i].fairshare) continue;
    for (const auto& name : cfg.queues[i].fairshare_queues) {
      int s = p.queue_index(name);
      if (s < 0 || s == static_cast<int>(i)) continue;
      p.queues[static_cast<size_t>(s)].fairshare = p.queues[i].fairshare;
      p.queues[static_cast<size_t>(s)].share_domain = static_cast<int>(i);
    }
  }
  for (auto& q : p.queues)
    if (q.share_domain >= 0) q.share_by_queue = cfg.queues[static_cast<size_t>(q.share_domain)].dispatch_order_queue;
}

// Host partitions, each with its fairshare tree (take_partition_fairshare gives it to
// the queues it holds).
void add_host_partitions(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (const auto& hp : cfg.host_partitions) {
    SchedPolicy::HostPartition part;
    part.name = hp.name;
    for (const auto& h : config::resolve_host_list(cfg, hp.hosts)) part.hosts.insert(h);
    part.fairshare = fairshare_policy(cfg, hp.user_shares);
    p.host_partitions.push_back(std::move(part));
  }
}

// Slot, host and package guarantee pools; resource pools are licences, not scheduled here.
void add_guarantee_policies(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (const auto& gp : cfg.guarantee_pools) {
    if (gp.type.kind == config::PoolType::Kind::kResource) continue;
    GuaranteePolicy g;
    g.name = gp.name;
    g.kind = gp.type.kind;
    g.package_slots = gp.type.kind == config::PoolType::Kind::kPackage ? gp.type.package_slots.value_or(0) : 1;
    g.package_mem = gp.type.kind == config::PoolType::Kind::kPackage ? gp.type.package_mem_mb.value_or(0) : 0;
    for (const auto& h : config::resolve_host_list(cfg, gp.hosts)) g.hosts.insert(h);
    if (gp.res_select && !gp.res_select->select.empty()) g.res_select = gp.res_select->select;
    for (const auto& d : gp.distribution) g.distribution.push_back({d.name, d.amount, d.percent});
    g.loans = gp.loan_policies;
    g.description = gp.description;
    g.type_text = gp.type.to_string();
    p.guarantee_pools.push_back(std::move(g));
  }
}

// Host-partition fairshare: a queue without FAIRSHARE whose hosts all lie in one
// partition is ordered by the partition's tree, shared by every such queue. A queue in
// a cross-queue domain keeps its use under the domain's master.
void take_partition_fairshare(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (auto& q : p.queues) {
    if (q.fairshare) continue;
    for (size_t k = 0; k < p.host_partitions.size(); ++k) {
      const auto& part = p.host_partitions[k];
      bool inside = !q.hosts.empty();
      for (const auto& h : q.hosts) inside = inside && part.hosts.count(h);
      if (q.hosts.empty()) {  // every host: only a partition of all of them holds it
        inside = true;
        for (const auto& h : cfg.hosts) inside = inside && part.hosts.count(h.name);
      }
      if (!inside) continue;
      q.share_partition = static_cast<int>(k);
      q.fairshare = part.fairshare;
      q.share_key = "hpart:" + part.name;
      break;
    }
  }
  for (auto& q : p.queues)
    if (q.share_domain >= 0) q.share_key = p.queues[static_cast<size_t>(q.share_domain)].name;
}

void add_preemption(const config::ClusterConfig& cfg, SchedPolicy& p) {
  // PREEMPTIVE[...] names lower queues this one preempts (all lower ones when empty);
  // PREEMPTABLE[...] names higher queues that preempt this one (all when empty).
  for (size_t i = 0; i < cfg.queues.size(); ++i) {
    const auto& hi = cfg.queues[i];
    for (size_t j = 0; j < cfg.queues.size(); ++j) {
      const auto& lo = cfg.queues[j];
      if (lo.priority >= hi.priority) continue;
      bool listed = false;
      for (const auto& item : hi.preemption.preemptive) listed |= item.name == lo.name;
      bool yields = lo.preemption.preemptable_all ||
                    std::find(lo.preemption.preemptable.begin(), lo.preemption.preemptable.end(), hi.name) !=
                        lo.preemption.preemptable.end();
      if (hi.preemption.preemptive_all || listed || yields) p.queues[i].preempts.insert(lo.name);
    }
  }
}

// User groups as member sets, and lsb.users MAX_JOBS / JL/P per user, group or member.
void add_user_policies(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (const auto& g : cfg.user_groups) {
    std::set<std::string, std::less<>> members;
    bool all = false;
    std::set<std::string> visiting;
    expand_group(cfg, g.name, members, all, visiting);
    p.group_members[g.name] = std::move(members);
    if (all) p.groups_with_all.push_back(g.name);
  }
  for (const auto& u : cfg.user_limits) {
    UserSlotLimit l{u.max_jobs, u.jl_p};
    if (!u.per_member && cfg.find_user_group(u.name))
      p.group_limits[u.name] = l;
    else
      p.user_limits[u.per_member ? u.name + "@" : u.name] = l;
  }
}

// lsb.resources Limit sections.
void add_limit_policies(const config::ClusterConfig& cfg, SchedPolicy& p) {
  for (const auto& l : cfg.limits) {
    LimitPolicy lp;
    lp.name = l.name;
    lp.users = users_of(cfg, l.users, l.per_user);
    lp.queues = names_of(l.queues, l.per_queue);
    lp.hosts = hosts_of(cfg, l.hosts, l.per_host);
    lp.projects = names_of(l.projects, l.per_project);
    lp.slots = l.slots;
    lp.jobs = l.jobs;
    lp.jobs_soft = l.jobs_soft;
    lp.slots_soft = l.slots_soft;
    lp.idle_jobs = l.idle_jobs;
    lp.total_jobs = l.total_jobs;
    lp.proc_seconds_soft = l.proc_seconds_soft;
    lp.proc_seconds_hard = l.proc_seconds_hard;
    lp.slots_per_processor = l.slots_per_processor;
    if (l.mem && !l.mem_percent) lp.resources["mem"] = *l.mem;
    if (l.swp && !l.swp_percent) lp.resources["swp"] = *l.swp;
    if (l.tmp && !l.tmp_percent) lp.resources["tmp"] = *l.tmp;
    for (const auto& r : l.resources) lp.resources[r.name] = r.amount;
    p.limits.push_back(std::move(lp));
  }
}

void add_shared_resources(const config::ClusterConfig& cfg, SchedPolicy& p) {
  // `licA 5@[all]` in lsf.cluster's ResourceMap: five instances shared by the cluster.
  for (const auto& entry : cfg.resource_map) {
    for (const auto& loc : entry.locations) {
      bool everywhere = loc.hosts.size() == 1 && loc.hosts[0].kind == config::HostListItem::Kind::kAll;
      if (!everywhere || loc.value.empty()) continue;
      try {
        p.shared_resources[entry.resource] = std::stod(loc.value);
      } catch (...) {
      }
    }
  }
}

}  // namespace

std::shared_ptr<const SchedPolicy> build_policy(const config::ClusterConfig& cfg) {
  auto p = std::make_shared<SchedPolicy>();
  p->mbd_sleep_time = std::max(1, cfg.params.mbd_sleep_time);
  p->sbd_sleep_time = std::max(1, cfg.params.sbd_sleep_time);
  p->job_accept_interval = std::max(0, cfg.params.job_accept_interval);
  p->pg_susp_it = cfg.params.pg_susp_it;
  p->reservation_depth = cfg.params.reservation_depth.value_or(-1);

  add_host_policies(cfg, *p);
  add_queue_policies(cfg, *p);
  add_share_domains(cfg, *p);
  add_host_partitions(cfg, *p);
  for (const auto& sc : cfg.service_classes)
    p->qos[sc.name] = {sc.priority.value_or(0), std::int64_t{sc.queue_time_target_min.value_or(0)} * 60};
  p->max_user_priority = cfg.params.max_user_priority;
  add_guarantee_policies(cfg, *p);
  take_partition_fairshare(cfg, *p);
  add_preemption(cfg, *p);
  add_user_policies(cfg, *p);
  add_limit_policies(cfg, *p);
  add_shared_resources(cfg, *p);
  for (const auto& m : cfg.modules) p->modules.push_back(m.name);
  if (!cfg.modules_configured) p->modules = kDefaultModules;
  return p;
}

}  // namespace lsf::sched
