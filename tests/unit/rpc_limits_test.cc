// What a peer may cost a daemon: frames before and after authentication, the time an
// unauthenticated or idle connection is kept, connections per peer and in all, and a
// signed request's destination and age (replays across a restart or another daemon).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "daemons/common/request_auth.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"

using namespace lsf;
using namespace std::chrono_literals;

namespace {

std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

const net::ClusterKey kKey{"correct horse battery"};

wire::RequestEnvelope ping() {
  wire::RequestEnvelope r;
  r.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  r.mutable_caller()->set_user_name("lsfadmin");
  r.mutable_ping();
  return r;
}

// A raw TCP connection to the server: what a client without the key can do.
class RawConnection {
 public:
  explicit RawConnection(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  void send(const std::string& bytes) { ASSERT_EQ(::write(fd_, bytes.data(), bytes.size()), ssize_t(bytes.size())); }
  // Everything the server sends until it closes the connection or `wait` passes; sets
  // closed when it did close.
  std::string read_until_closed(std::chrono::milliseconds wait, bool& closed) {
    std::string out;
    closed = false;
    auto end = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) {
        closed = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string header(std::uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 8) & 0xff),
          static_cast<char>(n & 0xff)};
}

// The message of the reply frame in `bytes`, or empty.
std::string reply_message(const std::string& bytes) {
  if (bytes.size() < 4) return {};
  wire::ReplyEnvelope reply;
  if (!reply.ParseFromArray(bytes.data() + 4, static_cast<int>(bytes.size() - 4))) return {};
  return reply.message();
}

class RpcLimitsTest : public ::testing::Test {
 protected:
  void start(net::ServerOptions o) {
    o.key = kKey;
    if (o.destination.empty()) o.destination = "mbatchd";
    o.log_error = [this](const std::string& m) {
      std::lock_guard lock(mu_);
      logged_.push_back(m);
    };
    server_ = std::make_unique<net::RpcServer>(
        io_, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0),
        [](wire::RequestEnvelope&, const net::Peer&, const net::Responder& respond) {
          wire::ReplyEnvelope reply;
          reply.mutable_ping()->set_master_name("ok");
          respond(reply);
        },
        o);
    port_ = server_->port();
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    if (!server_) return;  // skipped before start()
    net::asio::post(io_, [this] {
      server_->stop();
      io_.stop();
    });
    thread_.join();
  }
  std::unique_ptr<net::RpcClient> signer(const std::string& destination = "mbatchd") {
    auto c = std::make_unique<net::RpcClient>("127.0.0.1", port_, 5s);
    c->set_key(kKey, destination);
    return c;
  }
  std::size_t connections() {
    std::promise<std::size_t> p;
    net::asio::post(io_, [&] { p.set_value(server_->connections()); });
    return p.get_future().get();
  }
  // Waits (bounded) until the server holds `n` connections.
  bool wait_connections(std::size_t n) {
    for (int i = 0; i < 200; ++i) {
      if (connections() == n) return true;
      std::this_thread::sleep_for(25ms);
    }
    return false;
  }
  std::vector<std::string> logged() {
    std::lock_guard lock(mu_);
    return logged_;
  }

  net::asio::io_context io_;
  std::unique_ptr<net::RpcServer> server_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> logged_;
};

}  // namespace

TEST_F(RpcLimitsTest, BeforeAuthenticationOnlySmallFramesAreRead) {
  start({});
  RawConnection raw(port_);
  ASSERT_TRUE(raw.connected());
  raw.send(header(1u << 20));  // names a 1 MiB body and sends none of it
  bool closed = false;
  auto reply = raw.read_until_closed(5s, closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(reply_message(reply),
            "frame of 1048576 bytes exceeds the maximum of 65536 bytes before the connection has authenticated");

  // A signed client sends a large request all the same: its connection proves itself first.
  auto c = signer();
  auto big = ping();
  big.mutable_submit()->mutable_spec()->set_command(std::string(200000, 'x'));
  auto res = c->call(big);
  ASSERT_TRUE(res.ok()) << res.message();
}

TEST_F(RpcLimitsTest, AnUnauthenticatedConnectionIsClosedAfterItsTimeAndAnIdleOneAfterItsOwn) {
  net::ServerOptions o;
  o.unauthenticated_timeout = 300ms;
  o.idle_timeout = 600ms;
  start(o);
  RawConnection silent(port_);
  ASSERT_TRUE(silent.connected());
  bool closed = false;
  silent.read_until_closed(10s, closed);
  EXPECT_TRUE(closed) << "a connection that never authenticates is dropped";

  // Dribbling bytes does not extend an unauthenticated connection's time.
  RawConnection slow(port_);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) {
    slow.send(std::string(1, '\0'));
    std::this_thread::sleep_for(100ms);
  }
  slow.read_until_closed(10s, closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);

  auto c = signer();
  ASSERT_TRUE(c->call(ping()).ok());
  ASSERT_TRUE(wait_connections(1));
  ASSERT_TRUE(wait_connections(0)) << "an idle authenticated connection is closed after idle_timeout";
  // The client notices the closed connection and opens another.
  auto again = c->call(ping());
  EXPECT_TRUE(again.ok()) << again.message();
}

TEST_F(RpcLimitsTest, ConnectionsAreBoundedPerPeerAndTheRefusalIsLoggedOnce) {
  net::ServerOptions o;
  o.max_connections_per_peer = 3;
  start(o);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawConnection>(port_));
  ASSERT_TRUE(wait_connections(3));
  for (int i = 0; i < 2; ++i) {
    RawConnection extra(port_);
    bool closed = false;
    auto reply = extra.read_until_closed(5s, closed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(reply_message(reply), "too many connections from 127.0.0.1 (at most 3)");
  }
  auto lines = logged();
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("too many connections") != std::string::npos; }),
            1);
  held.clear();
  ASSERT_TRUE(wait_connections(0));
  auto c = signer();
  EXPECT_TRUE(c->call(ping()).ok());
}

TEST_F(RpcLimitsTest, ConnectionsAreBoundedInAll) {
  net::ServerOptions o;
  o.max_connections = 2;
  start(o);
  auto a = signer();
  auto b = signer();
  ASSERT_TRUE(a->call(ping()).ok());
  ASSERT_TRUE(b->call(ping()).ok());
  RawConnection extra(port_);
  bool closed = false;
  auto reply = extra.read_until_closed(5s, closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(reply_message(reply), "too many connections (2 open, at most 2)");
  // The connections it has are still served.
  EXPECT_TRUE(a->call(ping()).ok());
}

// Out of descriptors, the daemon still serves the connections it has, refuses new ones
// at once, says so once, and recovers when descriptors come back.
TEST_F(RpcLimitsTest, OutOfDescriptorsTheOpenConnectionsAreStillServed) {
#if defined(__SANITIZE_ADDRESS__)
  // Under the sanitizers' runtime, starving the process of descriptors trips UBSan's vptr
  // check inside Boost's error categories (seen in CI); the normal build runs it.
  GTEST_SKIP() << "descriptor exhaustion is tested in the build without sanitizers";
#endif
  start({});
  auto c = signer();
  ASSERT_TRUE(c->call(ping()).ok());
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  int open_now = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++open_now;
  rlimit low{static_cast<rlim_t>(open_now + 16), old.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  // The clients live in a child, whose descriptors are its own: only the server's run out.
  const std::uint16_t port = port_;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setrlimit(RLIMIT_NOFILE, &old);
    for (int i = 0; i < 64; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (fd >= 0) (void)::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    ::pause();
    _exit(0);
  }
  auto said = [&] {
    auto lines = logged();
    return std::count_if(lines.begin(), lines.end(),
                         [](const std::string& l) { return l.find("out of file descriptors") != std::string::npos; });
  };
  for (int i = 0; i < 200 && said() == 0; ++i) std::this_thread::sleep_for(25ms);
  EXPECT_EQ(said(), 1) << "the condition is logged, once";
  auto served = c->call(ping());
  EXPECT_TRUE(served.ok()) << served.message();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
  ASSERT_TRUE(wait_connections(1)) << "the shed and the child's connections are all gone";
  EXPECT_TRUE(signer()->call(ping()).ok()) << "new connections are served again";
}

TEST_F(RpcLimitsTest, ARequestForAnotherDaemonIsRefused) {
  start({});
  auto wrong = signer("sbatchd@hostA");
  auto res = wrong->call(ping());
  ASSERT_TRUE(res.reply);
  EXPECT_EQ(res.reply->status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(res.message(),
            "Authentication failed: the request is addressed to sbatchd@hostA, not to this daemon (mbatchd)");
  EXPECT_TRUE(signer()->call(ping()).ok());
}

// The nonces a daemon has seen die with it; what was signed before it started is not
// believed, so a request captured before a restart cannot be played again after it.
TEST(RequestAuthRestart, ARequestSignedBeforeTheStartIsRefused) {
  auto captured = ping();
  net::sign_request(captured, kKey, now() - 5, "mbatchd");
  auto replay = captured;
  net::RequestVerifier before_restart(kKey, "mbatchd", now() - 60);
  EXPECT_EQ(before_restart.verify(captured, now()).message(), "");
  net::RequestVerifier after_restart(kKey, "mbatchd", now());
  EXPECT_EQ(after_restart.verify(replay, now()).message(),
            "the request was signed before this daemon started (a replay, or the sender's clock is behind)");
}
