// JobQueries (daemons/mbatchd/job_queries.h) without sockets or an Mbatchd: jobs go
// into a ClusterState through a MemoryEventSink, and lambdas answer for host tracking,
// the last pass and MultiCluster. What bjobs and bwait show a user.
#include <gtest/gtest.h>

#include "component_world.h"
#include "daemons/mbatchd/job_queries.h"
#include "event_records.h"

using namespace lsf;

namespace {

struct Cluster : lsf::testing::ComponentWorld {
  std::map<std::string, mbd::HostStatus> status;  // what host tracking says; else ok
  std::map<sched::JobKey, sched::Reservation> reservations;
  std::vector<std::string> leased_asked;  // users add_leased_jobs was asked for
  std::unique_ptr<mbd::JobQueries> queries;

  Cluster() {
    load();
    mbd::JobQueriesHooks h;
    h.status_of = [this](const std::string& host) {
      auto it = status.find(host);
      return it == status.end() ? mbd::HostStatus::kOk : it->second;
    };
    h.reservations = [this]() -> const std::map<sched::JobKey, sched::Reservation>& { return reservations; };
    // Job 500 runs here for a consumer cluster.
    h.is_leased_job = [](const sched::JobKey& ref) { return ref.id == 500; };
    h.add_leased_jobs = [this](const wire::JobsRequest&, const std::string& user, wire::JobsReply&) {
      leased_asked.push_back(user);
    };
    h.now = [this] { return sink.clock; };
    queries = std::make_unique<mbd::JobQueries>(context("job_queries_test"), index, std::move(h));
  }

  void submit(std::int64_t id, const std::string& user) {
    auto r = lsf::testing::job_new(id, user);
    sink.record(r);
  }
  void start(std::int64_t id, const std::string& host) {
    auto r = lsf::testing::job_start(id, host);
    sink.record(r);
  }
  void end(std::int64_t id, wire::JobState state_now) {
    auto r = lsf::testing::job_status(id, state_now);
    sink.record(r);
  }

  wire::ReplyEnvelope bjobs(const std::string& caller, const std::string& user = "",
                            std::vector<std::int64_t> ids = {}) {
    wire::RequestEnvelope r;
    r.mutable_caller()->set_user_name(caller);
    r.mutable_jobs()->set_user(user);
    for (auto id : ids) r.mutable_jobs()->add_jobs()->set_job_id(id);
    return queries->jobs(r);
  }
  wire::ReplyEnvelope bwait(const std::string& condition) {
    wire::RequestEnvelope r;
    r.mutable_caller()->set_user_name("alice");
    r.mutable_wait_condition()->set_condition(condition);
    return queries->wait_condition(r);
  }
};

std::vector<std::int64_t> ids_of(const wire::ReplyEnvelope& reply) {
  std::vector<std::int64_t> ids;
  for (const auto& j : reply.jobs().jobs()) ids.push_back(j.job_id());
  return ids;
}

TEST(JobQueries, BjobsShowsTheCallersJobsUnlessAskedForOthers) {
  Cluster c;
  c.submit(1, "alice");
  c.submit(2, "bob");
  c.submit(3, "alice");
  c.start(3, "hostA");
  c.end(3, wire::JOB_DONE);

  // Unfinished jobs of the caller only: bob's is not listed, nor alice's finished one.
  EXPECT_EQ(ids_of(c.bjobs("alice")), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(ids_of(c.bjobs("alice", "all")), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ids_of(c.bjobs("alice", "bob")), (std::vector<std::int64_t>{2}));
  // A job named by id is shown whoever owns it, finished or not.
  EXPECT_EQ(ids_of(c.bjobs("alice", "", {2, 3})), (std::vector<std::int64_t>{2, 3}));
  // MultiCluster adds the jobs it runs for consumers, for the user asked about.
  EXPECT_EQ(c.leased_asked, (std::vector<std::string>{"alice", "all", "bob", "alice"}));
}

TEST(JobQueries, AnUnknownJobIsAnErrorButALeasedOneIsNot) {
  Cluster c;
  c.submit(1, "alice");
  auto reply = c.bjobs("alice", "", {99, 500, 1});
  EXPECT_EQ(reply.status(), wire::STATUS_OK);
  ASSERT_EQ(reply.jobs().errors_size(), 1);
  EXPECT_EQ(reply.jobs().errors(0), "Job <99> is not found");
  EXPECT_EQ(ids_of(reply), (std::vector<std::int64_t>{1}));
}

TEST(JobQueries, AJobOnAnUnreachableHostIsShownUnknownAndAReservationIsShown) {
  Cluster c;
  c.submit(1, "alice");
  c.start(1, "hostA");
  c.submit(2, "alice");
  sched::Reservation r;
  r.hosts = {"hostB", "hostB"};
  r.estimated_start = c.sink.clock + 600;
  c.reservations[{2, 0}] = r;

  auto reply = c.bjobs("alice");
  ASSERT_EQ(reply.jobs().jobs_size(), 2);
  EXPECT_EQ(reply.jobs().jobs(0).state(), wire::JOB_RUN);
  EXPECT_EQ(reply.jobs().jobs(0).exec_hosts(0), "hostA");
  EXPECT_EQ(reply.jobs().jobs(1).state(), wire::JOB_PEND);
  EXPECT_EQ(reply.jobs().jobs(1).reserved_hosts_size(), 2);
  EXPECT_EQ(reply.jobs().jobs(1).estimated_start(), c.sink.clock + 600);

  c.status["hostA"] = mbd::HostStatus::kUnreach;
  EXPECT_EQ(c.bjobs("alice").jobs().jobs(0).state(), wire::JOB_UNKWN);
  // The state itself still says it runs.
  EXPECT_EQ(c.state.find_job({1, 0})->state, wire::JOB_RUN);
}

TEST(JobQueries, BjobsLongShowsTheCombinedRequirement) {
  Cluster c;
  c.submit(1, "alice");
  wire::RequestEnvelope r;
  r.mutable_caller()->set_user_name("alice");
  r.mutable_jobs()->set_details(true);
  auto reply = c.queries->jobs(r);
  ASSERT_EQ(reply.jobs().jobs_size(), 1);
  // No requirement anywhere: any host, ordered as the pass orders them.
  EXPECT_EQ(reply.jobs().jobs(0).combined_res_req(), "select[type == any] order[r15s:pg]");
  EXPECT_EQ(reply.jobs().jobs(0).effective_res_req(), "");  // not started
}

TEST(JobQueries, BwaitFollowsTheJobsItNames) {
  Cluster c;
  c.submit(1, "alice");
  c.submit(2, "alice");
  c.start(1, "hostA");
  EXPECT_EQ(c.bwait("done(1)").wait_condition().state(), wire::CONDITION_WAITING);
  c.end(1, wire::JOB_DONE);
  EXPECT_EQ(c.bwait("done(1)").wait_condition().state(), wire::CONDITION_SATISFIED);
  // It ended done, so it will never have exited.
  EXPECT_EQ(c.bwait("exit(1)").wait_condition().state(), wire::CONDITION_NEVER);
  EXPECT_EQ(c.bwait("done(1) && ended(2)").wait_condition().state(), wire::CONDITION_WAITING);

  auto unknown = c.bwait("done(99)");
  EXPECT_EQ(unknown.status(), wire::STATUS_NOT_FOUND);
  EXPECT_EQ(unknown.message(), "Job <99>: No matching job found");
  EXPECT_EQ(c.bwait("done(").status(), wire::STATUS_BAD_REQUEST);
}

}  // namespace
