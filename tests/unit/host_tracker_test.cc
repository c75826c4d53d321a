// HostTracker (daemons/mbatchd/host_tracker.h) without sockets or an Mbatchd: sbatchd
// registrations and load reports go in as requests, time moves by the clock hooks, and
// what happens to jobs is read back from the state and the records the sink kept.
// Cluster: hostA hostB hostC, SBD_SLEEP_TIME = 10, MAX_SBD_FAIL = 3, so a silent host
// is unreach after 20 s and unavail after 80 s.
#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "config_tree.h"
#include "daemons/mbatchd/host_tracker.h"
#include "event_records.h"
#include "libsched/pending_reason.h"

using namespace lsf;
using namespace std::chrono_literals;
using lsf::testing::job_new;
using mbd::HostStatus;

namespace {

constexpr std::int64_t kWallMs = 1'700'000'000'000;  // the sink's clock, in ms

struct Cluster {
  lsf::testing::ConfigTree tree;
  std::shared_ptr<const config::ClusterConfig> config;
  std::shared_ptr<const sched::SchedPolicy> policy;
  mbd::ClusterState state;
  mbd::MemoryEventSink sink{state};
  net::asio::io_context io;
  net::asio::thread_pool outbound{1};
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::time_point{} + 1h;
  int passes = 0;
  std::set<std::int64_t> rerunnable;  // job ids
  std::vector<std::pair<std::int64_t, std::string>> finished;
  std::vector<sched::JobKey> launched;
  bool send_launches = false;  // else a launch is only noted, and nothing is sent
  std::unique_ptr<mbd::HostTracker> hosts;

  explicit Cluster(const std::string& params = "") {
    tree.lsb("lsb.params", "Begin Parameters\nSBD_SLEEP_TIME = 10\nMAX_SBD_FAIL = 3\n" + params + "End Parameters\n");
    auto loaded = tree.load();
    EXPECT_TRUE(loaded.usable());
    config = loaded.config;
    policy = sched::build_policy(*config);
    state.sync_config(*config, policy);
    mbd::HostTrackerHooks h;
    h.policy = [this]() -> const sched::SchedPolicy& { return *policy; };
    h.request_pass = [this] { ++passes; };
    h.rerunnable = [this](const mbd::Job& job) { return rerunnable.count(job.key.id) > 0; };
    h.finish_job = [this](mbd::Job& job, wire::JobState st, int, const std::string& reason) {
      finished.emplace_back(job.key.id, reason);
      wire::EventRecord ev;
      ev.mutable_job_status()->set_job_id(job.key.id);
      ev.mutable_job_status()->set_state(st);
      ev.mutable_job_status()->set_reason(reason);
      sink.record(ev);
    };
    h.make_launch = [this](const sched::JobKey& key, wire::JobLaunch& launch) {
      launched.push_back(key);
      launch.set_job_id(key.id);
      for (const auto& host : state.find_job(key)->exec_hosts) launch.add_exec_hosts(host);
      return send_launches;
    };
    h.when_durable = [](std::function<void(bool)> then) { then(true); };
    h.steady_now = [this] { return t; };
    h.wall_ms = [] { return kWallMs; };
    hosts = std::make_unique<mbd::HostTracker>(
        mbd::ComponentContext{config, state, sink, std::make_shared<spdlog::logger>("host_tracker_test")}, io, outbound,
        std::nullopt, std::move(h));
  }
  ~Cluster() { outbound.join(); }

  wire::ReplyEnvelope register_host(const std::string& host, std::int64_t clock_ms = kWallMs,
                                    const std::string& address = "127.0.0.1", const std::string& from = "127.0.0.1",
                                    const std::vector<std::int64_t>& running = {}) {
    wire::RequestEnvelope r;
    auto* reg = r.mutable_register_host();
    reg->set_host_name(host);
    reg->set_address(address);
    reg->set_port(1);
    reg->set_clock_ms(clock_ms);
    for (auto id : running) {
      auto* j = reg->add_jobs();
      j->set_job_id(id);
      j->set_attempt(0);
    }
    net::Peer peer;
    peer.address = from;
    wire::ReplyEnvelope out;
    hosts->on_register_host(r, peer, [&](wire::ReplyEnvelope reply) { out = std::move(reply); });
    return out;
  }
  wire::ReplyEnvelope load_report(const std::string& host) {
    wire::RequestEnvelope r;
    r.mutable_load_report()->set_host_name(host);
    r.mutable_load_report()->set_clock_ms(kWallMs);
    wire::ReplyEnvelope out;
    hosts->on_load_report(r, [&](wire::ReplyEnvelope reply) { out = std::move(reply); });
    return out;
  }
  // Job `id` submitted and started on `host` (at `at`, sink seconds; 0: now), with a
  // pid when the host reported it running.
  void run(std::int64_t id, const std::string& host, int pid = 0, std::int64_t at = 0) {
    auto submit = job_new(id);
    sink.record(submit);
    wire::EventRecord start;
    start.mutable_job_start()->set_job_id(id);
    start.mutable_job_start()->add_exec_hosts(host);
    sink.record(start, at);
    if (pid == 0) return;
    wire::EventRecord exec;
    exec.mutable_job_execute()->set_job_id(id);
    exec.mutable_job_execute()->set_pid(pid);
    sink.record(exec);
  }
  wire::JobState state_of(std::int64_t id) const { return state.find_job({id, 0})->state; }
};

}  // namespace

TEST(HostTracker, RegistrationMakesAHostOk) {
  Cluster c;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);  // never heard from
  auto reply = c.register_host("hostA");
  ASSERT_EQ(reply.status(), wire::STATUS_OK) << reply.message();
  EXPECT_EQ(reply.register_host().report_interval_ms(), 10'000);
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
  EXPECT_EQ(c.hosts->host_status("hostA"), "ok");
  EXPECT_EQ(c.hosts->status_of("hostB"), HostStatus::kUnavail);
  EXPECT_EQ(c.passes, 1);
}

TEST(HostTracker, RegistrationIsRefusedForAStrangerOrAnAddressTheMasterCannotReach) {
  Cluster c;
  EXPECT_EQ(c.register_host("hostZ").status(), wire::STATUS_NOT_FOUND);
  // From another machine, advertising loopback: the master could never call it back.
  auto reply = c.register_host("hostA", kWallMs, "127.0.0.1", "10.0.0.5");
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_NE(reply.message().find("--advertise"), std::string::npos) << reply.message();
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  EXPECT_EQ(c.register_host("hostA", kWallMs, "10.0.0.5", "10.0.0.5").status(), wire::STATUS_OK);
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
}

TEST(HostTracker, ASilentHostIsUnreachAfterTwoIntervalsAndUnavailAfterMaxSbdFailMore) {
  Cluster c;
  c.register_host("hostA");
  c.t += 20s;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
  c.t += 1s;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnreach);
  // A load report brings it back.
  EXPECT_FALSE(c.load_report("hostA").load_report().reregister());
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
  c.t += 81s;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  // Back from unavail it must register again, so that its runs are checked first.
  EXPECT_TRUE(c.load_report("hostA").load_report().reregister());
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  EXPECT_TRUE(c.load_report("hostB").load_report().reregister());  // never registered
}

TEST(HostTracker, AJobReportCountsAsASignOfLife) {
  Cluster c;
  c.register_host("hostA");
  c.t += 15s;
  c.hosts->note_report("hostA");
  c.t += 15s;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
}

// A lost host's runs are settled by its registration; a job report that was in
// flight when it came back must not make it ok without one (its copies would go on).
TEST(HostTracker, ALostHostIsOkAgainOnlyByRegistering) {
  Cluster c;
  c.register_host("hostA");
  c.hosts->check_hosts();
  c.t += 90s;
  c.hosts->check_hosts();
  ASSERT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  c.hosts->note_report("hostA");
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  EXPECT_TRUE(c.load_report("hostA").load_report().reregister());
  c.hosts->check_hosts();
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnavail);
  ASSERT_EQ(c.register_host("hostA").status(), wire::STATUS_OK);
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
  EXPECT_FALSE(c.load_report("hostA").load_report().reregister());
}

TEST(HostTracker, AHostLostForGoodTakesItsRerunnableJobsBackToPend) {
  Cluster c;
  c.register_host("hostA");
  c.run(1, "hostA", 100);
  c.run(2, "hostA", 101);
  c.rerunnable = {1};
  c.hosts->check_hosts();  // the first check only notes each host's status
  const int passes = c.passes;
  c.t += 30s;
  c.hosts->check_hosts();
  EXPECT_EQ(c.passes, passes + 1);  // ok -> unreach: pending reasons change
  EXPECT_EQ(c.state_of(1), wire::JOB_RUN);
  c.t += 60s;
  c.hosts->check_hosts();
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  EXPECT_EQ(c.state_of(2), wire::JOB_RUN);  // not rerunnable: shown UNKWN, left to its host
  ASSERT_TRUE(c.sink.records.back().has_job_requeue());
  EXPECT_TRUE(c.sink.records.back().job_requeue().to_top());
  EXPECT_EQ(c.sink.records.back().job_requeue().reason(), std::string(sched::reason::kHostUnreach) + ": 1 host");
  EXPECT_EQ(c.passes, passes + 2);
  c.hosts->check_hosts();  // nothing changed since
  EXPECT_EQ(c.passes, passes + 2);
}

TEST(HostTracker, TheOtherJobsOfALostHostExitOnceRemoveHungJobsForHasPassed) {
  Cluster c("REMOVE_HUNG_JOBS_FOR = host_unavail,wait_time=5\n");
  c.register_host("hostA");
  c.register_host("hostB");
  c.run(1, "hostA", 100);
  c.run(2, "hostA", 101);
  c.run(3, "hostB", 102);
  c.rerunnable = {1};
  // Time passes with hostB reporting every 10 s and hostA silent; a check each time.
  auto pass = [&c](std::chrono::seconds d) {
    for (auto left = d; left > 0s; left -= 10s) {
      c.t += std::min<std::chrono::seconds>(left, 10s);
      c.load_report("hostB");
      c.hosts->check_hosts();
    }
  };
  c.hosts->check_hosts();
  pass(90s);
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  EXPECT_EQ(c.state_of(2), wire::JOB_RUN);  // UNKWN until the wait is over
  pass(4min);
  EXPECT_EQ(c.state_of(2), wire::JOB_RUN);
  const int passes = c.passes;
  pass(70s);
  EXPECT_EQ(c.state_of(2), wire::JOB_EXIT);
  EXPECT_EQ(c.state.find_job({2, 0})->reason, "TERM_REMOVE_HUNG_JOB");
  EXPECT_EQ(c.finished, (std::vector<std::pair<std::int64_t, std::string>>{{2, "TERM_REMOVE_HUNG_JOB"}}));
  EXPECT_EQ(c.state_of(3), wire::JOB_RUN);  // nothing else is affected
  EXPECT_EQ(c.passes, passes + 1);          // its slots are free again
  pass(60s);
  EXPECT_EQ(c.finished.size(), 1u);  // once

  // hostA comes back still running both: each copy is killed, and neither job counts twice.
  auto reply = c.register_host("hostA", kWallMs, "127.0.0.1", "127.0.0.1", {1, 2});
  ASSERT_EQ(reply.status(), wire::STATUS_OK);
  std::set<std::int64_t> killed;
  for (const auto& u : reply.register_host().unknown_jobs()) killed.insert(u.job_id());
  EXPECT_EQ(killed, (std::set<std::int64_t>{1, 2}));
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  EXPECT_EQ(c.state_of(2), wire::JOB_EXIT);
}

TEST(HostTracker, WithoutHostUnavailInRemoveHungJobsForTheJobsStayUnknown) {
  Cluster c("REMOVE_HUNG_JOBS_FOR = runlimit\n");
  c.register_host("hostA");
  c.run(1, "hostA", 100);
  c.hosts->check_hosts();
  c.t += 90s;
  c.hosts->check_hosts();
  c.t += 24h;
  c.hosts->check_hosts();
  EXPECT_EQ(c.state_of(1), wire::JOB_RUN);
  EXPECT_TRUE(c.finished.empty());
}

// After a whole-cluster restart mbatchd recovers jobs as running on hosts that may
// never come back: those that do not register in time lose their jobs as a silent host
// would, and pending jobs stay pending.
TEST(HostTracker, AfterARestartHostsThatNeverRegisterLoseTheirJobsInTime) {
  Cluster c;  // REMOVE_HUNG_JOBS_FOR's default: host_unavail after 10 minutes
  c.run(1, "hostA", 100);
  c.run(2, "hostA", 101);
  c.run(3, "hostB", 102);
  auto pending = job_new(4);
  c.sink.record(pending);
  c.rerunnable = {1};
  c.hosts->start();
  c.hosts->check_hosts();
  c.t += 60s;
  c.register_host("hostB", kWallMs, "127.0.0.1", "127.0.0.1", {3});
  c.hosts->check_hosts();
  EXPECT_EQ(c.state_of(1), wire::JOB_RUN);  // hostA still has time
  c.t += 21s;                               // 81 s: as long as a silent host gets
  c.load_report("hostB");
  c.hosts->check_hosts();
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  EXPECT_EQ(c.state_of(2), wire::JOB_RUN);
  for (int i = 0; i < 60; ++i) {  // ten minutes, hostB reporting every 10 s
    c.t += 10s;
    c.load_report("hostB");
    c.hosts->check_hosts();
  }
  EXPECT_EQ(c.state_of(2), wire::JOB_EXIT);
  EXPECT_EQ(c.state.find_job({2, 0})->reason, "TERM_REMOVE_HUNG_JOB");
  EXPECT_EQ(c.state_of(3), wire::JOB_RUN);
  EXPECT_EQ(c.state_of(4), wire::JOB_PEND);
  c.hosts->stop();
}

TEST(HostTracker, StartFailuresRequeueTheJobAndRestTheHostTwiceAsLongEachTime) {
  Cluster c;
  c.register_host("hostA");
  c.run(1, "hostA");
  c.hosts->start_failed({{1, 0}}, "hostA", "refused");
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnreach);
  c.t += 1100ms;
  c.load_report("hostA");
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);

  c.run(2, "hostA");
  c.hosts->start_failed({{2, 0}}, "hostA", "refused");
  c.t += 1500ms;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kUnreach);  // 2 s this time
  c.t += 600ms;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);

  // A registration starts the count again.
  c.register_host("hostA");
  c.run(3, "hostA");
  c.hosts->start_failed({{3, 0}}, "hostA", "refused");
  c.t += 1100ms;
  EXPECT_EQ(c.hosts->status_of("hostA"), HostStatus::kOk);
}

TEST(HostTracker, AStartJobToAHostThatNeverRegisteredRequeuesTheJob) {
  Cluster c;
  c.send_launches = true;
  c.run(1, "hostB");
  c.hosts->start_on_hosts({{1, 0}});
  EXPECT_EQ(c.state_of(1), wire::JOB_RUN);  // the answer comes back through the io_context
  c.io.run();
  EXPECT_EQ(c.state_of(1), wire::JOB_PEND);
  ASSERT_TRUE(c.sink.records.back().has_job_requeue());
  EXPECT_EQ(c.sink.records.back().job_requeue().reason(), std::string(sched::reason::kHostUnreach) + ": 1 host");
  EXPECT_EQ(c.hosts->link("hostB")->start_failures, 1);
}

TEST(HostTracker, RegistrationSettlesTheJobsTheHostAndTheLogDisagreeOn) {
  Cluster c;
  c.run(1, "hostA", 100);  // running there, reported
  c.run(2, "hostA", 101);  // running there, not reported: lost
  c.run(3, "hostA");       // started, never reported running: StartJob sent again
  c.run(4, "hostA", 102);  // lost too, but rerunnable
  c.rerunnable = {4};
  auto reply = c.register_host("hostA", kWallMs, "127.0.0.1", "127.0.0.1", {1, 99});
  ASSERT_EQ(reply.status(), wire::STATUS_OK);
  // The host runs a job mbatchd does not know: it must not go on.
  ASSERT_EQ(reply.register_host().unknown_jobs_size(), 1);
  EXPECT_EQ(reply.register_host().unknown_jobs(0).job_id(), 99);
  EXPECT_EQ(c.state_of(1), wire::JOB_RUN);
  ASSERT_EQ(c.finished.size(), 1u);
  EXPECT_EQ(c.finished[0], std::make_pair(std::int64_t{2}, std::string("TERM_ORPHAN_SYSTEM")));
  EXPECT_EQ(c.launched, (std::vector<sched::JobKey>{{3, 0}}));
  EXPECT_EQ(c.state_of(4), wire::JOB_PEND);
}

TEST(HostTracker, ASignalThatCannotBeSentWaitsForTheHostWhileTheJobRuns) {
  Cluster c;
  c.run(1, "hostB", 100);
  c.hosts->signal_on_host(*c.state.find_job({1, 0}), SIGKILL, "TERM_OWNER");
  EXPECT_EQ(c.state.find_job({1, 0})->reason, "TERM_OWNER");  // what its end will say
  c.io.run();
  ASSERT_EQ(c.hosts->undelivered().count({1, 0}), 1u);
  EXPECT_EQ(c.hosts->undelivered().at({1, 0}).signal, SIGKILL);
  // The job ended some other way: nothing is sent when the host comes back.
  wire::EventRecord done;
  done.mutable_job_status()->set_job_id(1);
  done.mutable_job_status()->set_state(wire::JOB_DONE);
  c.sink.record(done);
  c.hosts->resend_signals("hostB");
  EXPECT_TRUE(c.hosts->undelivered().empty());
}

// A report read late by a busy master looks like a clock behind by the wait: the
// smallest offset of the last reports is the one taken, so a late one moves nothing.
TEST(HostTracker, AReportReadLateDoesNotLookLikeASlowClock) {
  Cluster c;
  c.register_host("hostA", kWallMs - 1'000);  // its clock 1 s behind
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 1'000);
  c.hosts->note_clock("hostA", kWallMs - 3'500);  // sent 2.5 s before it was read
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 1'000);
  // Eight reports in a row that all say 4 s: the clock did move.
  for (int i = 0; i < 8; ++i) c.hosts->note_clock("hostA", kWallMs - 4'000);
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 4'000);
  // A registration starts afresh: the host may have been restarted with another clock.
  c.register_host("hostA", kWallMs - 200);
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 200);
}

TEST(HostTracker, AHostClockOffsetMovesTheTimesItReports) {
  Cluster c;
  c.register_host("hostA", kWallMs - 30'000);  // its clock is 30 s behind
  ASSERT_NE(c.hosts->link("hostA"), nullptr);
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 30'000);
  const std::int64_t now = c.sink.now();
  c.run(1, "hostA", 100, now - 100);
  const mbd::Job& job = *c.state.find_job({1, 0});
  wire::JobStatusRequest report;
  report.set_host_name("hostA");
  report.set_time(now - 60 - 30);  // ended 60 s ago, by its clock
  EXPECT_EQ(c.hosts->reported_time(job, report), now - 60);
  report.set_time(now - 500);  // before the job started: the start
  EXPECT_EQ(c.hosts->reported_time(job, report), now - 100);
  report.set_time(now + 500);  // in the future: now
  EXPECT_EQ(c.hosts->reported_time(job, report), now);
  report.set_time(0);  // not said
  EXPECT_EQ(c.hosts->reported_time(job, report), 0);

  // A request refused for its clock is shown, but moves nothing.
  c.hosts->note_clock("hostA", kWallMs - 600'000, true);
  EXPECT_TRUE(c.hosts->link("hostA")->clock_refused);
  EXPECT_EQ(c.hosts->link("hostA")->refused_clock_offset_ms, 600'000);
  report.set_time(now - 90);
  EXPECT_EQ(c.hosts->reported_time(job, report), now - 60);
  c.load_report("hostA");  // signed and in step again
  EXPECT_FALSE(c.hosts->link("hostA")->clock_refused);
  EXPECT_EQ(c.hosts->link("hostA")->clock_offset_ms, 0);
}
