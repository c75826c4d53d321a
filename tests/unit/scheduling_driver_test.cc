// The scheduling driver (daemons/mbatchd/scheduling_driver.h) without sockets or an
// Mbatchd: a cluster of three hosts (only hostA has the `fs` resource) whose queue
// asks for select[fs], jobs recorded into a ClusterState through a MemoryEventSink, and
// lambdas for what hosts, MultiCluster and job groups would answer.
#include <gtest/gtest.h>

#include <csignal>

#include "component_world.h"
#include "daemons/mbatchd/scheduling_driver.h"
#include "event_records.h"

using namespace lsf;

namespace {

struct Cluster : lsf::testing::ComponentWorld {
  net::asio::io_context io;
  std::string refusal;  // what the event log says
  std::vector<sched::JobKey> asked_to_start;
  std::vector<std::pair<sched::JobKey, int>> signals;
  std::unique_ptr<mbd::SchedulingDriver> driver;

  Cluster() {
    tree.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nRES_REQ = select[fs]\nEnd Queue\n");
    tree.lsb("lsb.hosts", "Begin Host\nHOST_NAME MXJ\ndefault 1\nEnd Host\n");
    load();
    driver = std::make_unique<mbd::SchedulingDriver>(context("scheduling_driver_test"), index, io, hooks());
  }

  mbd::SchedulingHooks hooks() {
    mbd::SchedulingHooks h;
    h.view.status_of = [](const std::string&) { return mbd::HostStatus::kOk; };
    // hostB's sbatchd has reported; the others have not.
    h.view.add_load = [](const std::string& host, sched::ResourceMap& res) {
      if (host == "hostB") res["r1m"] = 0.5;
    };
    h.view.reported_ncpus = [](const std::string& host) -> std::optional<int> {
      return host == "hostB" ? std::optional<int>(4) : std::nullopt;
    };
    h.view.lent_slots = [](const std::string&) { return 0; };
    h.view.add_borrowed_hosts = [](sched::ClusterView&) {};
    h.view.policy_with_leased_resources = [this] { return index.policy; };
    h.view.add_job_groups = [](sched::ClusterView&, std::unordered_map<std::string, int>&) {};
    h.view.config_generation = [] { return std::uint64_t{1}; };
    h.start_on_hosts = [this](const std::vector<sched::JobKey>& jobs) {
      asked_to_start.insert(asked_to_start.end(), jobs.begin(), jobs.end());
    };
    h.signal_on_host = [this](const mbd::Job& job, int signal) { signals.emplace_back(job.key, signal); };
    h.log_refusal = [this] { return refusal; };
    h.when_durable = [](std::function<void(bool)> done) { done(true); };
    return h;
  }

  void record(wire::EventRecord r) { sink.record(r); }
  void submit(std::int64_t id, const std::string& res_req = "") {
    auto r = lsf::testing::job_new(id);
    if (!res_req.empty()) r.mutable_job_new()->mutable_spec()->set_res_req(res_req);
    record(r);
  }
  void start(std::int64_t id, const std::string& host) {
    auto r = lsf::testing::job_start(id, host);
    record(r);
  }
  // Requests a pass and runs the state thread until its result is applied.
  void pass() {
    const auto before = driver->counters().passes;
    driver->request_pass();
    for (int i = 0; i < 500 && driver->counters().passes == before; ++i) io.run_one_for(std::chrono::milliseconds(10));
    ASSERT_EQ(driver->counters().passes, before + 1) << "no pass came back";
  }
  const mbd::Job& job(std::int64_t id) const { return *state.find_job({id, 0}); }
  bool has_resource(const std::string& host, const std::string& name) const {
    const auto res = driver->host_resources(host);
    return res.find(name) != res.end();
  }
  std::vector<const wire::EventRecord*> starts() const {
    std::vector<const wire::EventRecord*> out;
    for (const auto& r : sink.records)
      if (r.has_job_start()) out.push_back(&r);
    return out;
  }
};

TEST(SchedulingDriver, ViewHoldsPendingJobWithItsQueuesRequirement) {
  Cluster c;
  c.submit(1);
  c.submit(2, "rusage[mem=100]");
  const auto view = c.driver->build_view();
  ASSERT_EQ(view.pending.size(), 2u);
  const auto& first = view.pending[0];
  EXPECT_EQ(first.key, (sched::JobKey{1, 0}));
  EXPECT_EQ(first.user, "alice");
  ASSERT_TRUE(first.res_req);
  EXPECT_NE(first.res_req->to_string().find("fs"), std::string::npos) << first.res_req->to_string();
  // The job's own requirement is merged with the queue's: both parts are there.
  ASSERT_TRUE(view.pending[1].res_req);
  EXPECT_NE(view.pending[1].res_req->to_string().find("fs"), std::string::npos);
  EXPECT_NE(view.pending[1].res_req->to_string().find("mem=100"), std::string::npos);
  // Jobs with the same requirement share one object (one requirement class).
  c.submit(3);
  const auto again = c.driver->build_view();
  EXPECT_EQ(again.pending[0].res_req, again.pending[2].res_req);
  // Hosts: the configuration's, with what their sbatchds reported.
  ASSERT_EQ(view.hosts.size(), 3u);
  EXPECT_EQ(view.hosts[1].name, "hostB");
  EXPECT_EQ(view.hosts[1].ncpus, 4);
  EXPECT_TRUE(c.has_resource("hostA", "fs"));
  EXPECT_FALSE(c.has_resource("hostB", "fs"));
  EXPECT_TRUE(c.has_resource("hostB", "r1m"));
  // Queries' views leave pending jobs out.
  EXPECT_TRUE(c.driver->build_view(false).pending.empty());
}

TEST(SchedulingDriver, PassStartsJobOnTheHostItsQueueAsksFor) {
  Cluster c;
  c.submit(1);
  c.pass();
  ASSERT_EQ(c.starts().size(), 1u);
  const auto& start = c.starts()[0]->job_start();
  EXPECT_EQ(start.job_id(), 1);
  ASSERT_EQ(start.exec_hosts_size(), 1);
  EXPECT_EQ(start.exec_hosts(0), "hostA");  // the only host with fs
  EXPECT_EQ(c.job(1).state, wire::JOB_RUN);
  EXPECT_EQ(c.asked_to_start, (std::vector<sched::JobKey>{{1, 0}}));
  EXPECT_TRUE(c.driver->last_dispatch().contains("hostA"));
  EXPECT_EQ(c.driver->counters().dispatched_total, 1u);
  // hostA is full (MXJ 1): the next job pends, and bjobs says why.
  c.submit(2);
  c.pass();
  EXPECT_EQ(c.starts().size(), 1u);
  EXPECT_EQ(c.job(2).state, wire::JOB_PEND);
  ASSERT_TRUE(c.job(2).pending_reason);
  EXPECT_FALSE(c.job(2).pending_reason->empty());
}

TEST(SchedulingDriver, NoStartWhileTheEventLogRefusesChanges) {
  Cluster c;
  c.submit(1);
  c.refusal = "No space left on device";
  c.pass();
  EXPECT_TRUE(c.starts().empty());
  EXPECT_EQ(c.job(1).state, wire::JOB_PEND);
  EXPECT_TRUE(c.asked_to_start.empty());
}

TEST(SchedulingDriver, StartOfAJobKilledMeanwhileIsDropped) {
  Cluster c;
  c.submit(1);
  mbd::SchedulingDriver::Outcome out;
  out.result.dispatches.push_back({{1, 0}, {"hostA"}, {}, {}});
  out.result.dispatches.push_back({{7, 0}, {"hostA"}, {}, {}});  // no such job any more
  c.driver->apply(std::move(out));
  ASSERT_EQ(c.starts().size(), 1u);
  EXPECT_EQ(c.starts()[0]->job_start().job_id(), 1);
  EXPECT_EQ(c.asked_to_start, (std::vector<sched::JobKey>{{1, 0}}));
}

TEST(SchedulingDriver, SuspendAndResumeDecisionsAreRecordedAndSignalled) {
  Cluster c;
  c.submit(1);
  c.start(1, "hostA");
  mbd::SchedulingDriver::Outcome suspend;
  suspend.result.suspends.push_back({{1, 0}, sched::SuspendCause::kLoad, "The load index r1m is beyond threshold"});
  c.driver->apply(std::move(suspend));
  EXPECT_EQ(c.job(1).state, wire::JOB_SSUSP);
  EXPECT_EQ(c.job(1).reason, "The load index r1m is beyond threshold");
  ASSERT_FALSE(c.sink.records.empty());
  EXPECT_EQ(c.sink.records.back().job_status().state(), wire::JOB_SSUSP);
  EXPECT_EQ(c.signals, (std::vector<std::pair<sched::JobKey, int>>{{{1, 0}, SIGSTOP}}));

  mbd::SchedulingDriver::Outcome resume;
  resume.result.resumes.push_back({{1, 0}});
  c.driver->apply(std::move(resume));
  EXPECT_EQ(c.job(1).state, wire::JOB_RUN);
  EXPECT_EQ(c.signals.back(), (std::pair<sched::JobKey, int>{{1, 0}, SIGCONT}));
  EXPECT_EQ(c.driver->counters().passes, 2u);
}

}  // namespace
