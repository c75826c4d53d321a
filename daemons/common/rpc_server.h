// Serves RequestEnvelopes on a TCP port inside a caller-owned io_context.
//
// Each connection carries requests one after another; the next request is read only
// once the previous one has been answered, which lets a handler answer later (after
// the event log has made a change durable) without any locking. Framing problems are
// answered with a clear error and the connection is closed; nothing a peer sends can
// crash the server or block the io_context: a frame that stalls half-way is dropped
// after `body_timeout`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "daemons/common/asio.h"
#include "daemons/common/frame.h"
#include "lsf.pb.h"

namespace lsf::net {

// Sends the reply for one request. Call it exactly once; it may outlive the handler.
using Responder = std::function<void(wire::ReplyEnvelope)>;
using RequestHandler = std::function<void(wire::RequestEnvelope&, const Responder&)>;

struct ServerOptions {
  std::uint32_t max_frame = kDefaultMaxFrame;
  std::chrono::milliseconds body_timeout{10000};
  std::chrono::milliseconds idle_timeout{std::chrono::hours(24)};
  std::function<void(const std::string&)> log_error;  // optional
};

class RpcServer {
 public:
  // Binds and listens at once; throws boost::system::system_error when it cannot.
  RpcServer(asio::io_context& io, const tcp::endpoint& endpoint, RequestHandler handler, ServerOptions options = {});
  ~RpcServer();
  RpcServer(const RpcServer&) = delete;
  RpcServer& operator=(const RpcServer&) = delete;

  std::uint16_t port() const;
  void stop();

 private:
  void accept();

  asio::io_context& io_;
  tcp::acceptor acceptor_;
  std::shared_ptr<const RequestHandler> handler_;
  std::shared_ptr<const ServerOptions> options_;
};

// A reply with no payload and the given status; for handlers that refuse a request.
wire::ReplyEnvelope error_reply(wire::StatusCode status, std::string message);

}  // namespace lsf::net
