// schmod_guarantee: guaranteed resource pools (lsb.resources GuaranteedResourcePool)
// for service classes (bsub -sla). Each pass, per pool: its total and free packages on
// its available hosts, what each class is guaranteed (percentages of the total, rounded
// down) and uses, and what is held back for guarantees not yet used. A job may take
// packages of a pool host only while what stays free covers what is held back, except:
// a job of a class with unused guarantee may use its own part, and a job the pool's
// LOAN_POLICIES allow may borrow the held part. Jobs are not reordered: holding back is
// what puts owners ahead.
//
// A package is package[slots=n:mem=m] on one host (slots pools: one slot; hosts pools:
// a whole free host). A job holds ceil(its slots there / n) packages on a host.
// Loans go only to jobs with a run limit (within DURATION when given), so an owner never
// waits longer than a loaned job's run limit; CLOSE_ON_DEMAND stops loans while any
// owner with unused guarantee has a job pending.
#include "libsched/modules/schmod_guarantee.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

using Kind = config::PoolType::Kind;

class GuaranteeModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_guarantee"; }

  void prepare(PassContext& ctx) override {
    const auto& policies = ctx.policy.guarantee_pools;
    if (policies.empty()) return;
    const HostTable& table = ctx.host_table();
    pool_of_ = table.guarantee_pool;
    pools_.assign(policies.size(), Pool{});
    free_.assign(ctx.view.hosts.size(), 0);
    for (size_t p = 0; p < policies.size(); ++p) pools_[p].policy = &policies[p];
    for (size_t h = 0; h < ctx.view.hosts.size(); ++h) {
      int p = pool_of_[h];
      if (p < 0) continue;
      Pool& pool = pools_[static_cast<size_t>(p)];
      if (!available(ctx.view.hosts[h].status)) {
        pool_of_[h] = -2 - p;  // a member, out of the pool for now
        continue;
      }
      pool.total += packages(*pool.policy, ctx.hosts[h].max_slots, total_mem(ctx, static_cast<int>(h)));
      free_[h] = free_packages(ctx, *pool.policy, static_cast<int>(h));
      pool.free += free_[h];
    }
    for (auto& pool : pools_) {
      for (const auto& share : pool.policy->distribution) {
        int g = share.percent ? static_cast<int>(std::floor(share.amount * pool.total / 100.0 + 1e-9))
                              : static_cast<int>(share.amount);
        pool.guaranteed[share.service_class] = g;
        pool.used[share.service_class] = 0;
      }
    }
    // What SLA jobs hold on available pool hosts counts toward their class.
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const auto& job = ctx.view.running[i];
      std::optional<double> mem;  // rusage[mem] per slot, worked out once the job touches a pool
      for (auto [h, n] : ctx.slots_of(i)) {
        int p = pool_of_[static_cast<size_t>(h)];
        if (p < 0) continue;
        Pool& pool = pools_[static_cast<size_t>(p)];
        if (auto u = pool.used.find(job.sla); !job.sla.empty() && u != pool.used.end())
          u->second += held_packages(*pool.policy, n);
        if (!mem) {
          mem = 0.0;
          for (const auto& [name, amount] : ctx.usage(job.res_req.get(), job.start_time).per_slot)
            if (name == "mem") mem = amount;
        }
        count_use(pool, job.sla, n, *mem);
      }
    }
    for (auto& pool : pools_) pool.held = held(pool);
    // Owners with unused guarantee and a job pending (CLOSE_ON_DEMAND).
    for (const auto& job : ctx.view.pending) {
      if (job.sla.empty()) continue;
      for (auto& pool : pools_)
        if (auto g = pool.guaranteed.find(job.sla); g != pool.guaranteed.end() && pool.used[job.sla] < g->second)
          pool.owner_demand = true;
    }
  }

  bool active(const PassContext&) const override { return !pools_.empty(); }

  // A job of a class guaranteed in a package pool takes whole packages.
  std::optional<std::string> admit(PassContext&, const JobView& job) override {
    if (job.sla.empty()) return std::nullopt;
    for (const auto& pool : pools_) {
      const GuaranteePolicy& p = *pool.policy;
      if (p.kind != Kind::kPackage || p.package_slots <= 1 || !pool.guaranteed.count(job.sla)) continue;
      if (job.min_slots % p.package_slots != 0 || job.max_slots % p.package_slots != 0)
        return "The job's slots (" + std::to_string(job.min_slots) + ") are not a whole number of packages of " +
               std::to_string(p.package_slots) + " slots in guarantee pool <" + p.name + ">";
    }
    return std::nullopt;
  }

  int room(const PassContext& ctx, const JobView& job, int h, const char** why) override {
    if (pools_.empty() || pool_of_[static_cast<size_t>(h)] < 0) return kUnlimited;
    const Pool& pool = pools_[static_cast<size_t>(pool_of_[static_cast<size_t>(h)])];
    const int budget = budget_of(ctx, pool, job);
    const int free = free_[static_cast<size_t>(h)];
    if (budget >= free) return kUnlimited;
    const GuaranteePolicy& p = *pool.policy;
    // The most slots that leave the host `keep` packages.
    const int keep = free - budget;
    int most = kUnlimited;
    if (p.kind == Kind::kHosts) {
      most = 0;  // a free host is one package: taking any of it takes it all
    } else {
      if (p.package_slots > 0) most = ctx.hosts[h].free() - keep * p.package_slots;
      if (p.package_mem > 0) {
        double per_slot = mem_per_slot(ctx, job);
        if (per_slot > 0) {
          double left = ctx.numeric(h, "mem") - static_cast<double>(keep * p.package_mem);
          most = std::min(most, static_cast<int>(std::floor(left / per_slot + 1e-9)));
        }
      }
    }
    if (most <= 0) {
      *why = reason::kHostGuaranteed;
      return 0;
    }
    return most;
  }

  // room() judges one host at a time; a job spanning pool hosts must fit the budget
  // over all of them.
  std::optional<std::string> verify(const PassContext& ctx, const JobView& job, const Candidates&,
                                    const Placement& placement) override {
    if (pools_.empty()) return std::nullopt;
    std::map<int, int> taken;  // pool -> packages
    for (auto [h, n] : placement.hosts) {
      int p = pool_of_[static_cast<size_t>(h)];
      if (p >= 0) taken[p] += taken_packages(ctx, pools_[static_cast<size_t>(p)], job, h, n);
    }
    for (auto [p, n] : taken)
      if (n > budget_of(ctx, pools_[static_cast<size_t>(p)], job)) return std::string(reason::kGuaranteeLoan);
    return std::nullopt;
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& placement) override {
    if (pools_.empty()) return;
    for (auto [h, n] : placement.hosts) {
      int p = pool_of_[static_cast<size_t>(h)];
      if (p < 0) continue;
      Pool& pool = pools_[static_cast<size_t>(p)];
      int now_free = free_packages(ctx, *pool.policy, h);
      pool.free -= free_[static_cast<size_t>(h)] - now_free;
      free_[static_cast<size_t>(h)] = now_free;
      if (auto u = pool.used.find(job.sla); !job.sla.empty() && u != pool.used.end())
        u->second += held_packages(*pool.policy, n);
      pool.held = held(pool);
      count_use(pool, job.sla, n, mem_per_slot(ctx, job));
    }
  }

  void finish(PassContext& ctx) override {
    for (size_t p = 0; p < pools_.size(); ++p) {
      const Pool& pool = pools_[p];
      GuaranteeReport r;
      r.pool = pool.policy->name;
      r.type = pool.policy->type_text;
      r.total = pool.total;
      r.free = pool.free;
      r.package_slots = pool.policy->kind == Kind::kHosts ? 0 : pool.policy->package_slots;
      r.package_mem = pool.policy->package_mem;
      int guaranteed = 0;
      for (const auto& share : pool.policy->distribution) {
        GuaranteeReport::Owner o{
            share.service_class, pool.guaranteed.at(share.service_class), pool.used.at(share.service_class), {}};
        if (auto u = pool.class_use.find(share.service_class); u != pool.class_use.end()) o.use = u->second;
        guaranteed += o.guaranteed;
        r.owner_use.slots += o.use.slots;
        r.owner_use.mem += o.use.mem;
        r.owners.push_back(std::move(o));
      }
      r.overcommitted = guaranteed > pool.total;
      // What others hold beyond the part of the pool nobody is guaranteed is on loan.
      const int open_slots = r.package_slots * std::max(0, pool.total - guaranteed);
      r.loan_use.slots = std::max(0, pool.others.slots - open_slots);
      r.other_use.slots = pool.others.slots - r.loan_use.slots;
      if (pool.others.slots > 0) {
        r.loan_use.mem = pool.others.mem * r.loan_use.slots / pool.others.slots;
        r.other_use.mem = pool.others.mem - r.loan_use.mem;
      }
      for (size_t h = 0; h < ctx.view.hosts.size(); ++h) {
        int member = pool_of_[h] >= -1 ? pool_of_[h] : -2 - pool_of_[h];
        if (member != static_cast<int>(p)) continue;
        GuaranteeReport::Host host;
        host.name = ctx.view.hosts[h].name;
        host.available = pool_of_[h] >= 0;
        if (host.available) {
          host.total = packages(*pool.policy, ctx.hosts[h].max_slots, total_mem(ctx, static_cast<int>(h)));
          host.free = free_[h];
          r.slots_total += std::max(0, ctx.hosts[h].max_slots);
          r.slots_free += std::max(0, ctx.hosts[h].free());
          double mem = total_mem(ctx, static_cast<int>(h)), left = ctx.numeric(static_cast<int>(h), "mem");
          if (!std::isnan(mem)) r.mem_total += mem;
          if (!std::isnan(left)) r.mem_free += left;
        }
        r.hosts.push_back(std::move(host));
      }
      ctx.result.guarantees.push_back(std::move(r));
    }
  }

 private:
  struct Pool {
    const GuaranteePolicy* policy = nullptr;
    int total = 0, free = 0, held = 0;
    std::map<std::string, int, std::less<>> guaranteed, used;
    bool owner_demand = false;
    std::map<std::string, GuaranteeReport::Use, std::less<>> class_use;  // owners' slots and memory
    GuaranteeReport::Use others;                                         // everyone else's
  };

  // Slots and memory a job holds on a host of the pool, for the report.
  static void count_use(Pool& pool, const std::string& sla, int slots, double mem_per_slot) {
    GuaranteeReport::Use& u = !sla.empty() && pool.guaranteed.count(sla) ? pool.class_use[sla] : pool.others;
    u.slots += slots;
    u.mem += mem_per_slot * slots;
  }

  // Hosts in these states count toward their pool; others leave it for the time being.
  static bool available(HostStatus status) { return !unreachable(status) && status != HostStatus::kClosedAdm; }

  static double total_mem(const PassContext& ctx, int h) { return ctx.column("maxmem")[static_cast<size_t>(h)]; }

  // Packages that fit `slots` and `mem` MB (NaN: the host reports no memory).
  static int packages(const GuaranteePolicy& p, int slots, double mem) {
    if (p.kind == Kind::kHosts) return 1;
    int n = kUnlimited;
    if (p.package_slots > 0) n = std::max(0, slots) / p.package_slots;
    if (p.package_mem > 0 && !std::isnan(mem))
      n = std::min(n, static_cast<int>(std::floor(mem / static_cast<double>(p.package_mem) + 1e-9)));
    return n == kUnlimited ? 0 : n;
  }

  static int free_packages(const PassContext& ctx, const GuaranteePolicy& p, int h) {
    const HostState& hs = ctx.hosts[static_cast<size_t>(h)];
    if (p.kind == Kind::kHosts) return hs.jobs == 0 && !hs.exclusive ? 1 : 0;
    return packages(p, hs.free(), ctx.numeric(h, "mem"));
  }

  // Packages a job's `slots` on one host hold.
  static int held_packages(const GuaranteePolicy& p, int slots) {
    if (p.kind == Kind::kHosts || p.package_slots <= 0) return 1;
    return (slots + p.package_slots - 1) / p.package_slots;
  }

  // Packages a placement of `slots` on host h takes from what is free.
  int taken_packages(const PassContext& ctx, const Pool& pool, const JobView& job, int h, int slots) const {
    const GuaranteePolicy& p = *pool.policy;
    const int free = free_[static_cast<size_t>(h)];
    if (p.kind == Kind::kHosts) return free;
    int slots_left = ctx.hosts[static_cast<size_t>(h)].free() - slots;
    double mem_left = ctx.numeric(h, "mem");
    if (!std::isnan(mem_left)) mem_left -= mem_per_slot(ctx, job) * slots;
    return free - packages(p, slots_left, mem_left);
  }

  static double mem_per_slot(const PassContext& ctx, const JobView& job) {
    for (const auto& [name, amount] : ctx.demand(job.res_req.get()).per_slot)
      if (name == "mem") return amount;
    return 0;
  }

  static int held(const Pool& pool) {
    int held = 0;
    for (const auto& [sc, g] : pool.guaranteed) held += std::max(0, g - pool.used.at(sc));
    return held;
  }

  // Packages of the pool the job may take now.
  static int budget_of(const PassContext& ctx, const Pool& pool, const JobView& job) {
    int own = 0;
    if (!job.sla.empty())
      if (auto g = pool.guaranteed.find(job.sla); g != pool.guaranteed.end())
        own = std::max(0, g->second - pool.used.at(job.sla));
    int budget = std::max(0, pool.free - pool.held) + own;
    if (may_borrow(ctx, pool, job)) budget = pool.free;
    return std::min(budget, pool.free);
  }

  static bool may_borrow(const PassContext& ctx, const Pool& pool, const JobView& job) {
    const auto& loans = pool.policy->loans;
    if (!loans || job.run_limit_s <= 0) return false;
    const std::string& queue = ctx.policy.queues[static_cast<size_t>(job.queue)].name;
    if (!loans->all_queues && std::find(loans->queues.begin(), loans->queues.end(), queue) == loans->queues.end())
      return false;
    if (loans->duration_minutes && job.run_limit_s > static_cast<std::int64_t>(*loans->duration_minutes) * 60)
      return false;
    return !(loans->close_on_demand && pool.owner_demand);
  }

  std::vector<Pool> pools_;
  std::vector<int> pool_of_;  // per host: its pool; -2 - pool for a member out of it now; -1: none
  std::vector<int> free_;     // per host: free packages
};

}  // namespace

std::unique_ptr<Module> make_schmod_guarantee() { return std::make_unique<GuaranteeModule>(); }
// Last: what it counts after a placement includes what every other module took
// (rusage[] memory).
constinit const ModuleDecl kSchmodGuarantee{
    "schmod_guarantee", Phase::kClose, {"schmod_throttle"}, make_schmod_guarantee};

}  // namespace lsf::sched
