// The ClusterLinks component (daemons/mbatchd/cluster_links.h): MultiCluster offers,
// leases and relays, driven through its public functions with a ClusterState, a
// MemoryEventSink and hooks that stand for the rest of mbatchd; no other cluster
// listens, so calls to one fail as an unreached cluster's would.
#include "daemons/mbatchd/cluster_links.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config_tree.h"
#include "event_records.h"
#include "libsched/sim/cluster_model.h"

using namespace lsf;
using mbd::ClusterLinks;
using mbd::HostStatus;

namespace {

constexpr std::int64_t kLeaseIdBase = 1'000'000'000'000;  // lease ids: the consumer's place times this

// Cluster "test" (hostA hostB hostC, queue normal) with peers remote1 and remote2 in
// lsf.shared, and the lsb.resources given.
struct Cluster {
  lsf::testing::ConfigTree tree;
  std::shared_ptr<const config::ClusterConfig> config;
  sched::ClusterView view;
  mbd::ClusterState state;
  mbd::MemoryEventSink sink{state};
  net::asio::io_context io;
  net::asio::thread_pool outbound{1};
  std::map<std::string, net::ClusterKey> pair_keys;
  std::unique_ptr<ClusterLinks> links;

  // What the hooks saw and answer.
  std::map<std::string, HostStatus> status;  // hosts not named: ok
  std::vector<std::pair<std::string, wire::RequestEnvelope>> sbatchd_calls;
  std::vector<std::string> resent;
  std::vector<std::pair<sched::JobKey, std::string>> recalled;
  int passes = 0;

  explicit Cluster(const std::string& lsb_resources = "") {
    tree.write("conf/lsf.shared",
               "Begin Cluster\nClusterName\ntest\nremote1\nremote2\nEnd Cluster\n"
               "Begin HostType\nTYPENAME\nLINUX64\nEnd HostType\n"
               "Begin HostModel\nMODELNAME CPUFACTOR ARCHITECTURE\nGeneric 1.0 (x86_64)\nEnd HostModel\n");
    tree.write("conf/lsf.cluster.test",
               "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
               "Begin Host\nHOSTNAME model type server RESOURCES\n"
               "hostA Generic LINUX64 1 ()\nhostB Generic LINUX64 1 ()\nhostC Generic LINUX64 1 ()\nEnd Host\n");
    if (!lsb_resources.empty()) tree.lsb("lsb.resources", lsb_resources);
    auto loaded = tree.load();
    EXPECT_TRUE(loaded.usable()) << lsf::testing::errors_of(loaded);
    config = loaded.config;
    view = sched::sim::model_cluster(*config, {0, 4});
    state.sync_config(*config, view.policy);

    mbd::ClusterLinksHooks h;
    h.view = [this] { return view; };
    h.policy = [this] { return view.policy; };
    h.status_of = [this](const std::string& host) {
      auto it = status.find(host);
      return it == status.end() ? HostStatus::kOk : it->second;
    };
    h.max_slots = [](const std::string&) { return 4; };
    h.call_host = [this](const std::string& host, wire::RequestEnvelope request,
                         std::function<void(const net::CallResult&)> done) {
      sbatchd_calls.emplace_back(host, std::move(request));
      net::CallResult ok;
      ok.reply = net::ok_reply();
      done(ok);
    };
    h.kill_and_requeue = [this](const mbd::Job& job, const std::string& reason) {
      recalled.emplace_back(job.key, reason);
      return true;
    };
    h.resend_signals = [this](const std::string& host) { resent.push_back(host); };
    h.request_pass = [this] { ++passes; };
    h.report_interval = [] { return std::chrono::milliseconds(60'000); };
    h.own_port = [] { return std::uint16_t{0}; };
    links = std::make_unique<ClusterLinks>(
        mbd::ComponentContext{config, state, sink, std::make_shared<spdlog::logger>("cluster_links_test")},
        std::move(h), mbd::ClusterTransport{io, outbound, pair_keys});
  }
  ~Cluster() { outbound.join(); }

  wire::ReplyEnvelope offer_from(const std::string& peer_cluster, const wire::LeaseOfferRequest& offer) {
    wire::RequestEnvelope request;
    *request.mutable_lease_offer() = offer;
    net::Peer peer;
    peer.kind = net::PeerKind::kRemoteCluster;
    peer.cluster = peer_cluster;
    std::optional<wire::ReplyEnvelope> reply;
    links->on_lease_offer(request, peer, [&](wire::ReplyEnvelope r) { reply = std::move(r); });
    EXPECT_TRUE(reply.has_value());
    return reply.value_or(wire::ReplyEnvelope());
  }

  wire::ReplyEnvelope relay_from(const std::string& consumer, const std::string& host, wire::RequestEnvelope inner) {
    wire::RequestEnvelope request;
    request.mutable_lease_relay()->set_host(host);
    *request.mutable_lease_relay()->mutable_request() = std::move(inner);
    net::Peer peer;
    peer.kind = net::PeerKind::kRemoteCluster;
    peer.cluster = consumer;
    std::optional<wire::ReplyEnvelope> reply;
    links->on_lease_relay(request, peer, [&](wire::ReplyEnvelope r) { reply = std::move(r); });
    EXPECT_TRUE(reply.has_value());
    return reply.value_or(wire::ReplyEnvelope());
  }
};

wire::OfferedHost offered(const std::string& host, int slots, const std::string& status) {
  wire::OfferedHost h;
  h.set_host(host);
  h.set_slots(slots);
  h.set_status(status);
  h.set_type("LINUX64");
  return h;
}

// A consumer's job as the provider's sbatchd was sent it: `slots` slots of `host`.
wire::JobLaunch launch(std::int64_t lease_id, const std::string& host, int slots, std::int64_t start_time) {
  wire::JobLaunch l;
  l.set_job_id(lease_id);
  l.set_user("alice");
  l.set_queue("normal@remote1");
  l.set_start_time(start_time);
  for (int i = 0; i < slots; ++i) l.add_exec_hosts(host);
  return l;
}

sched::mc::HostGrant grant(const std::string& host, const std::string& cluster, int slots, bool shared = false) {
  sched::mc::HostGrant g;
  g.host = host;
  g.cluster = cluster;
  g.slots = slots;
  g.shared = shared;
  return g;
}

}  // namespace

// A provider numbers a consumer's jobs by the consumer's place in lsf.shared, so that
// its sbatchds' reports find their way back.
TEST(ClusterLinks, LeaseJobIdsMapToAndFromTheirConsumer) {
  Cluster c;
  const std::int64_t id = c.links->lease_job_id("remote2", 42);
  EXPECT_EQ(id, 3 * kLeaseIdBase + 42);  // test, remote1, remote2
  EXPECT_EQ(c.links->lease_job_owner(id), (std::pair<std::string, std::int64_t>{"remote2", 42}));
  EXPECT_EQ(c.links->lease_job_owner(c.links->lease_job_id("remote1", 7)),
            (std::pair<std::string, std::int64_t>{"remote1", 7}));
  EXPECT_TRUE(ClusterLinks::is_lease_job_id(id));
  EXPECT_FALSE(ClusterLinks::is_lease_job_id(42));
  EXPECT_EQ(c.links->lease_job_id("elsewhere", 42), 0);  // not in lsf.shared
  EXPECT_EQ(c.links->lease_job_owner(42), (std::pair<std::string, std::int64_t>{}));
  EXPECT_EQ(c.links->lease_job_owner(9 * kLeaseIdBase + 1), (std::pair<std::string, std::int64_t>{}));
}

// Consumer: remote1 offers hostX (ok) and hostY (unavail to it); both appear as
// host@remote1 with the status the provider gave, in bhosts and in the pass's view.
TEST(ClusterLinks, AnOfferMakesBorrowedHostsAppearWithTheProvidersStatus) {
  Cluster c;
  wire::LeaseOfferRequest offer;
  offer.set_provider("remote1");
  *offer.add_hosts() = offered("hostX", 4, "ok");
  *offer.add_hosts() = offered("hostY", 2, "unavail");
  auto reply = c.offer_from("remote1", offer);
  ASSERT_EQ(reply.status(), wire::STATUS_OK) << reply.message();
  EXPECT_EQ(reply.lease_offer().consumer(), "test");
  EXPECT_EQ(c.passes, 1);  // jobs waiting for these hosts may start
  EXPECT_EQ(c.resent, (std::vector<std::string>{"hostX@remote1", "hostY@remote1"}));

  auto borrowed = c.links->borrowed_hosts();
  ASSERT_EQ(borrowed.size(), 2u);
  EXPECT_EQ(borrowed.at("hostX@remote1").slots(), 4);
  EXPECT_EQ(c.links->borrowed_from("hostX@remote1"), "remote1");
  EXPECT_EQ(c.links->borrowed_from("hostA"), "");
  EXPECT_EQ(c.links->borrowed_host_status("hostX@remote1"), "ok");
  EXPECT_EQ(c.links->borrowed_host_status("hostY@remote1"), "unavail");
  EXPECT_EQ(c.links->borrowed_host_status("hostZ@remote1"), "unavail");  // not offered (any more)
  EXPECT_EQ(c.links->borrowed_host_status("hostX@remote2"), "unreach");  // remote2 offers nothing

  sched::ClusterView view;
  c.links->add_borrowed_hosts(view, {{"hostX@remote1", 1234}});
  ASSERT_EQ(view.hosts.size(), 2u);
  EXPECT_EQ(view.hosts[0].name, "hostX@remote1");
  EXPECT_EQ(view.hosts[0].cluster, "remote1");
  EXPECT_EQ(view.hosts[0].leased_slots, 4);
  EXPECT_EQ(view.hosts[0].status, HostStatus::kOk);
  EXPECT_EQ(view.hosts[0].last_dispatch, 1234);
  ASSERT_NE(view.hosts[0].resources.find("type"), view.hosts[0].resources.end());
  EXPECT_EQ(std::get<std::string>(view.hosts[0].resources.find("type")->second), "LINUX64");
  EXPECT_EQ(view.hosts[1].name, "hostY@remote1");
  EXPECT_EQ(view.hosts[1].status, HostStatus::kUnavail);

  // The same offer again changes nothing: no pass for it.
  c.offer_from("remote1", offer);
  EXPECT_EQ(c.passes, 1);
}

// Only the provider itself offers its hosts.
TEST(ClusterLinks, AClusterMayNotOfferAsAnother) {
  Cluster c;
  wire::LeaseOfferRequest offer;
  offer.set_provider("remote2");
  *offer.add_hosts() = offered("hostX", 4, "ok");
  auto reply = c.offer_from("remote1", offer);
  EXPECT_EQ(reply.status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_TRUE(c.links->borrowed_hosts().empty());
  EXPECT_EQ(c.passes, 0);
}

// Consumer: an offer naming a job of ours on a borrowed host as withdrawn kills it for
// requeue; a job elsewhere is left alone.
TEST(ClusterLinks, WithdrawnJobsOnTheProvidersHostsAreRecalled) {
  Cluster c;
  for (std::int64_t id : {1, 2}) {
    auto r = lsf::testing::job_new(id);
    c.sink.record(r);
    wire::EventRecord start;
    start.mutable_job_start()->set_job_id(id);
    start.mutable_job_start()->add_exec_hosts(id == 1 ? "hostX@remote1" : "hostA");
    c.sink.record(start);
  }
  ASSERT_TRUE(c.sink.apply_errors.empty());
  wire::LeaseOfferRequest offer;
  offer.set_provider("remote1");
  for (std::int64_t id : {1, 2}) offer.add_withdrawn()->set_job_id(id);
  c.offer_from("remote1", offer);
  ASSERT_EQ(c.recalled.size(), 1u);
  EXPECT_EQ(c.recalled[0].first, (sched::JobKey{1, 0}));
  EXPECT_EQ(c.recalled[0].second, "TERM_MC_RECALL");
}

// Provider: three jobs of remote1 on hostA, one slot each, and the plan now exports it
// one slot: the two most recently started must go, the oldest stays.
TEST(ClusterLinks, WithdrawnJobsPickTheMostRecentlyStartedFirst) {
  Cluster c;
  const auto lease = [&](std::int64_t id) { return c.links->lease_job_id("remote1", id); };
  c.links->add_leased_job("remote1", "hostA", launch(lease(1), "hostA", 1, 100));
  c.links->add_leased_job("remote1", "hostA", launch(lease(2), "hostA", 1, 300));
  c.links->add_leased_job("remote1", "hostA", launch(lease(3), "hostA", 1, 200));
  c.links->add_leased_job("remote2", "hostA", launch(c.links->lease_job_id("remote2", 4), "hostA", 1, 400));
  EXPECT_EQ(c.links->holdings().size(), 4u);

  sched::mc::ExportPlan plan;
  plan.hosts.push_back(grant("hostA", "remote1", 1));
  EXPECT_EQ(c.links->withdrawn_jobs("remote1", plan), (std::vector<sched::JobKey>{{lease(2), 0}, {lease(3), 0}}));
  // Nothing exported any more: all of them.
  EXPECT_EQ(c.links->withdrawn_jobs("remote1", {}).size(), 3u);
  // A host the provider cannot reach keeps its jobs: they could not be killed anyway.
  c.status["hostA"] = HostStatus::kUnreach;
  EXPECT_TRUE(c.links->withdrawn_jobs("remote1", plan).empty());
}

// A shared lease offers its consumer one slot at first, or what its jobs use if more;
// an exclusive one all its slots.
TEST(ClusterLinks, OfferedSlotsOfASharedLease) {
  Cluster c;
  EXPECT_EQ(c.links->offered_slots(grant("hostA", "remote1", 4, true)), 1);
  EXPECT_EQ(c.links->offered_slots(grant("hostA", "remote1", 4)), 4);
  c.links->add_leased_job("remote1", "hostA", launch(c.links->lease_job_id("remote1", 1), "hostA", 3, 100));
  c.links->add_leased_job("remote2", "hostA", launch(c.links->lease_job_id("remote2", 2), "hostA", 2, 100));
  EXPECT_EQ(c.links->offered_slots(grant("hostA", "remote1", 4, true)), 3);
  EXPECT_EQ(c.links->offered_slots(grant("hostA", "remote1", 2, true)), 2);  // never more than exported
}

// Every MC_RECLAIM_DELAY the idle slots go to the side that asks for more: with jobs
// pending here and none there, the provider takes its consumer's idle slot back.
TEST(ClusterLinks, ReclaimGivesIdleSharedSlotsToTheBusierSide) {
  Cluster c(
      "Begin HostExport\nPER_HOST = hostA\nSLOTS = 4\nTYPE = shared\nDISTRIBUTION = ([remote1, 1])\nEnd HostExport\n");
  auto shared_grant = [&] {
    for (const auto& g : c.links->export_plan().hosts)
      if (g.host == "hostA" && g.cluster == "remote1") return g;
    ADD_FAILURE() << "hostA is not exported to remote1";
    return sched::mc::HostGrant();
  };
  ASSERT_TRUE(shared_grant().shared);
  EXPECT_EQ(c.links->offered_slots(shared_grant()), 1);

  for (std::int64_t id : {1, 2}) {
    auto r = lsf::testing::job_new(id);
    c.sink.record(r);
  }
  EXPECT_EQ(c.links->own_demand_for("hostA"), 2);
  c.links->reclaim_shared();
  EXPECT_EQ(c.links->offered_slots(shared_grant()), 0);
  EXPECT_EQ(c.passes, 1);
  c.io.poll();  // the offer that followed found no remote1 listening
}

// Provider: a consumer's StartJobs for an exported host reaches its sbatchd under the
// lease id, and the slots exported there are held for the consumer; a host not
// exported to it is refused.
TEST(ClusterLinks, ARelayedStartRunsUnderTheLeaseIdOnExportedHostsOnly) {
  Cluster c("Begin HostExport\nPER_HOST = hostA\nSLOTS = 2\nDISTRIBUTION = ([remote1, 1])\nEnd HostExport\n");
  auto start = [](const std::string& exec_host) {
    wire::RequestEnvelope r;
    auto* l = r.mutable_start_jobs()->add_launches();
    l->set_job_id(7);
    l->set_user("alice");
    l->set_queue("normal");
    l->add_exec_hosts(exec_host);
    return r;
  };
  auto refused = c.relay_from("remote1", "hostB", start("hostB@test"));
  EXPECT_EQ(refused.status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(refused.message(), "host hostB is not exported to cluster remote1");
  EXPECT_TRUE(c.sbatchd_calls.empty());

  auto reply = c.relay_from("remote1", "hostA", start("hostA@test"));
  ASSERT_EQ(reply.status(), wire::STATUS_OK) << reply.message();
  ASSERT_EQ(c.sbatchd_calls.size(), 1u);
  EXPECT_EQ(c.sbatchd_calls[0].first, "hostA");
  const auto& sent = c.sbatchd_calls[0].second.start_jobs().launches(0);
  const std::int64_t lease = c.links->lease_job_id("remote1", 7);
  EXPECT_EQ(sent.job_id(), lease);
  EXPECT_EQ(sent.queue(), "normal@remote1");
  EXPECT_EQ(sent.exec_hosts(0), "hostA");
  EXPECT_EQ(c.links->lent_slots("hostA"), 2);  // the provider's own jobs do not get them
  EXPECT_EQ(c.links->lent_slots("hostB"), 0);
  EXPECT_TRUE(c.links->is_leased_job({lease, 0}));

  // bjobs at the provider shows it as the consumer's.
  wire::JobsReply jobs;
  c.links->add_leased_jobs(wire::JobsRequest(), "all", jobs);
  ASSERT_EQ(jobs.jobs_size(), 1);
  EXPECT_EQ(jobs.jobs(0).job_id(), lease);
  EXPECT_EQ(jobs.jobs(0).state(), wire::JOB_RUN);
  EXPECT_EQ(jobs.jobs(0).queue(), "normal@remote1");

  // Its end goes back to remote1 before the sbatchd is answered; remote1 is not reached,
  // so the job is still held.
  wire::JobStatusRequest finish;
  finish.set_job_id(lease);
  finish.set_host_name("hostA");
  finish.set_event(wire::JOB_EVENT_FINISH);
  std::optional<daemon::Status> forwarded;
  c.links->forward_lease_reports({finish}, [&](daemon::Status s) { forwarded = std::move(s); });
  c.io.poll();
  ASSERT_TRUE(forwarded.has_value());
  EXPECT_FALSE(forwarded->ok());
  EXPECT_NE(forwarded->message().find("cluster remote1 not reached"), std::string::npos) << forwarded->message();
  EXPECT_TRUE(c.links->is_leased_job({lease, 0}));
}
