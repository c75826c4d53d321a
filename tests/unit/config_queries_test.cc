// ConfigQueries (daemons/mbatchd/config_queries.h) without sockets or an Mbatchd: jobs
// go into a ClusterState through a MemoryEventSink, and lambdas answer for host
// tracking, the scheduling driver and MultiCluster. What bqueues, bhosts, busers and
// badmin perfmon show a user.
#include <gtest/gtest.h>

#include "component_world.h"
#include "daemons/mbatchd/config_queries.h"
#include "event_records.h"

using namespace lsf;

namespace {

struct Cluster : lsf::testing::ComponentWorld {
  std::map<std::string, std::string> status;  // what host tracking says; else "ok"
  std::map<std::string, mbd::HostLink> links;
  std::map<sched::JobKey, sched::Reservation> reservations;
  std::vector<sched::GuaranteeReport> guarantees;
  std::vector<sched::ThrottleUse> throttles;
  mbd::PassCounters counters;
  std::map<std::string, wire::OfferedHost> borrowed;
  std::unique_ptr<mbd::ConfigQueries> queries;

  explicit Cluster(const std::string& lsb_hosts = "Begin Host\nHOST_NAME MXJ\ndefault 2\nEnd Host\n") {
    tree.lsb("lsb.queues",
             "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n"
             "Begin Queue\nQUEUE_NAME = night\nPRIORITY = 40\nDESCRIPTION = overnight runs\nEnd Queue\n");
    tree.lsb("lsb.hosts", lsb_hosts);
    tree.lsb("lsb.users", "Begin User\nUSER_NAME MAX_JOBS\nalice 5\nEnd User\n");
    load();
    mbd::ConfigQueriesHooks h;
    h.host_status = [this](const std::string& host) {
      auto it = status.find(host);
      return it == status.end() ? std::string("ok") : it->second;
    };
    h.host_max_slots = [](const std::string&) { return 2; };
    h.link = [this](const std::string& host) -> const mbd::HostLink* {
      auto it = links.find(host);
      return it == links.end() ? nullptr : &it->second;
    };
    // None of these queries needs a view: no fairshare, slot pools or -R here.
    h.build_view = [](bool) -> sched::ClusterView {
      ADD_FAILURE() << "a view was built";
      return {};
    };
    h.host_resources = [](const std::string&) { return sched::ResourceMap{}; };
    h.reservations = [this]() -> const std::map<sched::JobKey, sched::Reservation>& { return reservations; };
    h.guarantees = [this]() -> const std::vector<sched::GuaranteeReport>& { return guarantees; };
    h.throttles = [this]() -> const std::vector<sched::ThrottleUse>& { return throttles; };
    h.pass_counters = [this]() -> const mbd::PassCounters& { return counters; };
    h.borrowed_hosts = [this] { return borrowed; };
    h.borrowed_host_status = [](const std::string&) { return std::string("ok"); };
    h.submissions_total = [] { return std::uint64_t{42}; };
    h.uptime = [] { return std::chrono::seconds(3600); };
    h.now = [this] { return sink.clock; };
    queries = std::make_unique<mbd::ConfigQueries>(context("config_queries_test"), index, std::move(h));
  }

  void submit(std::int64_t id, const std::string& user, const std::string& queue = "normal") {
    auto r = lsf::testing::job_new(id, user, queue);
    sink.record(r);
  }
  void start(std::int64_t id, const std::string& host) {
    auto r = lsf::testing::job_start(id, host);
    sink.record(r);
  }
  void suspend(std::int64_t id) {
    auto r = lsf::testing::job_status(id, wire::JOB_USUSP);
    sink.record(r);
  }
};

wire::RequestEnvelope from(const std::string& user) {
  wire::RequestEnvelope r;
  r.mutable_caller()->set_user_name(user);
  return r;
}

TEST(ConfigQueries, BqueuesCountsEachQueuesJobsHighestPriorityFirst) {
  Cluster c;
  c.submit(1, "alice");
  c.submit(2, "alice");
  c.submit(3, "bob");
  c.start(2, "hostA");
  c.start(3, "hostB");
  c.suspend(3);
  c.submit(4, "bob", "night");

  auto r = from("alice");
  r.mutable_queues();
  auto reply = c.queries->queues(r);
  ASSERT_EQ(reply.status(), wire::STATUS_OK);
  ASSERT_EQ(reply.queues().queues_size(), 2);
  const auto& night = reply.queues().queues(0);
  EXPECT_EQ(night.name(), "night");
  EXPECT_EQ(night.description(), "overnight runs");
  EXPECT_EQ(night.njobs(), 1);
  EXPECT_EQ(night.pend(), 1);
  const auto& normal = reply.queues().queues(1);
  EXPECT_EQ(normal.name(), "normal");
  EXPECT_EQ(normal.njobs(), 3);
  EXPECT_EQ(normal.pend(), 1);
  EXPECT_EQ(normal.run(), 1);
  EXPECT_EQ(normal.ususp(), 1);
  EXPECT_TRUE(normal.open());
  EXPECT_TRUE(normal.active());

  r.mutable_queues()->add_names("nosuch");
  auto unknown = c.queries->queues(r);
  EXPECT_EQ(unknown.status(), wire::STATUS_NOT_FOUND);
  EXPECT_EQ(unknown.message(), "nosuch: No such queue");
}

TEST(ConfigQueries, BhostsShowsWhatHostTrackingSaysWithTheHostsJobs) {
  Cluster c;
  c.submit(1, "alice");
  c.start(1, "hostA");
  c.status["hostC"] = "unavail";
  c.links["hostA"].load.set_ncpus(8);
  c.links["hostA"].clock_offset_ms = 1500;

  auto r = from("alice");
  r.mutable_hosts();
  auto reply = c.queries->hosts(r);
  ASSERT_EQ(reply.hosts().hosts_size(), 3);
  const auto& a = reply.hosts().hosts(0);
  EXPECT_EQ(a.name(), "hostA");
  EXPECT_EQ(a.status(), "ok");
  EXPECT_EQ(a.max_slots(), 2);
  EXPECT_EQ(a.njobs(), 1);
  EXPECT_EQ(a.run(), 1);
  EXPECT_EQ(a.load().ncpus(), 8);
  EXPECT_EQ(a.clock_offset_ms(), 1500);
  EXPECT_EQ(reply.hosts().hosts(1).njobs(), 0);
  EXPECT_EQ(reply.hosts().hosts(2).status(), "unavail");

  // A borrowed host follows the cluster's own, with the slots it was offered.
  wire::OfferedHost offered;
  offered.set_slots(4);
  c.borrowed["hostX@remote1"] = offered;
  reply = c.queries->hosts(r);
  ASSERT_EQ(reply.hosts().hosts_size(), 4);
  EXPECT_EQ(reply.hosts().hosts(3).name(), "hostX@remote1");
  EXPECT_EQ(reply.hosts().hosts(3).max_slots(), 4);

  r.mutable_hosts()->add_names("hostZ");
  EXPECT_EQ(c.queries->hosts(r).status(), wire::STATUS_NOT_FOUND);
}

// JL/U and the dispatch window as bhosts -l shows them: the `default` lines above a
// host's own line, then its own line, which overrides what it sets.
TEST(ConfigQueries, BhostsTakesEachHostsLineOverTheDefaultsAboveIt) {
  Cluster c(
      "Begin Host\nHOST_NAME MXJ JL/U DISPATCH_WINDOW\n"
      "default 2 1 (8:00-18:00)\nhostB 2 3 ()\nhostC 2 () ()\nEnd Host\n");
  auto r = from("alice");
  r.mutable_hosts();
  auto reply = c.queries->hosts(r);
  ASSERT_EQ(reply.hosts().hosts_size(), 3);
  const auto& a = reply.hosts().hosts(0);
  const auto& b = reply.hosts().hosts(1);
  const auto& h = reply.hosts().hosts(2);
  EXPECT_EQ(a.jl_u(), 1);  // no line of its own: the default's
  EXPECT_FALSE(a.dispatch_window().empty());
  EXPECT_EQ(b.jl_u(), 3);  // its own line's
  EXPECT_EQ(b.dispatch_window(), a.dispatch_window());
  EXPECT_EQ(h.jl_u(), 1);  // its line sets none: the default's stays
}

TEST(ConfigQueries, BusersCountsSlotsByStateWithReservationsAndLimits) {
  Cluster c;
  c.submit(1, "alice");
  c.submit(2, "alice");
  c.start(2, "hostA");
  c.submit(3, "bob");
  sched::Reservation rsv;
  rsv.hosts = {"hostB"};
  c.reservations[{1, 0}] = rsv;

  auto r = from("alice");
  r.mutable_users();
  auto reply = c.queries->users(r);  // no name: the caller
  ASSERT_EQ(reply.users().users_size(), 1);
  const auto& alice = reply.users().users(0);
  EXPECT_EQ(alice.name(), "alice");
  EXPECT_EQ(alice.max_jobs(), 5);
  EXPECT_EQ(alice.pend(), 1);
  EXPECT_EQ(alice.run(), 1);
  EXPECT_EQ(alice.rsv(), 1);
  EXPECT_EQ(alice.njobs(), 3);

  r.mutable_users()->add_names("all");
  reply = c.queries->users(r);
  ASSERT_EQ(reply.users().users_size(), 2);
  EXPECT_EQ(reply.users().users(1).name(), "bob");
  EXPECT_EQ(reply.users().users(1).pend(), 1);
  EXPECT_EQ(reply.users().users(1).max_jobs(), -1);
}

TEST(ConfigQueries, PerfmonShowsTheLastPassAndTheCounters) {
  Cluster c;
  c.counters.passes = 7;
  c.counters.last_took = std::chrono::microseconds(250);
  c.counters.dispatched_total = 12;
  c.counters.last_stats.jobs_pending = 3;
  auto reply = c.queries->perfmon(from("root"));
  EXPECT_EQ(reply.perfmon().passes(), 7u);
  EXPECT_EQ(reply.perfmon().last_pass_us(), 250);
  EXPECT_EQ(reply.perfmon().jobs_dispatched_total(), 12u);
  EXPECT_EQ(reply.perfmon().jobs_pending(), 3);
  EXPECT_EQ(reply.perfmon().submissions_total(), 42u);
  EXPECT_EQ(reply.perfmon().uptime_s(), 3600);
}

TEST(ConfigQueries, ConfigInfoListsTheDefaultQueueAndBuiltinAndSiteResources) {
  Cluster c;
  auto reply = c.queries->config_info(from("alice"));
  ASSERT_EQ(reply.config_info().default_queues_size(), 1);
  EXPECT_EQ(reply.config_info().default_queues(0), "normal");
  bool r15s = false, lic = false;
  for (const auto& res : reply.config_info().resources()) {
    if (res.name() == "r15s") r15s = res.builtin();
    if (res.name() == "licA") lic = !res.builtin() && res.type() == "Numeric";
  }
  EXPECT_TRUE(r15s);
  EXPECT_TRUE(lic);

  auto r = from("alice");
  r.mutable_applications()->add_names("nosuch");
  auto unknown = c.queries->applications(r);
  EXPECT_EQ(unknown.status(), wire::STATUS_NOT_FOUND);
  EXPECT_EQ(unknown.message(), "nosuch: No such application profile");
}

}  // namespace
