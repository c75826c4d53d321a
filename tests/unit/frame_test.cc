// Wire framing and the RPC server's answers to bad input, over a real socket.
#include <gtest/gtest.h>

#include <thread>

#include "daemons/common/frame.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"

using namespace lsf;

TEST(Frame, LengthIsBigEndianPrefix) {
  wire::RequestEnvelope r;
  r.mutable_ping();
  auto f = net::encode_frame(r);
  net::FrameHeader h{};
  std::copy(f.begin(), f.begin() + 4, h.begin());
  EXPECT_EQ(net::decode_frame_length(h), f.size() - 4);
}

class RpcServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    net::ServerOptions o;
    o.max_frame = 1024;
    o.body_timeout = std::chrono::milliseconds(200);
    o.trust_unsigned = true;  // framing, not authentication, is under test here
    server_ = std::make_unique<net::RpcServer>(
        io_, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0),
        [](wire::RequestEnvelope& req, const net::Peer&, const net::Responder& respond) {
          wire::ReplyEnvelope reply;
          reply.mutable_ping()->set_cluster_name(req.caller().user_name());
          respond(reply);
        },
        o);
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    net::asio::post(io_, [this] {
      server_->stop();
      io_.stop();
    });
    thread_.join();
  }
  net::RpcClient client() { return net::RpcClient("127.0.0.1", server_->port(), std::chrono::seconds(2)); }

  net::asio::io_context io_;
  std::unique_ptr<net::RpcServer> server_;
  std::thread thread_;
};

TEST_F(RpcServerTest, AnswersAWellFormedRequest) {
  auto c = client();
  wire::RequestEnvelope r;
  r.mutable_caller()->set_user_name("alice");
  r.mutable_ping();
  auto res = c.call(r);
  ASSERT_TRUE(res.ok()) << res.message();
  EXPECT_EQ(res.reply->ping().cluster_name(), "alice");
  // The connection is reused for the next call.
  EXPECT_TRUE(c.call(r).ok());
}

TEST_F(RpcServerTest, RefusesBadFramesWithClearErrors) {
  auto c = client();
  auto oversized = c.call_raw(std::string("\x00\x00\x10\x00", 4));
  ASSERT_TRUE(oversized.reply);
  EXPECT_EQ(oversized.reply->message(),
            "frame of 4096 bytes exceeds the maximum of 1024 bytes before the connection has authenticated");
  auto c2 = client();
  auto garbage = c2.call_raw(std::string("\x00\x00\x00\x03\xff\xff\xff", 7));
  ASSERT_TRUE(garbage.reply);
  EXPECT_EQ(garbage.reply->message(), "malformed request frame");
  auto c3 = client();
  wire::RequestEnvelope none;  // no request set
  auto unknown = c3.call(none);
  EXPECT_EQ(unknown.reply->message(), "unknown request type");
  auto c4 = client();
  wire::RequestEnvelope old;
  old.mutable_ping();
  old.set_protocol_version(9);
  auto mismatch = c4.call_raw(net::encode_frame(old));
  EXPECT_EQ(mismatch.reply->status(), wire::STATUS_VERSION_MISMATCH);
}

TEST_F(RpcServerTest, ShortReadIsDroppedAndOthersAreServed) {
  auto stalled = client();
  stalled.set_timeout(std::chrono::milliseconds(500));
  auto res = stalled.call_raw(std::string("\x00\x00\x00\x40\x08", 5));  // promises 64 bytes, sends 1
  EXPECT_FALSE(res.reply);                                              // the server closed it after its body timeout
  auto other = client();
  wire::RequestEnvelope r;
  r.mutable_ping();
  EXPECT_TRUE(other.call(r).ok());
}

TEST(RpcClient, TimesOutAndNamesThePeer) {
  net::RpcClient c("127.0.0.1", 1, std::chrono::milliseconds(300));
  wire::RequestEnvelope r;
  r.mutable_ping();
  auto res = c.call(r);
  EXPECT_FALSE(res.reply);
  EXPECT_NE(res.error.find("127.0.0.1:1"), std::string::npos) << res.error;
}
