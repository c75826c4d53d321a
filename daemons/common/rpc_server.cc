#include "daemons/common/rpc_server.h"

#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <ctime>
#include <map>
#include <vector>

#include "daemons/common/request_auth.h"

namespace lsf::net {

struct RpcServer::Shared {
  RequestHandler handler;
  ServerOptions options;
  std::optional<RequestVerifier> verifier;
  std::map<std::string, RequestVerifier> pair_verifiers;  // by remote cluster
};

namespace {

using local_socket = asio::local::stream_protocol::socket;

std::string user_name_of(uid_t uid) {
  std::array<char, 16384> buf{};
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return found->pw_name;
  return std::to_string(uid);
}

// The kernel's account of who is at the other end of a local socket.
std::optional<ucred> peer_credentials(local_socket& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return std::nullopt;
  return cred;
}

template <typename Socket>
class Connection : public std::enable_shared_from_this<Connection<Socket>> {
 public:
  Connection(Socket socket, std::shared_ptr<RpcServer::Shared> shared, std::optional<ucred> local_peer)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        shared_(std::move(shared)),
        local_peer_(local_peer),
        // Looked up once: the peer of a connection cannot change.
        local_user_(local_peer ? user_name_of(local_peer->uid) : std::string()) {}

  void start() { read_header(); }

 private:
  const ServerOptions& options() const { return shared_->options; }

  void arm(std::chrono::milliseconds timeout) {
    timer_.expires_after(timeout);
    timer_.async_wait([self = this->shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->close();
    });
  }

  void close() {
    boost::system::error_code ignored;
    timer_.cancel();
    socket_.shutdown(asio::socket_base::shutdown_both, ignored);
    socket_.close(ignored);
  }

  void read_header() {
    arm(options().idle_timeout);
    asio::async_read(socket_, asio::buffer(header_),
                     [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->read_body();
                     });
  }

  void read_body() {
    std::uint32_t n = decode_frame_length(header_);
    if (n > options().max_frame) {
      return fail(wire::STATUS_BAD_REQUEST, "frame of " + std::to_string(n) + " bytes exceeds the maximum of " +
                                                std::to_string(options().max_frame) + " bytes");
    }
    body_.resize(n);
    arm(options().body_timeout);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->timer_.cancel();
                       self->dispatch();
                     });
  }

  // Another cluster's mbatchd, signed with the key the two clusters share. LSF_AUTH=none
  // does not extend to other clusters.
  std::string authenticate_cluster(wire::RequestEnvelope& request, Peer& peer) {
    const std::string cluster = request.auth().cluster();
    auto it = shared_->pair_verifiers.find(cluster);
    if (it == shared_->pair_verifiers.end()) {
      request.clear_auth();
      return "no MultiCluster key for cluster " + cluster + " (" + std::string(kPairKeyPrefix) + cluster +
             " in lsf.sudoers)";
    }
    auto why = it->second.verify(request, static_cast<std::int64_t>(std::time(nullptr)));
    if (!why.empty()) return why;
    peer.kind = PeerKind::kRemoteCluster;
    peer.cluster = cluster;
    return {};
  }

  // Settles who is asking; an error refuses the request.
  std::string authenticate(wire::RequestEnvelope& request, Peer& peer) {
    if (local_peer_) {
      request.clear_auth();
      auto* caller = request.mutable_caller();
      caller->set_uid(local_peer_->uid);
      caller->set_gid(local_peer_->gid);
      caller->set_user_name(local_user_);
      peer.kind = PeerKind::kLocalUser;
      return {};
    }
    if (request.has_auth() && !request.auth().cluster().empty()) return authenticate_cluster(request, peer);
    if (options().trust_unsigned && (!request.has_auth() || !shared_->verifier)) {
      request.clear_auth();
      peer.kind = PeerKind::kTrusted;
      return {};
    }
    if (!shared_->verifier) {
      return "this daemon has no cluster key (LSF_EAUTH_KEY in lsf.sudoers) and does not trust unsigned "
             "requests; use the master host's local socket";
    }
    auto why = shared_->verifier->verify(request, static_cast<std::int64_t>(std::time(nullptr)));
    if (!why.empty()) return why;
    peer.kind = PeerKind::kClusterKey;
    return {};
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
    Peer peer;
    if (auto why = authenticate(request, peer); !why.empty())
      return fail(wire::STATUS_PERMISSION_DENIED, "Authentication failed: " + why);
    auto self = this->shared_from_this();
    auto answered = std::make_shared<bool>(false);
    Responder respond = [self, answered](wire::ReplyEnvelope reply) {
      if (*answered) return;
      *answered = true;
      self->write(std::move(reply), true);
    };
    shared_->handler(request, peer, respond);
  }

  void fail(wire::StatusCode status, std::string message) {
    if (options().log_error) options().log_error(message);
    write(error_reply(status, std::move(message)), false);
  }

  void write(const wire::ReplyEnvelope& reply, bool keep_open) {
    auto frame = std::make_shared<std::string>(encode_frame(reply));
    asio::async_write(
        socket_, asio::buffer(*frame),
        [self = this->shared_from_this(), frame, keep_open](const boost::system::error_code& ec, std::size_t) {
          if (ec || !keep_open) return self->close();
          self->read_header();
        });
  }

  Socket socket_;
  asio::steady_timer timer_;
  std::shared_ptr<RpcServer::Shared> shared_;
  std::optional<ucred> local_peer_;
  std::string local_user_;
  FrameHeader header_{};
  std::vector<char> body_;
};

}  // namespace

RpcServer::RpcServer(asio::io_context& io, const tcp::endpoint& endpoint, RequestHandler handler, ServerOptions options)
    : io_(io), acceptor_(io), shared_(std::make_shared<Shared>()) {
  shared_->handler = std::move(handler);
  if (options.key) shared_->verifier.emplace(*options.key);
  for (const auto& [cluster, key] : options.pair_keys)
    shared_->pair_verifiers.emplace(
        cluster, RequestVerifier(key, "the key shared with cluster " + cluster + " (" + std::string(kPairKeyPrefix) +
                                          cluster + " differs between the clusters?)"));
  shared_->options = std::move(options);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  accept();
}

RpcServer::~RpcServer() { stop(); }

std::uint16_t RpcServer::port() const { return acceptor_.local_endpoint().port(); }

std::string RpcServer::listen_local(const std::string& path) {
  using local = asio::local::stream_protocol;
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    return path + ": a local socket path must be shorter than " + std::to_string(sizeof(sockaddr_un::sun_path)) +
           " characters";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return path + ": exists and is not a socket; not replacing it";
    ::unlink(path.c_str());
  }
  boost::system::error_code ec;
  local_acceptor_.emplace(io_);
  local_acceptor_->open(local(), ec);
  if (!ec) local_acceptor_->bind(local::endpoint(path), ec);
  if (!ec) local_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    local_acceptor_.reset();
    return path + ": cannot listen: " + ec.message();
  }
  // Every local user may connect; the kernel tells us who they are.
  ::chmod(path.c_str(), 0666);
  local_path_ = path;
  accept_local();
  return {};
}

void RpcServer::stop() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  if (local_acceptor_) {
    local_acceptor_->close(ignored);
    local_acceptor_.reset();
    ::unlink(local_path_.c_str());
  }
}

void RpcServer::accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Connection<tcp::socket>>(std::move(socket), shared_, std::nullopt)->start();
    }
    if (acceptor_.is_open()) accept();
  });
}

void RpcServer::accept_local() {
  local_acceptor_->async_accept([this](const boost::system::error_code& ec, local_socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      // Without credentials the caller cannot be named: drop the connection.
      if (auto cred = peer_credentials(socket))
        std::make_shared<Connection<local_socket>>(std::move(socket), shared_, *cred)->start();
    }
    if (local_acceptor_ && local_acceptor_->is_open()) accept_local();
  });
}

wire::ReplyEnvelope ok_reply() {
  wire::ReplyEnvelope reply;
  reply.set_status(wire::STATUS_OK);
  return reply;
}

wire::ReplyEnvelope error_reply(wire::StatusCode status, std::string message) {
  wire::ReplyEnvelope reply;
  reply.set_status(status);
  reply.set_message(std::move(message));
  return reply;
}

}  // namespace lsf::net
