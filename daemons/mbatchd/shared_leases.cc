// Shared leases (HostExport TYPE=shared): the exported slots of a host float between the
// provider and its one consumer. At first the consumer has one slot and the provider the
// rest. Every MC_RECLAIM_DELAY minutes each side keeps the slots its jobs use, and the
// idle slots of both (available - used on each side) all go to the side whose pending
// jobs ask for more; with equal demand nothing moves. The consumer's demand is what it
// answers each offer with (LeaseOfferReply.pending_slots).
//
// The split lives in this mbatchd's memory only: after a restart the consumer starts
// again from one slot, or from what its running jobs use if that is more.
#include <algorithm>
#include <set>

#include "daemons/mbatchd/cluster_links.h"
#include "libconfig/host_resolution.h"

namespace lsf::mbd {

int ClusterLinks::consumer_used_slots(const std::string& host, const std::string& consumer) const {
  int used = 0;
  for (const auto& h : holdings())
    if (h.host == host && h.consumer == consumer) used += h.slots;
  return used;
}

int ClusterLinks::offered_slots(const sched::mc::HostGrant& g) const {
  if (!g.shared) return g.slots;
  auto it = shared_slots_.find({g.host, g.cluster});
  const int share = it == shared_slots_.end() ? 1 : it->second;
  return std::clamp(std::max(share, consumer_used_slots(g.host, g.cluster)), 0, g.slots);
}

int ClusterLinks::own_demand_for(const std::string& host) const {
  std::map<std::string, bool> queue_takes;  // by queue: whether its HOSTS hold `host`
  for (const auto& q : conf().queues) {
    bool takes = q.hosts.empty();
    if (!takes) {
      const auto names = config::resolve_host_list(conf(), q.hosts);
      takes = std::find(names.begin(), names.end(), host) != names.end();
    }
    queue_takes[q.name] = takes;
  }
  int demand = 0;
  for (const auto& [key, job] : ctx_.state.pending()) {
    if (job->state != wire::JOB_PEND || !queue_takes[job->queue]) continue;
    const auto& asked = job->spec().asked_hosts();
    if (!asked.empty() && std::find(asked.begin(), asked.end(), host) == asked.end()) continue;
    demand += std::max(1, job->spec().min_processors());
  }
  return demand;
}

int ClusterLinks::demand_for_provider(const std::string& provider) const {
  const auto policy_ptr = hooks_.policy();
  const auto& policy = *policy_ptr;
  std::vector<bool> takes(policy.queues.size());
  for (size_t i = 0; i < policy.queues.size(); ++i) {
    const auto& q = policy.queues[i];
    bool t = q.all_remote || q.remote_clusters.count(provider);
    for (const auto& h : q.remote_hosts) t = t || borrowed_from(h) == provider;
    takes[i] = t;
  }
  int demand = 0;
  for (const auto& [key, job] : ctx_.state.pending()) {
    if (job->state != wire::JOB_PEND) continue;
    const int qi = policy.queue_index(job->queue);
    if (qi < 0 || !takes[static_cast<size_t>(qi)]) continue;
    const auto& asked = job->spec().asked_hosts();
    if (!asked.empty() &&
        std::none_of(asked.begin(), asked.end(), [&](const std::string& h) { return borrowed_from(h) == provider; }))
      continue;
    demand += std::max(1, job->spec().min_processors());
  }
  return demand;
}

void ClusterLinks::reclaim_shared() {
  const auto plan = export_plan();
  bool moved = false;
  for (const auto& g : plan.hosts) {
    if (!g.shared) continue;
    const int share = offered_slots(g);
    const int used_by_consumer = consumer_used_slots(g.host, g.cluster);
    int used_here = 0;
    if (auto st = ctx_.state.hosts().find(g.host); st != ctx_.state.hosts().end())
      used_here = st->second.counts.run + st->second.counts.ssusp + st->second.counts.ususp;
    const int idle = std::max(0, share - used_by_consumer) + std::max(0, g.slots - share - used_here);
    auto demand = consumer_demand_.find(g.cluster);
    const int theirs = demand == consumer_demand_.end() ? 0 : demand->second;
    const int ours = own_demand_for(g.host);
    int next = share;
    if (theirs > ours) next = used_by_consumer + idle;
    if (ours > theirs) next = used_by_consumer;
    next = std::clamp(next, 0, g.slots);
    if (next == share) continue;
    shared_slots_[{g.host, g.cluster}] = next;
    moved = true;
    ctx_.log->info("shared lease of {}: cluster {} has {} of its {} slots (demand: {} there, {} here)", g.host,
                   g.cluster, next, g.slots, theirs, ours);
  }
  if (moved) {
    update_lent_slots();
    offer_to_consumers();
    hooks_.request_pass();
  }
}

std::shared_ptr<const sched::SchedPolicy> ClusterLinks::policy_with_leased_resources() const {
  const auto base = hooks_.policy();
  std::map<std::string, double> change;  // by resource: + borrowed, - lent
  std::set<std::string, std::less<>> reached;
  for (const auto& [name, link] : links_) {
    if (offer_is_current(link))
      for (const auto& r : link.offer.resources()) change[r.name()] += r.instances();
    if (link.reached) reached.insert(name);
  }
  // Exclusive: what a reached consumer is offered is not this cluster's to use.
  if (!reached.empty() && !conf().shared_resource_exports.empty())
    for (const auto& r : export_plan(reached).resources)
      if (r.reachable && base->shared_resources.count(r.resource)) change[r.resource] -= r.instances;
  std::erase_if(change, [](const auto& c) { return c.second == 0; });
  if (change.empty()) return base;
  if (leased_policy_ && leased_policy_base_ == base && leased_policy_change_ == change) return leased_policy_;
  auto policy = std::make_shared<sched::SchedPolicy>(*base);
  for (const auto& [name, amount] : change)
    policy->shared_resources[name] = std::max(0.0, policy->shared_resources[name] + amount);
  leased_policy_ = policy;
  leased_policy_base_ = base;
  leased_policy_change_ = change;
  return leased_policy_;
}

}  // namespace lsf::mbd
