#include "libconfig/semantic_checks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "libconfig/host_resolution.h"
#include "libconfig/text.h"

namespace lsf::config {
namespace {

class Checker {
 public:
  Checker(const ClusterConfig& c, const CheckOptions& o, Diagnostics& d) : cfg_(c), opt_(o), diags_(d) {}

  void run() {
    check_cluster_hosts();
    check_params();
    check_queues();
    check_batch_hosts();
    check_host_groups();
    check_user_groups();
    check_user_limits();
    check_limits();
    check_guarantee_pools();
    check_exports();
    check_service_classes();
    check_slot_pools();
    check_modules();
  }

 private:
  // ---- name resolution ----

  bool is_host_like(const std::string& name, bool allow_default) const {
    return cfg_.find_host(name) || cfg_.find_host_group(name) || cfg_.find_host_model(name) ||
           cfg_.is_host_type(name) || (allow_default && name == "default") ||
           std::any_of(cfg_.compute_units.begin(), cfg_.compute_units.end(),
                       [&](const ComputeUnit& cu) { return cu.name == name; });
  }

  void check_host_list(const std::vector<HostListItem>& items, const SourceLocation& where, const std::string& context,
                       const std::string& key, bool allow_remote = true) {
    for (const auto& item : items) {
      if (!item.cluster.empty()) {
        if (!allow_remote)
          diags_.error(where, context + ": " + key + " may not name borrowed host \"" + item.to_string() + "\"");
        else if (!cfg_.is_known_cluster(item.cluster))
          diags_.error(where, context + ": " + key + " names unknown cluster \"" + item.cluster + "\" in \"" +
                                  item.to_string() + "\"");
        continue;
      }
      if (item.kind != HostListItem::Kind::kName) continue;
      if (!is_host_like(item.name, false))
        diags_.error(where, context + ": " + key + " names unknown host or host group \"" + item.name + "\"");
    }
  }

  bool is_queue_name(const std::string& name) const { return cfg_.find_queue(name) != nullptr; }

  void check_queue_names(const std::vector<std::string>& names, const SourceLocation& where, const std::string& context,
                         const std::string& key, bool allow_all) {
    for (auto name : names) {
      if (!name.empty() && name.front() == '~') name.erase(0, 1);
      if (allow_all && name == "all") continue;
      if (!is_queue_name(name)) diags_.error(where, context + ": " + key + " names unknown queue \"" + name + "\"");
    }
  }

  void check_user_list(const std::vector<UserListItem>& items, const SourceLocation& where, const std::string& context,
                       const std::string& key) {
    for (const auto& u : items) {
      if (u.kind != UserListItem::Kind::kName) continue;
      check_user_name(u.name, u.per_member, where, context, key);
    }
  }

  void check_user_name(const std::string& name, bool per_member, const SourceLocation& where,
                       const std::string& context, const std::string& key) {
    if (per_member) {
      if (!cfg_.find_user_group(name))
        diags_.error(where, context + ": " + key + " names unknown user group \"" + name + "@\"");
      return;
    }
    if (cfg_.find_user_group(name) || name == "default" || name == "others" || name == "all") return;
    if (opt_.user_exists && !opt_.user_exists(name))
      diags_.warning(where,
                     context + ": " + key + " names \"" + name + "\", which is neither a user group nor a known user");
  }

  // ---- lsf.cluster ----

  void check_cluster_hosts() {
    for (const auto& h : cfg_.hosts) {
      std::string context = "host \"" + h.name + "\"";
      if (!h.model.empty() && !cfg_.find_host_model(h.model))
        diags_.error(h.where, context + ": model \"" + h.model + "\" is not a HostModel in lsf.shared");
      if (!h.type.empty() && !cfg_.is_host_type(h.type))
        diags_.error(h.where, context + ": type \"" + h.type + "\" is not a HostType in lsf.shared");
      for (const auto& r : h.resources) {
        std::string name = r.front() == '!' ? r.substr(1) : r;
        name = name.substr(0, name.find('='));
        if (!cfg_.find_resource(name))
          diags_.error(h.where, context + ": RESOURCES names \"" + name + "\", which lsf.shared does not define");
      }
    }
    for (const auto& e : cfg_.resource_map) {
      std::string context = "resource \"" + e.resource + "\"";
      if (!cfg_.find_resource(e.resource))
        diags_.error(e.where, context + ": ResourceMap names a resource lsf.shared does not define");
      for (const auto& loc : e.locations) {
        std::vector<HostListItem> named;
        for (const auto& item : loc.hosts)
          if (!(item.kind == HostListItem::Kind::kName && item.name == "default")) named.push_back(item);
        check_host_list(named, e.where, context, "LOCATION");
      }
    }
    for (const auto& r : cfg_.remote_clusters)
      if (std::none_of(cfg_.clusters.begin(), cfg_.clusters.end(),
                       [&](const ClusterDef& c) { return c.name == r.name; }))
        diags_.warning(r.where,
                       "RemoteClusters: cluster \"" + r.name + "\" is not in lsf.shared's Cluster section; ignored");
    if (cfg_.cluster_admins.empty())
      diags_.warning({"lsf.cluster." + cfg_.cluster_name, 0}, "no ClusterAdmins: only root may administer the cluster");
  }

  // ---- lsb.params ----

  void check_params() {
    const auto& p = cfg_.params;
    check_queue_names(p.default_queues, p.keys.of("DEFAULT_QUEUE", p.where), "lsb.params", "DEFAULT_QUEUE", false);
    if (!p.default_host_spec.empty() && !cfg_.find_host(p.default_host_spec) &&
        !cfg_.find_host_model(p.default_host_spec))
      diags_.error(p.keys.of("DEFAULT_HOST_SPEC", p.where),
                   "DEFAULT_HOST_SPEC names unknown host or model \"" + p.default_host_spec + "\"");
    if (!p.default_application.empty() && !cfg_.find_application(p.default_application))
      diags_.error(
          p.keys.of("DEFAULT_APPLICATION", p.where),
          "DEFAULT_APPLICATION names unknown application profile \"" + p.default_application + "\" (lsb.applications)");
  }

  // ---- lsb.queues ----

  void check_host_spec(const std::optional<DefaultAndMax<TimeLimit>>& limit, const Queue& q, const std::string& key) {
    if (!limit) return;
    for (const TimeLimit* t : {&limit->maximum, limit->default_value ? &*limit->default_value : nullptr}) {
      if (!t || t->host_spec.empty()) continue;
      if (!cfg_.find_host(t->host_spec) && !cfg_.find_host_model(t->host_spec))
        diags_.error(q.keys.of(key, q.where), "queue \"" + q.name + "\": " + key + " is normalised to \"" +
                                                  t->host_spec + "\", which is neither a host nor a host model");
    }
  }

  void check_queues() {
    for (const auto& q : cfg_.queues) {
      std::string context = "queue \"" + q.name + "\"";
      check_host_list(q.hosts, q.keys.of("HOSTS", q.where), context, "HOSTS");
      check_user_list(q.users, q.keys.of("USERS", q.where), context, "USERS");
      check_user_list(q.administrators, q.keys.of("ADMINISTRATORS", q.where), context, "ADMINISTRATORS");
      check_host_spec(q.run_limit, q, "RUNLIMIT");
      check_host_spec(q.cpu_limit, q, "CPULIMIT");
      auto where = q.keys.of("PREEMPTION", q.where);
      for (const auto& p : q.preemption.preemptive) {
        if (p.kind != HostListItem::Kind::kName || !is_queue_name(p.name))
          diags_.error(where, context + ": PREEMPTION names unknown queue \"" + p.to_string() + "\"");
        else if (p.name == q.name)
          diags_.error(where, context + ": PREEMPTION: a queue cannot preempt itself");
      }
      check_queue_names(q.preemption.preemptable, where, context, "PREEMPTION", false);
      check_queue_names(q.fairshare_queues, q.keys.of("FAIRSHARE_QUEUES", q.where), context, "FAIRSHARE_QUEUES", false);
      if (q.dispatch_order_queue && q.fairshare_queues.empty())
        diags_.warning(q.keys.of("DISPATCH_ORDER", q.where),
                       context + ": DISPATCH_ORDER = QUEUE has no effect without FAIRSHARE_QUEUES");
      for (const auto& fq : q.fairshare_queues) {
        const Queue* other = cfg_.find_queue(fq);
        if (other && !other->slot_pool.empty())
          diags_.warning(q.keys.of("FAIRSHARE_QUEUES", q.where),
                         context + ": FAIRSHARE_QUEUES includes queue \"" + fq + "\" of slot pool \"" +
                             other->slot_pool + "\"; cross-queue fairshare can override the pool's shares");
      }
      if (q.fairshare) {
        for (const auto& share : *q.fairshare) {
          std::string name = share.name;
          bool per_member = !name.empty() && name.back() == '@';
          if (per_member) name.pop_back();
          check_user_name(name, per_member, q.keys.of("FAIRSHARE", q.where), context, "FAIRSHARE");
        }
      }
      if (q.exclusive && !q.slot_pool.empty())
        diags_.warning(q.keys.of("EXCLUSIVE", q.where), context + ": exclusive jobs in a slot pool queue");
    }
  }

  // ---- lsb.hosts ----

  void check_batch_hosts() {
    for (const auto& h : cfg_.batch_hosts)
      if (!is_host_like(h.name, true))
        diags_.error(h.where, "host \"" + h.name + "\": HOST_NAME is not a host, host model, host type or default");
    for (const auto& p : cfg_.host_partitions) {
      std::string context = "host partition \"" + p.name + "\"";
      check_host_list(p.hosts, p.keys.of("HOSTS", p.where), context, "HOSTS", false);
      // LSF refuses both kinds of fairshare in one cluster; here a queue with FAIRSHARE
      // keeps its own tree, which a site moving to LSF would have to change.
      for (const auto& q : cfg_.queues)
        if (q.fairshare) {
          diags_.warning(p.where, context + ": queue \"" + q.name +
                                      "\" has FAIRSHARE too; LSF does not allow queue-level and "
                                      "host-partition fairshare in one cluster (the queue keeps its own)");
          break;
        }
      for (const auto& share : p.user_shares) {
        std::string name = share.name;
        bool per_member = !name.empty() && name.back() == '@';
        if (per_member) name.pop_back();
        check_user_name(name, per_member, p.keys.of("USER_SHARES", p.where), context, "USER_SHARES");
      }
    }
    for (const auto& cu : cfg_.compute_units) {
      std::string context = "compute unit \"" + cu.name + "\"";
      check_host_list(cu.members, cu.where, context, "MEMBER", false);
      const auto& types = cfg_.params.compute_unit_types;
      if (!cu.type.empty() && std::find(types.begin(), types.end(), cu.type) == types.end())
        diags_.error(cu.where, context + ": TYPE \"" + cu.type + "\" is not in COMPUTE_UNIT_TYPES of lsb.params");
    }
  }

  void check_host_groups() {
    for (const auto& g : cfg_.host_groups) {
      std::string context = "host group \"" + g.name + "\"";
      if (cfg_.find_host(g.name)) diags_.error(g.where, context + ": the name is also a host name");
      check_host_list(g.members, g.where, context, "GROUP_MEMBER", false);
      std::set<std::string> path{g.name}, cleared;
      if (cycle_from(g, path, cleared)) diags_.error(g.where, context + ": GROUP_MEMBER includes the group itself");
    }
  }

  // `cleared`: groups already searched from here with no cycle found; not searched
  // again, so groups nested as a lattice take linear, not exponential, time.
  bool cycle_from(const HostGroup& g, std::set<std::string>& path, std::set<std::string>& cleared) {
    for (const auto& m : g.members) {
      if (m.kind != HostListItem::Kind::kName || m.exclude) continue;
      const HostGroup* sub = cfg_.find_host_group(m.name);
      if (!sub) continue;
      if (path.count(sub->name)) return true;
      if (cleared.count(sub->name)) continue;
      path.insert(sub->name);
      if (cycle_from(*sub, path, cleared)) return true;
      path.erase(sub->name);
      cleared.insert(sub->name);
    }
    return false;
  }

  // ---- lsb.users ----

  bool user_cycle_from(const UserGroup& g, std::set<std::string>& path, std::set<std::string>& cleared) {
    for (const auto& m : g.members) {
      if (m.kind != UserListItem::Kind::kName) continue;
      const UserGroup* sub = cfg_.find_user_group(m.name);
      if (!sub) continue;
      if (path.count(sub->name)) return true;
      if (cleared.count(sub->name)) continue;
      path.insert(sub->name);
      if (user_cycle_from(*sub, path, cleared)) return true;
      path.erase(sub->name);
      cleared.insert(sub->name);
    }
    return false;
  }

  void check_user_groups() {
    for (const auto& g : cfg_.user_groups) {
      std::string context = "user group \"" + g.name + "\"";
      check_user_list(g.members, g.where, context, "GROUP_MEMBER");
      std::set<std::string> path{g.name}, cleared;
      if (user_cycle_from(g, path, cleared))
        diags_.error(g.where, context + ": GROUP_MEMBER includes the group itself");
      bool all_members = std::any_of(g.members.begin(), g.members.end(),
                                     [](const UserListItem& m) { return m.kind == UserListItem::Kind::kAll; });
      for (const auto& share : g.user_shares) {
        std::string name = share.name;
        if (!name.empty() && name.back() == '@') name.pop_back();
        bool member =
            all_members || g.external || name == "default" || name == "others" ||
            std::any_of(g.members.begin(), g.members.end(), [&](const UserListItem& m) { return m.name == name; });
        if (!member)
          diags_.warning(g.where, context + ": USER_SHARES gives a share to \"" + share.name +
                                      "\", which is not a member of the group");
      }
    }
  }

  void check_user_limits() {
    for (const auto& u : cfg_.user_limits)
      if (u.per_member && !cfg_.find_user_group(u.name))
        diags_.error(u.where, "user \"" + u.name + "@\": USER_NAME names unknown user group \"" + u.name + "\"");
  }

  // ---- lsb.resources ----

  void check_limits() {
    for (const auto& l : cfg_.limits) {
      std::string context = l.name.empty() ? "Limit" : "limit \"" + l.name + "\"";
      const char* qkey = l.per_queue ? "PER_QUEUE" : "QUEUES";
      const char* hkey = l.per_host ? "PER_HOST" : "HOSTS";
      const char* ukey = l.per_user ? "PER_USER" : "USERS";
      check_queue_names(l.queues, l.keys.of(qkey, l.where), context, qkey, true);
      check_host_list(l.hosts, l.keys.of(hkey, l.where), context, hkey);
      check_user_list(l.users, l.keys.of(ukey, l.where), context, ukey);
      for (const auto& r : l.resources)
        if (!cfg_.find_resource(r.name))
          diags_.error(l.keys.of("RESOURCE", l.where),
                       context + ": RESOURCE names \"" + r.name + "\", which lsf.shared does not define");
    }
  }

  void check_guarantee_pools() {
    for (const auto& p : cfg_.guarantee_pools) {
      std::string context = "guarantee pool \"" + p.name + "\"";
      check_host_list(p.hosts, p.keys.of("HOSTS", p.where), context, "HOSTS", false);
      double percent = 0;
      for (const auto& d : p.distribution) {
        const ServiceClass* sc = cfg_.find_service_class(d.name);
        auto where = p.keys.of("DISTRIBUTION", p.where);
        if (!sc)
          diags_.error(where, context + ": DISTRIBUTION names unknown service class \"" + d.name + "\"");
        else if (!sc->guarantee)
          diags_.error(where, context + ": DISTRIBUTION names service class \"" + d.name +
                                  "\", which has no GOALS = [GUARANTEE]");
        if (d.percent) percent += d.amount;
      }
      if (percent > 100)
        diags_.warning(p.keys.of("DISTRIBUTION", p.where), context + ": DISTRIBUTION guarantees " +
                                                               std::to_string(static_cast<int>(percent)) +
                                                               "% of the pool; the pool is overcommitted");
      if (p.loan_policies) {
        check_queue_names(p.loan_policies->queues, p.keys.of("LOAN_POLICIES", p.where), context, "LOAN_POLICIES",
                          false);
      }
      if (p.type.kind == PoolType::Kind::kResource && !cfg_.find_resource(p.type.resource))
        diags_.error(p.keys.of("TYPE", p.where),
                     context + ": TYPE resource[" + p.type.resource + "] names a resource lsf.shared does not define");
    }
    // Each host belongs to at most one slot, host or package pool: the first, in
    // configuration order, whose HOSTS and RES_SELECT it matches.
    std::vector<std::optional<std::set<std::string>>> pool_hosts;  // nullopt: HOSTS not given (all)
    for (const auto& p : cfg_.guarantee_pools)
      pool_hosts.push_back(p.hosts.empty() ? std::nullopt : std::optional(resolve_host_list(cfg_, p.hosts)));
    for (const auto& host : cfg_.hosts) {
      const GuaranteePool* owner = nullptr;
      for (size_t i = 0; i < cfg_.guarantee_pools.size(); ++i) {
        const GuaranteePool& p = cfg_.guarantee_pools[i];
        if (p.type.kind == PoolType::Kind::kResource || !pool_matches(p, pool_hosts[i], host)) continue;
        if (!owner) {
          owner = &p;
          continue;
        }
        diags_.warning(p.where, "guarantee pool \"" + p.name + "\": host \"" + host.name +
                                    "\" also matches guarantee pool \"" + owner->name + "\" (line " +
                                    std::to_string(owner->where.line) + "), which comes first and gets it");
      }
    }
  }

  bool pool_matches(const GuaranteePool& p, const std::optional<std::set<std::string>>& hosts,
                    const ClusterHost& host) {
    if (hosts && !hosts->count(host.name)) return false;
    if (!p.res_select || p.res_select->select.empty()) return true;
    // A RES_SELECT on load or run-time values cannot be judged from files; assume it matches.
    if (!statically_decidable(cfg_, p.res_select->select)) return true;
    return p.res_select->select.matches([&](std::string_view name) { return static_host_resource(cfg_, host, name); });
  }

  void check_exports() {
    for (const auto& e : cfg_.host_exports) {
      check_host_list(e.per_host, e.keys.of("PER_HOST", e.where), "HostExport", "PER_HOST", false);
      for (const auto& name : resolve_host_list(cfg_, e.per_host)) {
        const ClusterHost* h = cfg_.find_host(name);
        if (h && h->type == "DLINUX" && !e.swp_mb)
          diags_.error(e.keys.of("PER_HOST", e.where),
                       "HostExport: host \"" + name + "\" is of type DLINUX, which needs SWP in its export");
      }
      for (const auto& d : e.distribution)
        if (!cfg_.is_known_cluster(d.name) || d.name == cfg_.cluster_name)
          diags_.error(e.keys.of("DISTRIBUTION", e.where),
                       "HostExport: DISTRIBUTION names unknown cluster \"" + d.name + "\"");
    }
    for (const auto& e : cfg_.shared_resource_exports) {
      std::string context = "shared resource export \"" + e.name + "\"";
      const ResourceDef* def = cfg_.find_resource(e.name);
      if (!def || def->type != ResourceDef::Type::kNumeric)
        diags_.error(e.keys.of("NAME", e.where), context + ": NAME must be a Numeric resource of lsf.shared");
      for (const auto& d : e.distribution)
        if (!cfg_.is_known_cluster(d.name) || d.name == cfg_.cluster_name)
          diags_.error(e.keys.of("DISTRIBUTION", e.where),
                       context + ": DISTRIBUTION names unknown cluster \"" + d.name + "\"");
    }
  }

  void check_service_classes() {
    for (const auto& sc : cfg_.service_classes) {
      std::string context = "service class \"" + sc.name + "\"";
      check_queue_names(sc.access_queues, sc.keys.of("ACCESS_CONTROL", sc.where), context, "ACCESS_CONTROL", false);
      if (cfg_.find_user_group(sc.name)) diags_.error(sc.where, context + ": the name is also a user group name");
      for (const auto& hp : cfg_.host_partitions)
        if (hp.name == sc.name) diags_.error(sc.where, context + ": the name is also a host partition name");
    }
  }

  // Queue-based fairshare: queues of one SLOT_POOL share hosts, are neither preemptive
  // nor preemptable, have no SLOT_RESERVE, and their SLOT_SHAREs add up to at most 100.
  void check_slot_pools() {
    std::map<std::string, std::vector<const Queue*>> pools;
    for (const auto& q : cfg_.queues)
      if (!q.slot_pool.empty()) pools[q.slot_pool].push_back(&q);
    for (const auto& [name, queues] : pools) {
      const Queue* first = queues.front();
      auto first_hosts = resolve_host_list(cfg_, first->hosts.empty() ? all_hosts() : first->hosts);
      double total = 0;
      for (const Queue* q : queues) {
        std::string context = "queue \"" + q->name + "\"";
        auto where = q->keys.of("SLOT_POOL", q->where);
        if (!q->slot_share)
          diags_.error(where, context + ": SLOT_POOL \"" + name + "\" needs a SLOT_SHARE");
        else
          total += *q->slot_share;
        if (q != first && resolve_host_list(cfg_, q->hosts.empty() ? all_hosts() : q->hosts) != first_hosts)
          diags_.error(where, context + ": uses other hosts than queue \"" + first->name +
                                  "\" of the same SLOT_POOL \"" + name +
                                  "\"; queues of a pool must use the same hosts");
        bool preemptive = !q->preemption.preemptive.empty() || q->preemption.preemptive_all;
        bool preemptable = !q->preemption.preemptable.empty() || q->preemption.preemptable_all;
        for (const auto& other : cfg_.queues)
          for (const auto& p : other.preemption.preemptive)
            if (p.name == q->name) preemptable = true;
        if (preemptive || preemptable)
          diags_.error(q->keys.of("PREEMPTION", where), context + ": a queue of SLOT_POOL \"" + name +
                                                            "\" may not be " +
                                                            (preemptive ? "preemptive" : "preemptable"));
        if (q->slot_reserve_time)
          diags_.error(q->keys.of("SLOT_RESERVE", where),
                       context + ": a queue of SLOT_POOL \"" + name + "\" may not have SLOT_RESERVE");
        if (q != first && (q->max_slots_in_pool || q->use_priority_in_pool))
          diags_.warning(where, context +
                                    ": MAX_SLOTS_IN_POOL and USE_PRIORITY_IN_POOL are read from the pool's "
                                    "first queue, \"" +
                                    first->name + "\"; here they are ignored");
      }
      if (total > 100) {
        std::string shares;
        for (const Queue* q : queues)
          if (q->slot_share) shares += (shares.empty() ? "" : " + ") + format_number(*q->slot_share);
        diags_.error(first->keys.of("SLOT_SHARE", first->where), "slot pool \"" + name + "\": SLOT_SHARE adds up to " +
                                                                     format_number(total) + " (" + shares +
                                                                     "), more than 100");
      }
    }
  }

  std::vector<HostListItem> all_hosts() const {
    HostListItem all;
    all.kind = HostListItem::Kind::kAll;
    return {all};
  }

  void check_modules() {
    static constexpr std::string_view kKnown[] = {
        "schmod_default",   "schmod_fcfs",     "schmod_fairshare",  "schmod_limit",     "schmod_parallel",
        "schmod_reserve",   "schmod_backfill", "schmod_preemption", "schmod_advrsv",    "schmod_mc",
        "schmod_jobweight", "schmod_cpuset",   "schmod_pset",       "schmod_ps",        "schmod_aps",
        "schmod_affinity",  "schmod_demand",   "schmod_slotpool",   "schmod_guarantee", "schmod_throttle",
        "schmod_priority",  "schmod_dc"};
    for (const auto& m : cfg_.modules) {
      bool known = std::any_of(std::begin(kKnown), std::end(kKnown), [&](std::string_view k) { return k == m.name; });
      if (!known)
        diags_.warning(m.where, "module \"" + m.name + "\" is not a module this scheduler has; it is ignored");
    }
    if (cfg_.modules_configured && std::none_of(cfg_.modules.begin(), cfg_.modules.end(),
                                                [](const SchedulerModule& m) { return m.name == "schmod_default"; }))
      diags_.error(cfg_.modules.empty() ? SourceLocation{"lsb.modules", 0} : cfg_.modules.front().where,
                   "lsb.modules must list schmod_default");
  }

  const ClusterConfig& cfg_;
  const CheckOptions& opt_;
  Diagnostics& diags_;
};

}  // namespace

void check_cluster_config(const ClusterConfig& config, const CheckOptions& options, Diagnostics& diags) {
  Checker(config, options, diags).run();
}

}  // namespace lsf::config
