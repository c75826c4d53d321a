// RequestRouter: the one table from a request's type to the handler that serves it and
// to who may send it. It replaces a switch in Mbatchd::handle().
//
// Owns: the table (filled once, at construction of mbatchd) and nothing else; who is an
// administrator and whether the event log takes changes are asked of the hooks.
// Thread: dispatch() runs on the state thread (the io_context), as do the handlers it
// calls.
//
// The rules, in the order they are checked:
//  1. Another cluster's mbatchd may send only kCluster and kDaemonOrCluster requests;
//     kCluster requests come only from another cluster.
//  2. kDaemon and kDaemonOrCluster requests from this cluster come only from an sbatchd
//     (a peer holding the cluster key, or any peer under LSF_AUTH=none).
//  3. A request that changes state is refused while the event log cannot take changes.
//  4. kAdmin requests come only from an LSF administrator (root or a ClusterAdmin).
// Rules that depend on the job, queue or group a request names (a job's owner, a
// queue's ADMINISTRATORS) are not per request type: the handler asks Permissions
// (permissions.h), which states them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include <spdlog/logger.h>

#include "daemons/common/rpc_server.h"

namespace lsf::mbd {

enum class Sender {
  kAnyone,           // any user's command
  kAdmin,            // an LSF administrator's command
  kDaemon,           // this cluster's sbatchd only
  kDaemonOrCluster,  // this cluster's sbatchd, or another cluster's mbatchd
  kCluster,          // another cluster's mbatchd only
};

struct Route {
  Sender sender = Sender::kAnyone;
  // Records events: refused while the event log cannot take them.
  bool changes_state = false;
  std::function<void(const wire::RequestEnvelope&, const net::Peer&, const net::Responder&)> handler;
  // kAdmin: what the refusal says before "User permission denied" (e.g. "Job <1>: ").
  std::function<std::string(const wire::RequestEnvelope&)> denied_prefix;
};

struct RouterHooks {
  std::function<bool(const wire::Identity&)> is_admin;
  // Empty while the event log takes changes; else why not (see Mbatchd::log_refusal).
  std::function<std::string()> log_refusal;
  // A request's records and its wait for them go to the writer together: hold() before
  // the handler runs, release() after it returns. Either may be empty.
  std::function<void()> hold, release;
};

class RequestRouter {
 public:
  RequestRouter(std::shared_ptr<spdlog::logger> log, RouterHooks hooks);

  void add(wire::RequestEnvelope::RequestCase kind, Route route);
  const Route* find(wire::RequestEnvelope::RequestCase kind) const;
  // Checks the rules above and calls the route's handler, or answers the refusal.
  void dispatch(wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond) const;

 private:
  std::shared_ptr<spdlog::logger> log_;
  RouterHooks hooks_;
  std::unordered_map<int, Route> routes_;
};

}  // namespace lsf::mbd
