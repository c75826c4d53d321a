// What a MultiCluster provider exports to each consumer (lsb.resources HostExport and
// SharedResourceExport), worked out from its hosts as they are now. Pure: mbatchd runs
// it when hosts or configuration change, tests run it on hand-made hosts.
//
// The rules (reference/policies.md §5):
// - PER_HOST + SLOTS: the SLOTS of each named host are dealt to the consumers slot by
//   slot, in DISTRIBUTION order and in proportion to the shares.
// - RES_SELECT + NHOSTS: up to NHOSTS whole matching hosts, each to one consumer, the
//   count dealt the same way. Fewer matching hosts export fewer; a host that already runs
//   a consumer's jobs stays with that consumer when hosts are chosen again.
// - A host of type DLINUX is exported only with SWP; a host unavailable to the provider
//   (unavail, unreach) is not exported; a host goes to one HostExport only, the first.
// - SharedResourceExport: at most the instances available, dealt among the consumers
//   that receive a host holding the resource.
// - A consumer the provider cannot reach gets nothing: the provider keeps its part.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libconfig/cluster_config.h"
#include "libsched/model/cluster_view.h"

namespace lsf::sched::mc {

struct ProviderHost {
  HostView view;  // name, status, resources (type, static resources)
  int slots = 0;  // MXJ, or its processors
  // Slots each consumer's jobs use on it now, by cluster.
  std::map<std::string, int, std::less<>> consumer_slots;
};

struct ExportInput {
  std::vector<ProviderHost> hosts;  // in lsf.cluster order
  // Host names a HostExport's PER_HOST names, resolved by the caller (groups, all).
  std::vector<std::set<std::string>> per_host;  // one per HostExport, empty for RES_SELECT
  // Instances of each shared resource free at the provider, and the hosts holding it
  // (empty: every host).
  std::map<std::string, double, std::less<>> available_instances;
  std::map<std::string, std::set<std::string>, std::less<>> resource_hosts;
  std::set<std::string, std::less<>> reachable;  // consumers the provider can reach
};

struct HostGrant {
  int export_index = 0;  // which HostExport
  std::string host;
  std::string cluster;
  int slots = 0;
  bool whole_host = false;  // RES_SELECT: the host is the consumer's alone
  bool shared = false;      // TYPE=shared
  std::int64_t mem_mb = 0, swp_mb = 0;
  bool reachable = true;  // false: planned, but the provider keeps it until it can reach the consumer
};

struct ResourceGrant {
  std::string resource;
  std::string cluster;
  double instances = 0;
  bool reachable = true;
};

struct ExportPlan {
  std::vector<HostGrant> hosts;  // by HostExport, then host, then DISTRIBUTION order
  std::vector<ResourceGrant> resources;
  // Slots of each host that consumers hold (reachable ones only): the provider's own
  // scheduling does not use them.
  int exported_slots(std::string_view host) const;
};

ExportPlan plan_exports(const std::vector<config::HostExport>& host_exports,
                        const std::vector<config::SharedResourceExport>& resource_exports, const ExportInput& in);

// `amount` dealt one unit at a time to the party whose share is least served so far
// (share / (given + 1) largest), ties to the first listed.
std::vector<int> deal(int amount, const std::vector<double>& shares);

}  // namespace lsf::sched::mc
