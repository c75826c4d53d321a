// Who is asking: the cluster key file's rules, signed requests (tampering, wrong key,
// replay, clock skew), and the RPC server's answer on TCP and on its local socket.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "daemons/common/cluster_key.h"
#include "daemons/common/request_auth.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"

using namespace lsf;
namespace fs = std::filesystem;

namespace {

std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

wire::RequestEnvelope ping_as(const std::string& user, std::uint32_t uid) {
  wire::RequestEnvelope r;
  r.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  r.mutable_caller()->set_user_name(user);
  r.mutable_caller()->set_uid(uid);
  r.mutable_ping();
  return r;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/lsfsched-auth.XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_sudoers(const fs::path& dir, const std::string& text, mode_t mode) {
  std::ofstream(dir / "lsf.sudoers") << text;
  ::chmod((dir / "lsf.sudoers").c_str(), mode);
}

}  // namespace

TEST(ClusterKey, ReadsLsfEauthKeyFromAPrivateLsfSudoers) {
  TempDir d;
  write_sudoers(d.path(), "# the cluster's secret\nLSF_EAUTH_KEY=\"correct horse battery\"\n", 0600);
  auto r = net::load_cluster_key(d.path());
  ASSERT_TRUE(r.key) << r.error;
  EXPECT_EQ(r.key->secret, "correct horse battery");
}

TEST(ClusterKey, RefusesAFileOthersCanRead) {
  TempDir d;
  write_sudoers(d.path(), "LSF_EAUTH_KEY=correct horse battery\n", 0644);
  auto r = net::load_cluster_key(d.path());
  EXPECT_FALSE(r.key);
  EXPECT_EQ(r.error, (d.path() / "lsf.sudoers").string() +
                         ": must not be readable or writable by group or others (mode 0644); run: chmod 600 " +
                         (d.path() / "lsf.sudoers").string());
}

TEST(ClusterKey, RefusesAShortKeyAndReportsAMissingOne) {
  TempDir d;
  write_sudoers(d.path(), "\nLSF_EAUTH_KEY=abc\n", 0600);
  EXPECT_EQ(net::load_cluster_key(d.path()).error,
            (d.path() / "lsf.sudoers").string() + ":2: LSF_EAUTH_KEY must be at least 6 characters");
  write_sudoers(d.path(), "LSF_EAUTH_USER=lsfadmin\n", 0600);
  auto r = net::load_cluster_key(d.path());
  EXPECT_TRUE(r.missing);
  EXPECT_FALSE(r.key);
  fs::remove(d.path() / "lsf.sudoers");
  EXPECT_TRUE(net::load_cluster_key(d.path()).missing);
}

TEST(RequestAuth, ASignedRequestVerifiesOnceAndOnlyUnchanged) {
  net::ClusterKey key{"correct horse battery"};
  net::RequestVerifier verifier(key, "mbatchd", 0);
  auto r = ping_as("alice", 1000);
  net::sign_request(r, key, now(), "mbatchd");
  auto replay = r;
  auto tampered = r;
  EXPECT_EQ(verifier.verify(r, now()).message(), "");
  EXPECT_FALSE(r.has_auth());  // handlers never see the signature
  EXPECT_EQ(verifier.verify(replay, now()).message(), "the request was already received once (a replay)");
  tampered.mutable_caller()->set_uid(0);
  EXPECT_NE(verifier.verify(tampered, now()).message().find("does not match the cluster key"), std::string::npos);
}

TEST(RequestAuth, RefusesAnotherKeyAStaleClockAndNoSignature) {
  net::RequestVerifier verifier(net::ClusterKey{"correct horse battery"}, "mbatchd", 0);
  auto other = ping_as("alice", 1000);
  net::sign_request(other, net::ClusterKey{"another key entirely"}, now(), "mbatchd");
  EXPECT_NE(verifier.verify(other, now()).message().find("does not match the cluster key"), std::string::npos);
  auto stale = ping_as("alice", 1000);
  net::sign_request(stale, net::ClusterKey{"correct horse battery"}, now() - 600, "mbatchd");
  EXPECT_EQ(verifier.verify(stale, now()).message(),
            "the sender's clock is 600 s away from this host's (at most 300 s is accepted)");
  auto unsigned_request = ping_as("root", 0);
  EXPECT_EQ(verifier.verify(unsigned_request, now()).message(), "the request is not signed with the cluster key");
}

// MultiCluster pair keys sit beside the cluster key, one per remote cluster, with the
// same rules.
TEST(ClusterKey, ReadsMultiClusterPairKeys) {
  TempDir d;
  write_sudoers(d.path(), "LSF_EAUTH_KEY=correct horse battery\nLSB_MC_KEY_east=shared with east\n", 0600);
  auto r = net::load_cluster_key(d.path());
  ASSERT_TRUE(r.key) << r.error;
  ASSERT_EQ(r.pair_keys.size(), 1u);
  EXPECT_EQ(r.pair_keys.at("east").secret, "shared with east");
  write_sudoers(d.path(), "LSF_EAUTH_KEY=correct horse battery\nLSB_MC_KEY_east=short\n", 0600);
  EXPECT_EQ(net::load_cluster_key(d.path()).error,
            (d.path() / "lsf.sudoers").string() + ":2: LSB_MC_KEY_east must be at least 6 characters");
}

// A server that answers with who it believes is asking, and how it knows.
class AuthServerTest : public ::testing::Test {
 protected:
  void start(net::ServerOptions o) {
    server_ = std::make_unique<net::RpcServer>(
        io_, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0),
        [this](wire::RequestEnvelope& req, const net::Peer& peer, const net::Responder& respond) {
          ++handled_;
          wire::ReplyEnvelope reply;
          reply.mutable_ping()->set_cluster_name(req.caller().user_name() + "/" + std::to_string(req.caller().uid()));
          reply.mutable_ping()->set_master_name(peer.kind == net::PeerKind::kLocalUser       ? "local"
                                                : peer.kind == net::PeerKind::kClusterKey    ? "key"
                                                : peer.kind == net::PeerKind::kRemoteCluster ? "cluster " + peer.cluster
                                                                                             : "trusted");
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

  TempDir dir_;
  net::asio::io_context io_;
  std::unique_ptr<net::RpcServer> server_;
  std::thread thread_;
  std::atomic<int> handled_{0};
};

TEST_F(AuthServerTest, TcpNeedsTheKeyAndThenBelievesTheClaimedUser) {
  net::ServerOptions o;
  o.key = net::ClusterKey{"correct horse battery"};
  start(o);
  auto unsigned_client = client();
  auto refused = unsigned_client.call(ping_as("root", 0));
  ASSERT_TRUE(refused.reply);
  EXPECT_EQ(refused.reply->status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(refused.reply->message(), "Authentication failed: the request is not signed with the cluster key");
  auto wrong = client();
  wrong.set_key(net::ClusterKey{"a guess at the key"}, "");
  EXPECT_EQ(wrong.call(ping_as("root", 0)).reply->status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(handled_.load(), 0);  // neither reached the handler

  auto signer = client();
  signer.set_key(net::ClusterKey{"correct horse battery"}, "");
  auto ok = signer.call(ping_as("lsfadmin", 500));
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok.reply->ping().cluster_name(), "lsfadmin/500");
  EXPECT_EQ(ok.reply->ping().master_name(), "key");
  EXPECT_TRUE(signer.call(ping_as("lsfadmin", 500)).ok());  // a fresh nonce each call
}

TEST_F(AuthServerTest, LocalSocketNamesTheCallerFromTheKernel) {
  start({});
  const std::string path = (dir_.path() / "mbd.sock").string();
  ASSERT_EQ(server_->listen_local(path).message(), "");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);  // every local user may connect

  auto c = client();
  c.set_local_socket(path);
  auto res = c.call(ping_as("mallory", 4242));  // a claim the kernel overrules
  ASSERT_TRUE(res.ok()) << res.message();
  EXPECT_TRUE(c.is_local());
  auto id = net::current_identity();
  EXPECT_EQ(res.reply->ping().cluster_name(), id.user_name() + "/" + std::to_string(getuid()));
  EXPECT_EQ(res.reply->ping().master_name(), "local");

  // Without a key, TCP is closed to everyone.
  auto tcp = client();
  EXPECT_EQ(tcp.call(ping_as("root", 0)).reply->status(), wire::STATUS_PERMISSION_DENIED);
}

TEST_F(AuthServerTest, ListenLocalReplacesAStaleSocketButNoOtherFile) {
  start({});
  const std::string file = (dir_.path() / "not-a-socket").string();
  std::ofstream(file) << "data";
  EXPECT_EQ(server_->listen_local(file).message(), file + ": exists and is not a socket; not replacing it");
  EXPECT_TRUE(fs::exists(file));
}

TEST_F(AuthServerTest, LsfAuthNoneBelievesUnsignedTcp) {
  net::ServerOptions o;
  o.trust_unsigned = true;
  start(o);
  auto c = client();
  auto res = c.call(ping_as("alice", 1000));
  ASSERT_TRUE(res.ok()) << res.message();
  EXPECT_EQ(res.reply->ping().master_name(), "trusted");
}

// Another cluster's mbatchd signs with the key the pair shares and names its cluster;
// the server believes the cluster, not that it is one of this cluster's daemons.
TEST_F(AuthServerTest, ARemoteClusterSignsWithItsPairKey) {
  net::ServerOptions o;
  o.key = net::ClusterKey{"correct horse battery"};
  o.pair_keys["east"] = net::ClusterKey{"shared with east"};
  o.cluster_name = "here";
  start(o);
  auto east = client();
  east.set_cluster_key("east", net::ClusterKey{"shared with east"}, "here");
  auto ok = east.call(ping_as("root", 0));
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok.reply->ping().master_name(), "cluster east");
  net::Peer remote;
  remote.kind = net::PeerKind::kRemoteCluster;
  EXPECT_FALSE(remote.is_daemon());

  auto pretender = client();  // the cluster key is not east's key
  pretender.set_cluster_key("east", net::ClusterKey{"correct horse battery"}, "here");
  EXPECT_EQ(pretender.call(ping_as("root", 0)).reply->status(), wire::STATUS_PERMISSION_DENIED);
  auto west = client();
  west.set_cluster_key("west", net::ClusterKey{"shared with east"}, "here");
  auto refused = west.call(ping_as("root", 0));
  ASSERT_TRUE(refused.reply);
  EXPECT_EQ(refused.reply->message(),
            "Authentication failed: no MultiCluster key for cluster west (LSB_MC_KEY_west in lsf.sudoers)");
  EXPECT_EQ(handled_.load(), 1);
}
