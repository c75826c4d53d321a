#include "libsched/sim/cluster_model.h"

#include <cstdio>

#include "libsched/model/policy.h"

namespace lsf::sched::sim {

ClusterView model_cluster(const config::ClusterConfig& config, const HostModel& model) {
  auto policy = std::make_shared<SchedPolicy>(*build_policy(config));
  ClusterView view;
  if (model.hosts > 0) {
    for (int i = 0; i < model.hosts; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "host%05d", i + 1);
      HostPolicy hp = policy->default_host;
      hp.mxj = model.slots;
      hp.mxj_is_ncpus = false;
      policy->hosts[name] = hp;
      HostView hv;
      hv.name = name;
      hv.ncpus = model.slots;
      hv.resources["hname"] = std::string(name);
      view.hosts.push_back(std::move(hv));
    }
  } else {
    for (const auto& h : config.hosts) {
      if (!h.server) continue;
      HostView hv;
      hv.name = h.name;
      hv.ncpus = model.slots;
      hv.resources["hname"] = h.name;
      hv.resources["type"] = h.type;
      hv.resources["model"] = h.model;
      for (const auto& r : h.resources) hv.resources[r] = 1.0;
      view.hosts.push_back(std::move(hv));
    }
  }
  view.policy = policy;
  view.queues.resize(policy->queues.size());
  return view;
}

std::int64_t total_slots(const ClusterView& cluster, const HostModel& model) {
  std::int64_t n = 0;
  for (const auto& h : cluster.hosts) {
    const HostPolicy& p = cluster.policy->host(h.name);
    n += p.mxj_is_ncpus ? h.ncpus : p.mxj >= 0 ? p.mxj : model.slots;
  }
  return n;
}

}  // namespace lsf::sched::sim
