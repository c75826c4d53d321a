// ConfigQueries: the configuration in force and how it is used. bparams, bmgroup,
// bugroup and lsinfo (config_info), bresources -g and bsla, bapp, bhpart, busers,
// blimits, shared resources, bqueues, bhosts and badmin perfmon. Counts of jobs come
// from the state; what only the rest of mbatchd knows comes through the hooks: host
// status and load (host tracking), views and the last pass's reports (scheduling),
// borrowed hosts (MultiCluster). Defined in config_queries.cc, with bqueues and bhosts
// in queue_host_queries.cc.
//
// Owns: nothing; it reads the state, the configuration and its index.
// Thread: the state thread (the io_context), as the request table calls it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/host_tracker.h"
#include "daemons/mbatchd/scheduling_driver.h"
#include "lsf.pb.h"

namespace lsf::mbd {

struct ConfigQueriesHooks {
  // Host tracking: what bhosts shows of a host; `link` is null before it registers.
  std::function<std::string(const std::string& host)> host_status;
  std::function<int(const std::string& host)> host_max_slots;
  std::function<const HostLink*(const std::string& host)> link;
  // Scheduling: a view of the state now (ViewBuilder::build), a host's resources as
  // select[] reads them, and what the last pass left.
  std::function<sched::ClusterView(bool with_pending)> build_view;
  std::function<sched::ResourceMap(const std::string& host)> host_resources;
  std::function<const std::map<sched::JobKey, sched::Reservation>&()> reservations;
  std::function<const std::vector<sched::GuaranteeReport>&()> guarantees;
  std::function<const std::vector<sched::ThrottleUse>&()> throttles;
  std::function<const PassCounters&()> pass_counters;
  // MultiCluster: hosts borrowed from providers, and their status as seen here.
  std::function<std::map<std::string, wire::OfferedHost>()> borrowed_hosts;
  std::function<std::string(const std::string& host)> borrowed_host_status;
  // badmin perfmon: submissions since start, and how long mbatchd has run.
  std::function<std::uint64_t()> submissions_total;
  std::function<std::chrono::seconds()> uptime;
  std::function<std::int64_t()> now;
};

class ConfigQueries {
 public:
  ConfigQueries(ComponentContext ctx, const ConfigIndex& index, ConfigQueriesHooks hooks);

  // Each takes the request and returns the reply: an error reply names what was asked
  // for and does not exist.
  wire::ReplyEnvelope config_info(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope guarantee_pools(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope applications(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope host_partitions(const wire::RequestEnvelope& request) const;
  // busers: the caller, the users named, or "all"; a user group sums its members.
  wire::ReplyEnvelope users(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope limits(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope shared_resources(const wire::RequestEnvelope& request) const;
  // bqueues: by priority, highest first.
  wire::ReplyEnvelope queues(const wire::RequestEnvelope& request) const;
  // bhosts: configured hosts (filtered by -R), then borrowed ones.
  wire::ReplyEnvelope hosts(const wire::RequestEnvelope& request) const;
  wire::ReplyEnvelope perfmon(const wire::RequestEnvelope& request) const;

 private:
  ComponentContext ctx_;
  const ConfigIndex& index_;
  ConfigQueriesHooks hooks_;
};

}  // namespace lsf::mbd
