// The cluster a simulation runs on: the configuration's policy with either its own
// hosts or a model of N identical hosts of M slots (a trace gives processors, not hosts).
#pragma once

#include "libconfig/cluster_config.h"
#include "libsched/model/cluster_view.h"

namespace lsf::sched::sim {

struct HostModel {
  int hosts = 0;  // 0: the configuration's server hosts, with their lsb.hosts MXJ
  int slots = 1;  // slots per modelled host (MXJ), and ncpus of every host
};

ClusterView model_cluster(const config::ClusterConfig& config, const HostModel& model);

// The slots the cluster offers in all (hosts without a limit count `model.slots`).
std::int64_t total_slots(const ClusterView& cluster, const HostModel& model);

}  // namespace lsf::sched::sim
