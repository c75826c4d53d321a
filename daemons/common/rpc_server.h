// Serves RequestEnvelopes on a TCP port, and optionally on a local (Unix) socket,
// inside a caller-owned io_context.
//
// Each connection carries requests one after another; the next request is read only
// once the previous one has been answered, which lets a handler answer later (after
// the event log has made a change durable) without any locking. Framing problems are
// answered with a clear error and the connection is closed; nothing a peer sends can
// crash the server or block the io_context: a frame that stalls half-way is dropped
// after `body_timeout`.
//
// Who is asking is settled here, before any handler runs. On the local socket the
// kernel's peer credentials replace whatever uid and user name the request claims. Over
// TCP a request must be signed with the cluster key (or the cluster trusts its network:
// LSF_AUTH=none); an unsigned or badly signed request is refused and never reaches the
// handler.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/frame.h"
#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::net {

// How the caller's identity was established.
enum class PeerKind {
  kLocalUser,      // local socket: uid and user name from the kernel
  kClusterKey,     // TCP, signed with the cluster key: a daemon or an administrator's command
  kTrusted,        // TCP, unsigned, accepted because of LSF_AUTH=none
  kRemoteCluster,  // TCP, signed with a MultiCluster pair key: another cluster's mbatchd
};

struct Peer {
  PeerKind kind = PeerKind::kLocalUser;
  std::string cluster;  // kRemoteCluster: which cluster
  std::string address;  // the TCP peer's address; empty over the local socket
  // Whether the caller may send what only this cluster's daemons send (host
  // registration, job status).
  bool is_daemon() const { return kind == PeerKind::kClusterKey || kind == PeerKind::kTrusted; }
};

// Sends the reply for one request. Call it exactly once; it may outlive the handler.
using Responder = std::function<void(wire::ReplyEnvelope)>;
using RequestHandler = std::function<void(wire::RequestEnvelope&, const Peer&, const Responder&)>;

// Bounds on what peers may hold. A TCP connection is unauthenticated until one of its
// requests is verified; until then it may send only small frames, must do so soon, and
// counts against its address's and the server's share of unauthenticated connections.
// Local-socket connections are authenticated by the kernel but count per uid.
struct ServerOptions {
  std::uint32_t max_frame = kDefaultMaxFrame;
  std::uint32_t max_unauthenticated_frame = kMaxUnauthenticatedFrame;
  std::chrono::milliseconds body_timeout{10000};
  // An authenticated connection with no request this long is closed.
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(10)};
  // A TCP connection that has not authenticated this long after it opened is closed.
  std::chrono::milliseconds unauthenticated_timeout{10000};
  // 0: from the descriptor limit (all but 64 of it).
  std::size_t max_connections = 0;
  std::size_t max_connections_per_peer = 256;             // per address (unauthenticated TCP) or local uid
  std::size_t max_unauthenticated = 1024;                 // in all
  std::size_t max_buffered_bytes = std::size_t{1} << 30;  // request bodies held at once, in all
  std::function<void(const std::string&)> log_error;      // optional
  // Told of each request refused as unauthenticated, with why (optional): what it says
  // is unproven, for display only (a host whose clock is too far off, say).
  std::function<void(const wire::RequestEnvelope&, const std::string&)> on_refused;
  std::optional<ClusterKey> key;                // TCP requests must be signed with it
  std::map<std::string, ClusterKey> pair_keys;  // other clusters' mbatchds sign with these
  bool trust_unsigned = false;                  // LSF_AUTH=none: believe unsigned TCP requests
  // What a signed request must name as its destination to be accepted here
  // ("mbatchd", "sbatchd@hostA"); requests for another daemon are refused.
  std::string destination;
  // Another cluster's mbatchd names this cluster's as "mbatchd@<cluster_name>".
  std::string cluster_name;
  // Signed requests older than this (seconds since the epoch) are refused: the nonces
  // seen before a restart are gone, so nothing signed before the start is believed.
  std::int64_t started_at = 0;
  // Stamped on every reply when set: mbatchd's master term (master failover).
  std::int64_t master_epoch = 0;
};

// Seconds within which a request refused for a limit is logged only once.
inline constexpr std::chrono::seconds kLimitLogInterval{60};

class RpcServer {
 public:
  // Binds and listens at once; throws boost::system::system_error when it cannot.
  RpcServer(asio::io_context& io, const tcp::endpoint& endpoint, RequestHandler handler, ServerOptions options = {});
  ~RpcServer();
  RpcServer(const RpcServer&) = delete;
  RpcServer& operator=(const RpcServer&) = delete;

  // Also listens on a local socket at `path`, which any local user may connect to.
  // A stale socket left by a crashed daemon is replaced; any other file is not.
  // A failure names the path.
  daemon::Status listen_local(const std::string& path);

  std::uint16_t port() const;
  void stop();

  // Connections open now, and of those how many have not authenticated (for tests
  // and badmin perfmon).
  std::size_t connections() const;
  std::size_t unauthenticated_connections() const;

  struct Shared;  // what every connection of this server uses

 private:
  void accept();
  void accept_local();
  // Out of descriptors: drops the next waiting connection so it is refused at once
  // rather than left hanging, using a descriptor kept spare for this.
  void shed_one(const boost::system::error_code& why);
  void accept_later();

  asio::io_context& io_;
  tcp::acceptor acceptor_;
  std::optional<asio::local::stream_protocol::acceptor> local_acceptor_;
  std::string local_path_;
  std::pair<dev_t, ino_t> local_inode_{};  // of the socket we made at local_path_
  std::shared_ptr<Shared> shared_;
  asio::steady_timer retry_timer_;
  asio::steady_timer local_retry_timer_;
  int spare_fd_ = -1;
};

// A reply with no payload and the given status; for handlers that refuse a request.
wire::ReplyEnvelope error_reply(wire::StatusCode status, std::string message);
// A reply with STATUS_OK, for the handler to add its payload to.
wire::ReplyEnvelope ok_reply();

}  // namespace lsf::net
