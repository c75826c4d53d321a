// mbatchd's job state as rebuilt from events: the run number a report must name and
// the pre-exec failures LOCAL_MAX_PREEXEC_RETRY counts survive replay and snapshots.
#include <gtest/gtest.h>

#include "daemons/mbatchd/cluster_state.h"
#include "event_records.h"

using namespace lsf;
using lsf::testing::job_new;

namespace {

wire::EventRecord at(std::int64_t time, wire::EventRecord r) {
  r.set_time(time);
  return r;
}

wire::EventRecord job_start(std::int64_t id) {
  wire::EventRecord r;
  r.mutable_job_start()->set_job_id(id);
  r.mutable_job_start()->add_exec_hosts("hostA");
  return r;
}

wire::EventRecord pre_exec_requeue(std::int64_t id, bool hold = false) {
  wire::EventRecord r;
  auto* e = r.mutable_job_requeue();
  e->set_job_id(id);
  e->set_pre_exec_failed(true);
  e->set_hold(hold);
  return r;
}

TEST(ClusterState, EachDispatchIsANewAttempt) {
  mbd::ClusterState s;
  ASSERT_EQ(s.apply(at(100, job_new(1))).message(), "");
  ASSERT_EQ(s.apply(at(101, job_start(1))).message(), "");
  EXPECT_EQ(s.find_job({1, 0})->attempt, 1);
  ASSERT_EQ(s.apply(at(102, pre_exec_requeue(1))).message(), "");
  const mbd::Job* job = s.find_job({1, 0});
  EXPECT_EQ(job->pre_exec_failures, 1);
  EXPECT_EQ(job->retry_at, 102 + mbd::kPreExecRetryDelay);
  ASSERT_EQ(s.apply(at(104, job_start(1))).message(), "");
  EXPECT_EQ(s.find_job({1, 0})->attempt, 2);

  mbd::ClusterState restored;
  restored.load_snapshot(s.snapshot(105));
  EXPECT_EQ(restored.find_job({1, 0})->attempt, 2);
  EXPECT_EQ(restored.find_job({1, 0})->pre_exec_failures, 1);
}

TEST(ClusterState, HoldingAfterPreExecFailuresStartsTheCountAgain) {
  mbd::ClusterState s;
  ASSERT_EQ(s.apply(at(100, job_new(1))).message(), "");
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(s.apply(at(101 + i, job_start(1))).message(), "");
    ASSERT_EQ(s.apply(at(101 + i, pre_exec_requeue(1, i == 1))).message(), "");
  }
  EXPECT_EQ(s.find_job({1, 0})->state, wire::JOB_PSUSP);
  EXPECT_EQ(s.find_job({1, 0})->pre_exec_failures, 0);
  EXPECT_EQ(s.find_job({1, 0})->attempt, 2);
}

// A blocked job accrues no queue time (Maui, APS): its idle time starts over at the
// pass that finds it eligible again; a job never blocked counts from submission (0).
// Each pass adds the jobs that passed it over to its bypass count.
TEST(ClusterState, EligibleAgainAfterABlockStartsQueueTimeOver) {
  mbd::ClusterState s;
  ASSERT_EQ(s.apply(at(100, job_new(1))).message(), "");
  auto reason = [](bool blocked) {
    sched::PendingReason r;
    r.job = {1, 0};
    r.text = std::make_shared<const std::string>(blocked ? "limit" : "no slots");
    r.blocked = blocked;
    return std::vector<sched::PendingReason>{r};
  };
  auto eligible = reason(false);
  s.set_pending_reasons(eligible, 150);
  EXPECT_EQ(s.find_job({1, 0})->idle_since, 0);
  auto blocked = reason(true);
  s.set_pending_reasons(blocked, 200);
  EXPECT_TRUE(s.find_job({1, 0})->blocked);
  EXPECT_EQ(s.find_job({1, 0})->idle_since, 0);
  auto again = reason(false);
  again[0].bypassed = 2;
  s.set_pending_reasons(again, 300);
  EXPECT_FALSE(s.find_job({1, 0})->blocked);
  EXPECT_EQ(s.find_job({1, 0})->idle_since, 300);
  // Bypasses add up from pass to pass.
  auto later = reason(false);
  later[0].bypassed = 3;
  s.set_pending_reasons(later, 310);
  EXPECT_EQ(s.find_job({1, 0})->bypass_count, 5);
}

// A pass's reasons reach their jobs through the view's job table when it still holds:
// an entry that no longer names the same job (or none at all) is matched by key, and
// a job that started meanwhile keeps no pending reason.
TEST(ClusterState, PassReasonsFindTheirJobsByViewIndexOrByKey) {
  mbd::ClusterState s;
  for (std::int64_t id = 1; id <= 3; ++id) ASSERT_EQ(s.apply(at(100, job_new(id))).message(), "");
  std::vector<mbd::Job*> by_index;
  for (const auto& [key, job] : s.pending()) by_index.push_back(job);
  ASSERT_EQ(s.apply(at(101, job_start(2))).message(), "");  // started while the pass ran
  auto reason = [](std::int64_t id, int index, const char* text) {
    sched::PendingReason r;
    r.job = {id, 0};
    r.view_index = index;
    r.text = std::make_shared<const std::string>(text);
    r.bypassed = 1;
    return r;
  };
  std::vector<sched::PendingReason> reasons{reason(3, 2, "three"), reason(2, 1, "two"), reason(1, 2, "one"),
                                            reason(1, -1, "one again")};
  s.set_pending_reasons(reasons, 150, by_index);
  // Job 1's entry pointed at job 3's place: matched by key instead, both of its reasons.
  EXPECT_EQ(*s.find_job({1, 0})->pending_reason, "one again");
  EXPECT_EQ(s.find_job({1, 0})->bypass_count, 2);
  EXPECT_EQ(*s.find_job({3, 0})->pending_reason, "three");
  EXPECT_EQ(s.find_job({2, 0})->bypass_count, 0);
  // Without a table (jobs were dropped since the view), every reason is matched by key.
  std::vector<sched::PendingReason> later{reason(3, 2, "three later")};
  s.set_pending_reasons(later, 160);
  EXPECT_EQ(*s.find_job({3, 0})->pending_reason, "three later");
  EXPECT_EQ(s.find_job({3, 0})->bypass_count, 2);
}

// APS values are the last pass's only: a job the next pass gives none loses its own.
TEST(ClusterState, ApsValuesLastOnePass) {
  mbd::ClusterState s;
  for (std::int64_t id = 1; id <= 2; ++id) ASSERT_EQ(s.apply(at(100, job_new(id))).message(), "");
  std::vector<sched::ApsScore> first{{{1, 0}, 5.0, false, {}}, {{2, 0}, 7.0, false, {}}};
  s.set_aps(first);
  ASSERT_TRUE(s.find_job({1, 0})->aps && s.find_job({2, 0})->aps);
  std::vector<sched::ApsScore> second{{{2, 0}, 8.0, false, {}}};
  s.set_aps(second);
  EXPECT_FALSE(s.find_job({1, 0})->aps);
  ASSERT_TRUE(s.find_job({2, 0})->aps);
  EXPECT_EQ(s.find_job({2, 0})->aps->value, 8.0);
}

}  // namespace

// Fairshare history: a finished job of a FAIRSHARE queue is charged to its user as it
// ends (so replay charges it again), and snapshots keep what was charged.
TEST(ClusterState, FinishedJobsOfFairshareQueuesAreCharged) {
  config::ClusterConfig cfg;
  config::Queue q;
  q.name = "normal";
  q.fairshare = std::vector<config::ShareAssignment>{{"alice", 1, false}};
  q.hist_hours = 0;  // no decay: the figures stay as charged
  cfg.queues.push_back(q);
  mbd::ClusterState s;
  auto policy = sched::build_policy(cfg);
  s.sync_config(cfg, policy);
  ASSERT_EQ(s.apply(at(100, job_new(1))).message(), "");
  ASSERT_EQ(s.apply(at(110, job_start(1))).message(), "");
  wire::EventRecord done;
  done.mutable_job_status()->set_job_id(1);
  done.mutable_job_status()->set_state(wire::JOB_DONE);
  done.mutable_job_status()->set_cpu_time(7);
  ASSERT_EQ(s.apply(at(150, done)).message(), "");
  auto use = s.share_history()->use("normal", "alice", 1000, 0);
  EXPECT_DOUBLE_EQ(use.run_s, 40);
  EXPECT_DOUBLE_EQ(use.cpu_s, 7);

  mbd::ClusterState restored;
  restored.sync_config(cfg, policy);
  restored.load_snapshot(s.snapshot(200));
  EXPECT_DOUBLE_EQ(restored.share_history()->use("normal", "alice", 1000, 0).run_s, 40);

  mbd::ClusterState plain;  // a queue without FAIRSHARE charges nothing
  ASSERT_EQ(plain.apply(at(100, job_new(1))).message(), "");
  ASSERT_EQ(plain.apply(at(110, job_start(1))).message(), "");
  ASSERT_EQ(plain.apply(at(150, done)).message(), "");
  EXPECT_TRUE(plain.share_history()->empty());
}

// A host's registration compares what its sbatchd runs with the started jobs whose
// first host it is; the state keeps that list per host (at 5,000 hosts and 12,000
// running jobs a walk over every started job per registration cost seconds).
TEST(ClusterState, EachHostKnowsTheStartedJobsItRuns) {
  mbd::ClusterState s;
  for (std::int64_t id : {1, 2, 3}) ASSERT_EQ(s.apply(at(100, job_new(id))).message(), "");
  ASSERT_EQ(s.apply(at(101, job_start(1))).message(), "");
  wire::EventRecord on_b;
  on_b.mutable_job_start()->set_job_id(2);
  on_b.mutable_job_start()->add_exec_hosts("hostB");
  on_b.mutable_job_start()->add_exec_hosts("hostA");
  ASSERT_EQ(s.apply(at(101, on_b)).message(), "");
  EXPECT_EQ(s.hosts().at("hostA").started_here, (std::set<sched::JobKey>{{1, 0}}));
  EXPECT_EQ(s.hosts().at("hostB").started_here, (std::set<sched::JobKey>{{2, 0}}));
  // Requeued: no longer started anywhere; and a snapshot rebuilds the lists.
  ASSERT_EQ(s.apply(at(102, pre_exec_requeue(1))).message(), "");
  EXPECT_TRUE(s.hosts().at("hostA").started_here.empty());
  mbd::ClusterState restored;
  restored.load_snapshot(s.snapshot(103));
  EXPECT_EQ(restored.hosts().at("hostB").started_here, (std::set<sched::JobKey>{{2, 0}}));
  EXPECT_TRUE(restored.hosts().at("hostA").started_here.empty());
}
