#include "daemons/common/rpc_server.h"

#include <vector>

namespace lsf::net {
namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<const RequestHandler> handler,
             std::shared_ptr<const ServerOptions> options)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        handler_(std::move(handler)),
        options_(std::move(options)) {}

  void start() { read_header(); }

 private:
  void arm(std::chrono::milliseconds timeout) {
    timer_.expires_after(timeout);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->close();
    });
  }

  void close() {
    boost::system::error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  void read_header() {
    arm(options_->idle_timeout);
    asio::async_read(socket_, asio::buffer(header_),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->read_body();
                     });
  }

  void read_body() {
    std::uint32_t n = decode_frame_length(header_);
    if (n > options_->max_frame) {
      return fail(wire::STATUS_BAD_REQUEST, "frame of " + std::to_string(n) + " bytes exceeds the maximum of " +
                                                std::to_string(options_->max_frame) + " bytes");
    }
    body_.resize(n);
    arm(options_->body_timeout);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->timer_.cancel();
                       self->dispatch();
                     });
  }

  void dispatch() {
    wire::RequestEnvelope request;
    if (!request.ParseFromArray(body_.data(), static_cast<int>(body_.size())))
      return fail(wire::STATUS_BAD_REQUEST, "malformed request frame");
    if (request.protocol_version() != wire::PROTOCOL_VERSION_CURRENT)
      return fail(wire::STATUS_VERSION_MISMATCH, "protocol version " + std::to_string(request.protocol_version()) +
                                                     " is not supported (this daemon speaks " +
                                                     std::to_string(wire::PROTOCOL_VERSION_CURRENT) + ")");
    if (request.request_case() == wire::RequestEnvelope::REQUEST_NOT_SET)
      return fail(wire::STATUS_BAD_REQUEST, "unknown request type");
    auto self = shared_from_this();
    auto answered = std::make_shared<bool>(false);
    Responder respond = [self, answered](wire::ReplyEnvelope reply) {
      if (*answered) return;
      *answered = true;
      self->write(std::move(reply), true);
    };
    (*handler_)(request, respond);
  }

  void fail(wire::StatusCode status, std::string message) {
    if (options_->log_error) options_->log_error(message);
    write(error_reply(status, std::move(message)), false);
  }

  void write(const wire::ReplyEnvelope& reply, bool keep_open) {
    auto frame = std::make_shared<std::string>(encode_frame(reply));
    asio::async_write(socket_, asio::buffer(*frame),
                      [self = shared_from_this(), frame, keep_open](const boost::system::error_code& ec, std::size_t) {
                        if (ec || !keep_open) return self->close();
                        self->read_header();
                      });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::shared_ptr<const RequestHandler> handler_;
  std::shared_ptr<const ServerOptions> options_;
  FrameHeader header_{};
  std::vector<char> body_;
};

}  // namespace

RpcServer::RpcServer(asio::io_context& io, const tcp::endpoint& endpoint, RequestHandler handler, ServerOptions options)
    : io_(io),
      acceptor_(io),
      handler_(std::make_shared<const RequestHandler>(std::move(handler))),
      options_(std::make_shared<const ServerOptions>(std::move(options))) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  accept();
}

RpcServer::~RpcServer() { stop(); }

std::uint16_t RpcServer::port() const { return acceptor_.local_endpoint().port(); }

void RpcServer::stop() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

void RpcServer::accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Connection>(std::move(socket), handler_, options_)->start();
    }
    if (acceptor_.is_open()) accept();
  });
}

wire::ReplyEnvelope error_reply(wire::StatusCode status, std::string message) {
  wire::ReplyEnvelope reply;
  reply.set_status(status);
  reply.set_message(std::move(message));
  return reply;
}

}  // namespace lsf::net
