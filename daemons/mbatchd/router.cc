#include "daemons/mbatchd/router.h"

namespace lsf::mbd {

RequestRouter::RequestRouter(std::shared_ptr<spdlog::logger> log, RouterHooks hooks)
    : log_(std::move(log)), hooks_(std::move(hooks)) {}

void RequestRouter::add(wire::RequestEnvelope::RequestCase kind, Route route) {
  routes_[static_cast<int>(kind)] = std::move(route);
}

const Route* RequestRouter::find(wire::RequestEnvelope::RequestCase kind) const {
  auto it = routes_.find(static_cast<int>(kind));
  return it == routes_.end() ? nullptr : &it->second;
}

void RequestRouter::dispatch(wire::RequestEnvelope& request, const net::Peer& peer,
                             const net::Responder& respond) const {
  const Route* route = find(request.request_case());
  const Sender sender = route ? route->sender : Sender::kAnyone;
  // Another cluster's mbatchd speaks only MultiCluster: offers and relays, and the
  // reports of the jobs this cluster runs on its hosts.
  const bool from_cluster = peer.kind == net::PeerKind::kRemoteCluster;
  const bool cluster_only = sender == Sender::kCluster;
  const bool cluster_may = cluster_only || sender == Sender::kDaemonOrCluster;
  if (from_cluster ? !cluster_may : cluster_only) {
    if (log_)
      log_->warn("refused a request from {}: {}", from_cluster ? "cluster " + peer.cluster : "a local caller",
                 from_cluster ? "only MultiCluster requests come from other clusters"
                              : "MultiCluster requests come only from other clusters");
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED,
                                    from_cluster ? "User permission denied: another cluster may send only "
                                                   "MultiCluster requests"
                                                 : "User permission denied: only another cluster's mbatchd, "
                                                   "signed with the key the clusters share, may send this"));
  }
  // What only an sbatchd sends: a local user must not register a host or report a
  // job's end, whatever uid they have.
  const bool daemon_only = sender == Sender::kDaemon || sender == Sender::kDaemonOrCluster;
  if (!from_cluster && daemon_only && !peer.is_daemon()) {
    if (log_)
      log_->warn("refused a daemon request from local user {} (uid {})", request.caller().user_name(),
                 request.caller().uid());
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED,
                                    "User permission denied: only an sbatchd holding the cluster key may send this"));
  }
  // The request's records, and its wait for them, go to the writer together when it
  // returns: all of them durable, or (a failed write) none.
  struct Hold {
    const RouterHooks& hooks;
    explicit Hold(const RouterHooks& h) : hooks(h) {
      if (hooks.hold) hooks.hold();
    }
    ~Hold() {
      if (hooks.release) hooks.release();
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
  } hold(hooks_);
  using R = wire::RequestEnvelope;
  const auto kind = request.request_case();
  if (route && route->changes_state && hooks_.log_refusal)
    if (auto why = hooks_.log_refusal(); !why.empty()) {
      // bsub adds ". Job not submitted."; the others say it here.
      if (kind != R::kSubmit && kind != R::kSubmitPack) why += "; nothing was changed";
      return respond(net::error_reply(wire::STATUS_UNAVAILABLE, why));
    }
  if (!route || !route->handler)
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "request type not served by mbatchd"));
  if (sender == Sender::kAdmin && !(hooks_.is_admin && hooks_.is_admin(request.caller())))
    return respond(net::error_reply(
        wire::STATUS_PERMISSION_DENIED,
        (route->denied_prefix ? route->denied_prefix(request) : std::string()) + "User permission denied"));
  route->handler(request, peer, respond);
}

}  // namespace lsf::mbd
