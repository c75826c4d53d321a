// A blocking RPC client with a deadline on every call. Commands use one per run;
// sbatchd keeps one to mbatchd. The connection is opened on first use and reused
// while it stays healthy; any failure closes it so the next call reconnects. A call
// that fails on a reused connection before any reply (the daemon restarted, or dropped
// the connection as idle) is tried once more on a fresh one. A call that times out
// resets its connection, so a request stuck in a cut network is dropped by the kernel
// rather than delivered late, after the caller has given up on it.
//
// A client may prefer the master's local socket (where the kernel vouches for the
// caller) and fall back to TCP when it is not there, and may sign what it sends over
// TCP with the cluster key.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/frame.h"
#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::net {

struct CallResult {
  std::optional<wire::ReplyEnvelope> reply;  // absent: transport failure
  std::string error;                         // why, when reply is absent
  // No reply, but the request was sent (or partly sent) first: the daemon may have
  // acted on it, and the caller must not claim it did not.
  bool may_have_arrived = false;
  bool timed_out = false;          // no reply by the deadline (the connection was reset)
  bool connect_timed_out = false;  // no connection made by the deadline: nothing was sent
  bool ok() const { return reply && reply->status() == wire::STATUS_OK; }
  // The daemon's message, or the transport error.
  std::string message() const { return reply ? reply->message() : error; }
};

class RpcClient {
 public:
  RpcClient(std::string host, std::uint16_t port, std::chrono::milliseconds timeout);
  ~RpcClient();
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  // Tries this local socket first on every connect.
  void set_local_socket(std::string path) { local_path_ = std::move(path); }
  // Signs every request sent over TCP, addressed to `destination` ("mbatchd",
  // "sbatchd@<host>").
  void set_key(ClusterKey key, std::string destination) {
    key_ = std::move(key);
    destination_ = std::move(destination);
  }
  // Speaks for `cluster` to `remote`'s mbatchd: `key` is the pair key.
  void set_cluster_key(std::string cluster, ClusterKey key, const std::string& remote) {
    cluster_ = std::move(cluster);
    key_ = std::move(key);
    destination_ = "mbatchd@" + remote;
  }

  // Fills protocol_version (and the signature); the caller sets identity and the request.
  CallResult call(wire::RequestEnvelope request);

  // Sends raw bytes and reads one reply frame: for tests of malformed input.
  CallResult call_raw(const std::string& bytes);

  // Whether the open connection is the local socket.
  bool is_local() const { return local_.has_value(); }

  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  // A shorter bound for making the connection alone (0: the call's timeout): a host
  // that is up completes a TCP handshake in its kernel at once, however busy its
  // daemon, so a caller that has other places to try need not wait the whole timeout
  // on a host that is gone.
  void set_connect_timeout(std::chrono::milliseconds timeout) { connect_timeout_ = timeout; }
  void close();

 private:
  CallResult call_once(wire::RequestEnvelope request);
  // Closes with a reset: what is still queued to send is dropped, not sent later.
  void reset();
  // Drops a connection the peer has closed; whether one is still open.
  bool holds_open_connection();
  std::string peer_name() const;
  bool run_until(std::chrono::steady_clock::time_point deadline, const bool& done);
  daemon::Status connect(std::chrono::steady_clock::time_point deadline);
  template <typename Socket>
  CallResult exchange(Socket& socket, const std::string& bytes, std::chrono::steady_clock::time_point deadline);

  std::string host_;
  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds connect_timeout_{0};
  std::uint32_t max_frame_ = kDefaultMaxFrame;
  std::string local_path_;
  std::optional<ClusterKey> key_;
  std::string cluster_;
  std::string destination_;
  asio::io_context io_;
  std::optional<tcp::socket> socket_;
  std::optional<asio::local::stream_protocol::socket> local_;
  bool authenticated_ = false;  // the open TCP connection has had a request accepted
};

// The identity of the process: real uid/gid, user name from the password database,
// and this host's name.
wire::Identity current_identity();

}  // namespace lsf::net
