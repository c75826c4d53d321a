// The request table's rules (daemons/mbatchd/router.h), driven without sockets: who
// may send which request type, and the event log's refusal of changes.
#include <gtest/gtest.h>

#include "daemons/mbatchd/router.h"

using namespace lsf;
using R = wire::RequestEnvelope;

namespace {

struct Fixture {
  int handled = 0;
  int holds = 0, releases = 0;
  std::string refusal;
  mbd::RequestRouter router{nullptr, hooks()};

  mbd::RouterHooks hooks() {
    mbd::RouterHooks h;
    h.is_admin = [](const wire::Identity& c) { return c.uid() == 0; };
    h.log_refusal = [this] { return refusal; };
    h.hold = [this] { ++holds; };
    h.release = [this] { ++releases; };
    return h;
  }
  void add(R::RequestCase kind, mbd::Sender sender, bool changes = false) {
    mbd::Route route;
    route.sender = sender;
    route.changes_state = changes;
    route.handler = [this](const R&, const net::Peer&, const net::Responder& respond) {
      ++handled;
      respond(net::ok_reply());
    };
    router.add(kind, std::move(route));
  }
  wire::ReplyEnvelope send(R request, net::PeerKind kind = net::PeerKind::kLocalUser) {
    net::Peer peer;
    peer.kind = kind;
    wire::ReplyEnvelope out;
    router.dispatch(request, peer, [&](wire::ReplyEnvelope r) { out = std::move(r); });
    return out;
  }
};

R request_of(void (*fill)(R&), int uid = 1000) {
  R r;
  fill(r);
  r.mutable_caller()->set_uid(uid);
  r.mutable_caller()->set_user_name(uid == 0 ? "root" : "alice");
  return r;
}

void ping(R& r) { r.mutable_ping(); }
void host_control(R& r) { r.mutable_host_control(); }
void register_host(R& r) { r.mutable_register_host(); }
void lease_offer(R& r) { r.mutable_lease_offer(); }
void job_status(R& r) { r.mutable_job_status(); }
void submit(R& r) { r.mutable_submit(); }

}  // namespace

TEST(RequestRouter, AdminRequestsComeOnlyFromAdministrators) {
  Fixture f;
  f.add(R::kHostControl, mbd::Sender::kAdmin, true);
  EXPECT_EQ(f.send(request_of(host_control)).status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(f.handled, 0);
  EXPECT_EQ(f.send(request_of(host_control, 0)).status(), wire::STATUS_OK);
  EXPECT_EQ(f.handled, 1);
}

TEST(RequestRouter, DaemonRequestsComeOnlyFromDaemons) {
  Fixture f;
  f.add(R::kRegisterHost, mbd::Sender::kDaemon);
  EXPECT_EQ(f.send(request_of(register_host, 0)).status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(f.send(request_of(register_host), net::PeerKind::kClusterKey).status(), wire::STATUS_OK);
  EXPECT_EQ(f.send(request_of(register_host), net::PeerKind::kRemoteCluster).status(), wire::STATUS_PERMISSION_DENIED);
}

TEST(RequestRouter, OtherClustersSendOnlyMultiCluster) {
  Fixture f;
  f.add(R::kPing, mbd::Sender::kAnyone);
  f.add(R::kLeaseOffer, mbd::Sender::kCluster);
  f.add(R::kJobStatus, mbd::Sender::kDaemonOrCluster, true);
  EXPECT_EQ(f.send(request_of(ping), net::PeerKind::kRemoteCluster).status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(f.send(request_of(lease_offer), net::PeerKind::kClusterKey).status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(f.send(request_of(lease_offer), net::PeerKind::kRemoteCluster).status(), wire::STATUS_OK);
  EXPECT_EQ(f.send(request_of(job_status), net::PeerKind::kRemoteCluster).status(), wire::STATUS_OK);
  EXPECT_EQ(f.send(request_of(job_status), net::PeerKind::kLocalUser).status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(f.handled, 2);
}

TEST(RequestRouter, ChangesAreRefusedWhileTheLogCannotTakeThem) {
  Fixture f;
  f.add(R::kSubmit, mbd::Sender::kAnyone, true);
  f.add(R::kPing, mbd::Sender::kAnyone);
  f.refusal = "cannot write the event log: No space left on device";
  auto reply = f.send(request_of(submit));
  EXPECT_EQ(reply.status(), wire::STATUS_UNAVAILABLE);
  EXPECT_EQ(reply.message(), f.refusal);  // bsub adds its own ending
  EXPECT_EQ(f.send(request_of(ping)).status(), wire::STATUS_OK);
  EXPECT_EQ(f.holds, 2);
  EXPECT_EQ(f.releases, 2);
}

TEST(RequestRouter, UnknownTypesAreNotServed) {
  Fixture f;
  EXPECT_EQ(f.send(request_of(ping)).status(), wire::STATUS_BAD_REQUEST);
}
