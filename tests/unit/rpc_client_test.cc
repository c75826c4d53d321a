// RpcClient against a daemon that goes away between calls: a call that fails on a
// connection kept from an earlier call, before any reply, is tried once more on a fresh
// one; a call on a fresh connection is not.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "daemons/common/frame.h"
#include "daemons/common/rpc_client.h"

using namespace lsf;

namespace {

bool read_exactly(int fd, void* buf, std::size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// Reads one request frame; false when the peer closed first.
bool read_request(int fd) {
  net::FrameHeader header{};
  if (!read_exactly(fd, header.data(), header.size())) return false;
  std::string body(net::decode_frame_length(header), '\0');
  return read_exactly(fd, body.data(), body.size());
}

void answer(int fd) {
  wire::ReplyEnvelope reply;
  reply.set_status(wire::STATUS_OK);
  reply.mutable_ping()->set_master_name("fake");
  std::string bytes = net::encode_frame(reply);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// A daemon whose first connection answers `answered` requests, then reads one more and
// drops the connection unanswered (as a daemon that stops between requests does); it
// answers everything on the connections after it.
class FlakyDaemon {
 public:
  explicit FlakyDaemon(int answered) : answered_(answered) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(listener_, 4);
    thread_ = std::thread([this] { serve(); });
  }
  ~FlakyDaemon() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  int connections() const { return connections_; }

 private:
  void serve() {
    for (;;) {
      int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      const bool first = connections_++ == 0;
      if (first) {
        for (int i = 0; i < answered_ && read_request(fd); ++i) answer(fd);
        read_request(fd);  // and no answer
      } else {
        while (read_request(fd)) answer(fd);
      }
      ::close(fd);
    }
  }
  int answered_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

wire::RequestEnvelope ping() {
  wire::RequestEnvelope r;
  r.mutable_ping();
  return r;
}

}  // namespace

TEST(RpcClient, ACallThatFailsOnAKeptConnectionIsTriedOnceMoreOnAFreshOne) {
  FlakyDaemon daemon(1);
  net::RpcClient client("127.0.0.1", daemon.port(), std::chrono::seconds(10));
  ASSERT_TRUE(client.call(ping()).ok());
  auto second = client.call(ping());
  EXPECT_TRUE(second.ok()) << second.error;
  EXPECT_EQ(daemon.connections(), 2);
}

TEST(RpcClient, ACallOnAFreshConnectionIsNotRepeated) {
  FlakyDaemon daemon(0);
  net::RpcClient client("127.0.0.1", daemon.port(), std::chrono::seconds(10));
  auto first = client.call(ping());
  EXPECT_FALSE(first.reply.has_value());
  EXPECT_TRUE(first.may_have_arrived);  // it was read: the caller must not say it was not
  EXPECT_EQ(daemon.connections(), 1);
}
