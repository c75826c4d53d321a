#include "daemons/common/rpc_client.h"

#include "daemons/common/request_auth.h"

#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <ctime>
#include <vector>

namespace lsf::net {

RpcClient::RpcClient(std::string host, std::uint16_t port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {}

RpcClient::~RpcClient() { close(); }

std::string RpcClient::peer_name() const { return local_ ? local_path_ : host_ + ":" + std::to_string(port_); }

void RpcClient::close() {
  boost::system::error_code ignored;
  if (local_) {
    local_->close(ignored);
    local_.reset();
  }
  if (!socket_) return;
  socket_->close(ignored);
  socket_.reset();
}

void RpcClient::reset() {
  boost::system::error_code ignored;
  if (socket_) socket_->set_option(asio::socket_base::linger(true, 0), ignored);
  close();
}

// Runs the io_context until `done` or the deadline; false on timeout.
bool RpcClient::run_until(std::chrono::steady_clock::time_point deadline, const bool& done) {
  io_.restart();
  while (!done) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    io_.run_one_for(deadline - now);
  }
  return true;
}

namespace {

// Whether the peer has closed a connection we hold (an idle one the daemon timed out):
// such a connection is dropped before use rather than failing the call.
bool closed_by_peer(int fd) {
  char byte = 0;
  ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

bool RpcClient::holds_open_connection() {
  if ((socket_ && closed_by_peer(socket_->native_handle())) || (local_ && closed_by_peer(local_->native_handle())))
    close();
  return socket_ || local_;
}

daemon::Status RpcClient::connect(std::chrono::steady_clock::time_point deadline) {
  if (holds_open_connection()) return {};
  authenticated_ = false;
  boost::system::error_code ec;
  if (!local_path_.empty()) {
    // A local connect completes or fails at once; when it fails, TCP is the way.
    local_.emplace(io_);
    local_->connect(asio::local::stream_protocol::endpoint(local_path_), ec);
    if (!ec) return {};
    local_.reset();
    ec.clear();
  }
  if (connect_timeout_.count() > 0) deadline = std::min(deadline, std::chrono::steady_clock::now() + connect_timeout_);
  tcp::resolver resolver(io_);
  auto endpoints = resolver.resolve(host_, std::to_string(port_), ec);
  if (ec) return daemon::fail("cannot resolve " + host_ + ": " + ec.message());
  socket_.emplace(io_);
  bool done = false;
  asio::async_connect(*socket_, endpoints, [&](const boost::system::error_code& e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  if (!run_until(deadline, done)) {
    close();
    io_.restart();
    io_.run();  // let the cancelled handler run before `done` goes out of scope
    return daemon::fail("timed out connecting to " + host_ + ":" + std::to_string(port_));
  }
  if (ec) {
    close();
    return daemon::fail("cannot connect to " + host_ + ":" + std::to_string(port_) + ": " + ec.message());
  }
  socket_->set_option(tcp::no_delay(true), ec);
  return {};
}

CallResult RpcClient::call(wire::RequestEnvelope request) {
  const bool reused = holds_open_connection();
  auto result = call_once(request);
  // Nothing came back on a connection opened for an earlier call: the daemon most
  // likely closed it (restarted, or dropped it as idle) before reading this request.
  if (!result.reply && !result.timed_out && reused) {
    close();
    result = call_once(std::move(request));
  }
  return result;
}

CallResult RpcClient::call_once(wire::RequestEnvelope request) {
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (auto connected = connect(deadline); !connected) {
    CallResult result;
    result.error = connected.message();
    result.connect_timed_out = result.error.rfind("timed out connecting", 0) == 0;
    return result;
  }
  if (!local_ && !authenticated_ && request.ByteSizeLong() + 512 > kMaxUnauthenticatedFrame && !request.has_ping()) {
    // A daemon takes only small frames until a connection has proved itself: a signed
    // ping goes first.
    wire::RequestEnvelope ping;
    ping.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
    *ping.mutable_caller() = request.caller();
    ping.mutable_ping();
    auto first = call_once(std::move(ping));
    if (!first.reply || first.reply->status() == wire::STATUS_PERMISSION_DENIED) return first;
  }
  if (key_ && !local_)
    sign_request(request, *key_, static_cast<std::int64_t>(std::time(nullptr)), destination_, cluster_);
  auto result = call_raw(encode_frame(request));
  if (result.reply && result.reply->status() != wire::STATUS_PERMISSION_DENIED) authenticated_ = true;
  return result;
}

CallResult RpcClient::call_raw(const std::string& bytes) {
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  CallResult result;
  if (auto connected = connect(deadline); !connected) {
    result.error = connected.message();
    return result;
  }
  if (local_) return exchange(*local_, bytes, deadline);
  return exchange(*socket_, bytes, deadline);
}

template <typename Socket>
CallResult RpcClient::exchange(Socket& socket, const std::string& bytes,
                               std::chrono::steady_clock::time_point deadline) {
  CallResult result;
  boost::system::error_code ec;
  bool done = false;
  FrameHeader header{};
  std::vector<char> body;
  std::uint32_t length = 0;
  bool written = false;
  asio::async_write(socket, asio::buffer(bytes), [&](const boost::system::error_code& e, std::size_t) {
    if (e) {
      ec = e;
      done = true;
      return;
    }
    written = true;
    asio::async_read(socket, asio::buffer(header), [&](const boost::system::error_code& e2, std::size_t) {
      if (e2) {
        ec = e2;
        done = true;
        return;
      }
      length = decode_frame_length(header);
      if (length > max_frame_) {
        done = true;
        return;
      }
      body.resize(length);
      asio::async_read(socket, asio::buffer(body), [&](const boost::system::error_code& e3, std::size_t) {
        ec = e3;
        done = true;
      });
    });
  });
  if (!run_until(deadline, done)) {
    reset();
    io_.restart();
    io_.run();
    result.error = "timed out after " + std::to_string(timeout_.count()) + " ms waiting for " + peer_name();
    // Some or all of the request may be with the daemon, which may yet act on it.
    result.may_have_arrived = true;
    result.timed_out = true;
    return result;
  }
  if (ec) {
    close();
    result.error = ec == asio::error::eof ? "connection closed by " + peer_name()
                                          : "cannot talk to " + peer_name() + ": " + ec.message();
    result.may_have_arrived = written;
    return result;
  }
  if (length > max_frame_) {
    close();
    result.error = "reply frame of " + std::to_string(length) + " bytes exceeds the maximum";
    return result;
  }
  wire::ReplyEnvelope reply;
  if (!reply.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    close();
    result.error = "malformed reply frame";
    return result;
  }
  result.reply = std::move(reply);
  return result;
}

wire::Identity current_identity() {
  wire::Identity id;
  id.set_uid(getuid());
  id.set_gid(getgid());
  std::array<char, 16384> buf{};
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found)
    id.set_user_name(found->pw_name);
  else
    id.set_user_name(std::to_string(getuid()));
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) id.set_host_name(host.data());
  return id;
}

}  // namespace lsf::net
