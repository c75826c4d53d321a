#include "daemons/common/rpc_server.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
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
  std::size_t max_connections = 0;

  // What peers hold now.
  std::size_t connections = 0;
  std::size_t unauthenticated = 0;
  std::size_t buffered = 0;
  std::map<std::string, std::size_t> per_peer;  // unauthenticated TCP by address; local by uid
  std::map<std::string, std::chrono::steady_clock::time_point> last_logged;

  // Local peers' user names by uid, each looked up again after kUserNameTtl: every
  // command connects anew, and a passwd lookup reads /etc/passwd through nsswitch.
  struct UserName {
    std::string name;
    std::chrono::steady_clock::time_point looked_up;
  };
  std::map<uid_t, UserName> user_names;
  std::string user_name_of(uid_t uid);

  // Logs `message` at most once per kLimitLogInterval for each `what`.
  void log_limited(const std::string& what, const std::string& message) {
    if (!options.log_error) return;
    auto now = std::chrono::steady_clock::now();
    auto it = last_logged.find(what);
    if (it != last_logged.end() && now - it->second < kLimitLogInterval) return;
    last_logged[what] = now;
    options.log_error(message);
  }
};

namespace {

using local_socket = asio::local::stream_protocol::socket;

std::optional<std::string> look_up_user_name(uid_t uid) {
  std::array<char, 16384> buf{};
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return std::string(found->pw_name);
  return std::nullopt;
}

}  // namespace

std::string RpcServer::Shared::user_name_of(uid_t uid) {
  // nscd's default for passwd entries is 600 s; a minute keeps a renamed or removed
  // account's old name short-lived.
  constexpr auto kUserNameTtl = std::chrono::seconds(60);
  constexpr std::size_t kMaxUserNames = 4096;  // distinct local uids are few; bound it anyway
  const auto now = std::chrono::steady_clock::now();
  auto it = user_names.find(uid);
  if (it != user_names.end() && now - it->second.looked_up < kUserNameTtl) return it->second.name;
  auto name = look_up_user_name(uid);
  // A failed lookup (a directory service down) is not remembered: the next connection asks again.
  if (!name) return std::to_string(uid);
  if (it == user_names.end() && user_names.size() >= kMaxUserNames) user_names.clear();
  user_names[uid] = {*name, now};
  return *name;
}

namespace {

// The kernel's account of who is at the other end of a local socket.
std::optional<ucred> peer_credentials(local_socket& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return std::nullopt;
  return cred;
}

// A connection's place in the server's counts, given back when the connection goes.
class Admission {
 public:
  Admission(std::shared_ptr<RpcServer::Shared> shared, std::string peer, bool counted_per_peer)
      : shared_(std::move(shared)), peer_(std::move(peer)), per_peer_(counted_per_peer) {
    ++shared_->connections;
    if (per_peer_) ++shared_->per_peer[peer_];
  }
  ~Admission() {
    authenticated();
    release_buffer();
    --shared_->connections;
    if (per_peer_) drop_peer();
  }
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  void unauthenticated() {
    if (!unauth_) ++shared_->unauthenticated;
    unauth_ = true;
  }
  // A TCP peer that proved itself no longer counts against its address's share.
  void authenticated() {
    if (unauth_) --shared_->unauthenticated;
    unauth_ = false;
  }
  void leave_peer_share() {
    if (per_peer_) drop_peer();
    per_peer_ = false;
  }
  bool take_buffer(std::size_t n) {
    if (shared_->buffered + n > shared_->options.max_buffered_bytes) return false;
    shared_->buffered += n;
    buffer_ += n;
    return true;
  }
  void release_buffer() {
    shared_->buffered -= buffer_;
    buffer_ = 0;
  }

 private:
  void drop_peer() {
    auto it = shared_->per_peer.find(peer_);
    if (it != shared_->per_peer.end() && --it->second == 0) shared_->per_peer.erase(it);
  }

  std::shared_ptr<RpcServer::Shared> shared_;
  std::string peer_;
  bool per_peer_ = false;
  bool unauth_ = false;
  std::size_t buffer_ = 0;
};

template <typename Socket>
class Connection : public std::enable_shared_from_this<Connection<Socket>> {
 public:
  Connection(Socket socket, std::shared_ptr<RpcServer::Shared> shared, std::optional<ucred> local_peer,
             std::string peer)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        shared_(std::move(shared)),
        local_peer_(local_peer),
        // Looked up once: the peer of a connection cannot change.
        local_user_(local_peer ? shared_->user_name_of(local_peer->uid) : std::string()),
        address_(local_peer ? std::string() : peer),
        admission_(shared_, std::move(peer), true) {
    if (!local_peer_) admission_.unauthenticated();
  }

  void start() {
    // Until it authenticates, a TCP peer has this long in all, not per frame.
    if (!authenticated()) arm(options().unauthenticated_timeout);
    read_header();
  }

  // Refuses the connection with a message, then closes it.
  void refuse(const std::string& message) { write(error_reply(wire::STATUS_UNAVAILABLE, message), false); }

 private:
  const ServerOptions& options() const { return shared_->options; }
  bool authenticated() const { return local_peer_.has_value() || authenticated_; }

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
    if (authenticated()) arm(options().idle_timeout);
    asio::async_read(socket_, asio::buffer(header_),
                     [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->read_body();
                     });
  }

  void read_body() {
    std::uint32_t n = decode_frame_length(header_);
    const std::uint32_t max =
        authenticated() ? options().max_frame : std::min(options().max_frame, options().max_unauthenticated_frame);
    if (n > max) {
      return fail(wire::STATUS_BAD_REQUEST, "frame of " + std::to_string(n) + " bytes exceeds the maximum of " +
                                                std::to_string(max) + " bytes" +
                                                (authenticated() ? "" : " before the connection has authenticated"));
    }
    if (!admission_.take_buffer(n)) {
      shared_->log_limited("buffers", "request buffers are full (" + std::to_string(options().max_buffered_bytes) +
                                          " bytes held); refusing requests until they drain");
      return fail(wire::STATUS_UNAVAILABLE, "the daemon is busy (request buffers full); try again");
    }
    body_.resize(n);
    if (authenticated()) arm(options().body_timeout);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = this->shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                       if (ec) return self->close();
                       self->timer_.cancel();
                       self->dispatch();
                     });
  }

  // Another cluster's mbatchd, signed with the key the two clusters share. LSF_AUTH=none
  // does not extend to other clusters.
  daemon::Status authenticate_cluster(wire::RequestEnvelope& request, Peer& peer) {
    const std::string cluster = request.auth().cluster();
    auto it = shared_->pair_verifiers.find(cluster);
    if (it == shared_->pair_verifiers.end()) {
      request.clear_auth();
      return daemon::fail("no MultiCluster key for cluster " + cluster + " (" + std::string(kPairKeyPrefix) + cluster +
                          " in lsf.sudoers)");
    }
    auto verified = it->second.verify(request, static_cast<std::int64_t>(std::time(nullptr)));
    if (!verified) return verified;
    peer.kind = PeerKind::kRemoteCluster;
    peer.cluster = cluster;
    return {};
  }

  // Settles who is asking; an error refuses the request.
  daemon::Status authenticate(wire::RequestEnvelope& request, Peer& peer) {
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
      return daemon::fail(
          "this daemon has no cluster key (LSF_EAUTH_KEY in lsf.sudoers) and does not trust unsigned "
          "requests; use the master host's local socket");
    }
    auto verified = shared_->verifier->verify(request, static_cast<std::int64_t>(std::time(nullptr)));
    if (!verified) return verified;
    peer.kind = PeerKind::kClusterKey;
    return {};
  }

  void dispatch() {
    wire::RequestEnvelope request;
    const bool parsed = request.ParseFromArray(body_.data(), static_cast<int>(body_.size()));
    // Nothing stays buffered for an idle connection.
    std::vector<char>().swap(body_);
    admission_.release_buffer();
    if (!parsed) return fail(wire::STATUS_BAD_REQUEST, "malformed request frame");
    if (request.protocol_version() != wire::PROTOCOL_VERSION_CURRENT)
      return fail(wire::STATUS_VERSION_MISMATCH, "protocol version " + std::to_string(request.protocol_version()) +
                                                     " is not supported (this daemon speaks " +
                                                     std::to_string(wire::PROTOCOL_VERSION_CURRENT) + ")");
    if (request.request_case() == wire::RequestEnvelope::REQUEST_NOT_SET)
      return fail(wire::STATUS_BAD_REQUEST, "unknown request type");
    Peer peer;
    peer.address = address_;
    if (auto authenticated = authenticate(request, peer); !authenticated) {
      if (options().on_refused) options().on_refused(request, authenticated.message());
      return fail(wire::STATUS_PERMISSION_DENIED, "Authentication failed: " + authenticated.message());
    }
    if (!authenticated_ && !local_peer_) {
      authenticated_ = true;
      admission_.authenticated();
      admission_.leave_peer_share();
    }
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
    // One line per kind of refusal and interval: a flood of bad frames must not flood the log.
    std::string kind;
    for (char c : message)
      if (!std::isdigit(static_cast<unsigned char>(c))) kind += c;
    shared_->log_limited("refused:" + kind, message);
    write(error_reply(status, std::move(message)), false);
  }

  void write(wire::ReplyEnvelope reply, bool keep_open) {
    if (shared_->options.master_epoch) reply.set_master_epoch(shared_->options.master_epoch);
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
  std::string address_;  // the TCP peer's address, for Peer
  Admission admission_;
  bool authenticated_ = false;
  FrameHeader header_{};
  std::vector<char> body_;
};

std::size_t descriptor_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1 << 20;
  return static_cast<std::size_t>(rl.rlim_cur);
}

}  // namespace

RpcServer::RpcServer(asio::io_context& io, const tcp::endpoint& endpoint, RequestHandler handler, ServerOptions options)
    : io_(io), acceptor_(io), shared_(std::make_shared<Shared>()), retry_timer_(io), local_retry_timer_(io) {
  shared_->handler = std::move(handler);
  if (options.key) shared_->verifier.emplace(*options.key, options.destination, options.started_at);
  for (const auto& [cluster, key] : options.pair_keys)
    shared_->pair_verifiers.emplace(
        cluster, RequestVerifier(key, "mbatchd@" + options.cluster_name, options.started_at,
                                 "the key shared with cluster " + cluster + " (" + std::string(kPairKeyPrefix) +
                                     cluster + " differs between the clusters?)"));
  const std::size_t limit = descriptor_limit();
  shared_->max_connections = options.max_connections ? options.max_connections
                                                     : (limit > 128 ? limit - 64 : std::max<std::size_t>(limit / 2, 8));
  shared_->options = std::move(options);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  accept();
}

RpcServer::~RpcServer() {
  stop();
  if (spare_fd_ >= 0) ::close(spare_fd_);
}

std::uint16_t RpcServer::port() const { return acceptor_.local_endpoint().port(); }

std::size_t RpcServer::connections() const { return shared_->connections; }
std::size_t RpcServer::unauthenticated_connections() const { return shared_->unauthenticated; }

daemon::Status RpcServer::listen_local(const std::string& path) {
  using local = asio::local::stream_protocol;
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    return daemon::fail(path + ": a local socket path must be shorter than " +
                        std::to_string(sizeof(sockaddr_un::sun_path)) + " characters");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return daemon::fail(path + ": exists and is not a socket; not replacing it");
    ::unlink(path.c_str());
  }
  boost::system::error_code ec;
  local_acceptor_.emplace(io_);
  local_acceptor_->open(local(), ec);
  if (!ec) local_acceptor_->bind(local::endpoint(path), ec);
  if (!ec) local_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    local_acceptor_.reset();
    return daemon::fail(path + ": cannot listen: " + ec.message());
  }
  // Every local user may connect; the kernel tells us who they are.
  ::chmod(path.c_str(), 0666);
  local_path_ = path;
  if (::lstat(path.c_str(), &st) == 0) local_inode_ = {st.st_dev, st.st_ino};
  accept_local();
  return {};
}

void RpcServer::stop() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  retry_timer_.cancel();
  local_retry_timer_.cancel();
  if (local_acceptor_) {
    local_acceptor_->close(ignored);
    local_acceptor_.reset();
    // Only our own: after a master takeover on one machine the path may be the new
    // master's socket by now.
    struct stat st {};
    if (::lstat(local_path_.c_str(), &st) == 0 && std::pair{st.st_dev, st.st_ino} == local_inode_)
      ::unlink(local_path_.c_str());
  }
}

void RpcServer::shed_one(const boost::system::error_code& ec) {
  shared_->log_limited("descriptors", "out of file descriptors (" + ec.message() + ") with " +
                                          std::to_string(shared_->connections) +
                                          " connections open; refusing new connections");
  if (spare_fd_ >= 0) {
    ::close(spare_fd_);
    spare_fd_ = -1;
  }
  int fd = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd >= 0) ::close(fd);
  if (local_acceptor_) {
    fd = ::accept4(local_acceptor_->native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

// After a failed accept (out of descriptors, say) the listener is tried again a moment
// later rather than at once, so the loop never spins.
void RpcServer::accept_later() {
  retry_timer_.expires_after(std::chrono::milliseconds(50));
  retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && acceptor_.is_open()) accept();
  });
}

namespace {

bool out_of_descriptors(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE || ec.value() == ENOBUFS || ec.value() == ENOMEM;
}

// Whether a new connection from `peer` may be served; otherwise why not.
daemon::Status admit(RpcServer::Shared& shared, const std::string& peer, bool unauthenticated) {
  const auto& o = shared.options;
  if (shared.connections >= shared.max_connections)
    return daemon::fail("too many connections (" + std::to_string(shared.connections) + " open, at most " +
                        std::to_string(shared.max_connections) + ")");
  if (unauthenticated && shared.unauthenticated >= o.max_unauthenticated)
    return daemon::fail("too many unauthenticated connections (at most " + std::to_string(o.max_unauthenticated) + ")");
  auto it = shared.per_peer.find(peer);
  if (it != shared.per_peer.end() && it->second >= o.max_connections_per_peer)
    return daemon::fail("too many connections from " + peer + " (at most " +
                        std::to_string(o.max_connections_per_peer) + ")");
  return {};
}

}  // namespace

void RpcServer::accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      if (out_of_descriptors(ec)) shed_one(ec);
      return accept_later();
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto remote = socket.remote_endpoint(ignored);
    const std::string peer = remote.address().to_string();
    // admit() reads the counts before this connection joins them.
    const auto admitted = admit(*shared_, peer, true);
    auto conn = std::make_shared<Connection<tcp::socket>>(std::move(socket), shared_, std::nullopt, peer);
    if (!admitted) {
      const std::string& why = admitted.message();
      shared_->log_limited("admit:" + why.substr(0, 12), "refusing a connection from " + peer + ": " + why);
      conn->refuse(why);
    } else {
      conn->start();
    }
    if (acceptor_.is_open()) accept();
  });
}

void RpcServer::accept_local() {
  local_acceptor_->async_accept([this](const boost::system::error_code& ec, local_socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      if (out_of_descriptors(ec)) shed_one(ec);
      local_retry_timer_.expires_after(std::chrono::milliseconds(50));
      local_retry_timer_.async_wait([this](const boost::system::error_code& e) {
        if (!e && local_acceptor_ && local_acceptor_->is_open()) accept_local();
      });
      return;
    }
    // Without credentials the caller cannot be named: drop the connection.
    if (auto cred = peer_credentials(socket)) {
      const std::string peer = "uid " + std::to_string(cred->uid);
      // admit() reads the counts before this connection joins them.
      const auto admitted = admit(*shared_, peer, false);
      auto conn = std::make_shared<Connection<local_socket>>(std::move(socket), shared_, *cred, peer);
      if (!admitted) {
        const std::string& why = admitted.message();
        shared_->log_limited("admit:" + why.substr(0, 12), "refusing a local connection from " + peer + ": " + why);
        conn->refuse(why);
      } else {
        conn->start();
      }
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
