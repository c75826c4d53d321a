// Maui-style throttling (schmod_throttle): the worked examples of reference/policies.md
// §4: idle and blocked jobs, running plus idle, idle jobs per project besides per user,
// processor-seconds with soft and hard values.
#include <gtest/gtest.h>

#include <algorithm>

#include "libsched/pass.h"
#include "libsched/pass_apply.h"
#include "libsched/sim/cluster_model.h"
#include "one_host_cluster.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

// One host of `slots` slots and the Limit sections given.
std::unique_ptr<lsf::testing::OneHostCluster> cluster(int slots, const std::string& limits) {
  return lsf::testing::one_host_cluster(slots, {{"lsb.resources", limits}});
}

JobView pending(std::int64_t id, const std::string& user, int slots = 1, std::int64_t run_limit = 0,
                const std::string& project = "default") {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = user;
  j.project = project;
  j.min_slots = j.max_slots = slots;
  j.run_limit_s = run_limit;
  return j;
}

RunningJobView running(std::int64_t id, const std::string& user, int slots, std::int64_t start = 0,
                       std::int64_t run_limit = 0) {
  return lsf::testing::running_on_host1(id, user, slots, start, run_limit);
}

// The jobs whose pending reason starts with `text`, by id.
std::vector<std::int64_t> pending_for(const PassResult& r, const std::string& text) {
  std::vector<std::int64_t> ids;
  for (const auto& why : r.reasons)
    if (why.text->rfind(text, 0) == 0) ids.push_back(why.job.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::int64_t> ids(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> out;
  for (auto i = first; i <= last; ++i) out.push_back(i);
  return out;
}

const char* kIdle = "The idle jobs limit of user <alice> is reached: hard limit 8, 8 in use (Limit <maui>)";

// policies.md §4: submit 10 -> 8 idle, 2 blocked; when an idle job starts, a blocked
// job becomes idle.
TEST(Throttle, TenJobsMakeEightIdleAndTwoBlocked) {
  auto c = cluster(1, "Begin Limit\nNAME = maui\nPER_USER = all\nIDLE_JOBS = 8\nEnd Limit\n");
  c->view.running.push_back(running(100, "bob", 1));
  for (int i = 1; i <= 10; ++i) c->view.pending.push_back(pending(i, "alice"));
  auto r = schedule(c->view, 0);
  EXPECT_TRUE(r.dispatches.empty());
  EXPECT_EQ(pending_for(r, kIdle), (std::vector<std::int64_t>{9, 10}));
  EXPECT_EQ(pending_for(r, "Not enough job slot(s)"), ids(1, 8));
  // The two are BLOCKED (showq, bjobs -pi); the eight waiting for a slot are not.
  std::vector<std::int64_t> blocked;
  for (const auto& p : r.reasons)
    if (p.blocked) blocked.push_back(p.job.id);
  EXPECT_EQ(blocked, (std::vector<std::int64_t>{9, 10}));
  // blimits' view: alice has 8 idle under the limit, bob 1 running.
  ASSERT_EQ(r.throttles.size(), 2u);
  EXPECT_EQ(r.throttles[0].user, "alice");
  EXPECT_EQ(r.throttles[0].idle, 8);
  EXPECT_EQ(r.throttles[0].running, 0);
  EXPECT_EQ(r.throttles[1].user, "bob");
  EXPECT_EQ(r.throttles[1].running, 1);
  EXPECT_EQ(r.throttles[1].idle, 0);

  c->view.running.clear();  // bob's job ends: job 1 starts, job 9 becomes idle
  r = schedule(c->view, 0);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 1);
  EXPECT_EQ(pending_for(r, kIdle), (std::vector<std::int64_t>{10}));
  EXPECT_EQ(pending_for(r, "Not enough job slot(s)"), ids(2, 9));
}

// At most 72 jobs per user running plus idle: with 70 running, 2 of 5 pending are idle.
TEST(Throttle, RunningPlusIdleJobs) {
  auto c = cluster(70, "Begin Limit\nNAME = maui\nPER_USER = all\nIDLE_JOBS = 8\nTOTAL_JOBS = 72\nEnd Limit\n");
  for (int i = 0; i < 70; ++i) c->view.running.push_back(running(100 + i, "alice", 1));
  for (int i = 1; i <= 5; ++i) c->view.pending.push_back(pending(i, "alice"));
  auto r = schedule(c->view, 0);
  EXPECT_EQ(pending_for(r, "Not enough job slot(s)"), ids(1, 2));
  EXPECT_EQ(pending_for(r, "The running and idle jobs limit of user <alice> is reached: hard limit 72, 72 in use"),
            ids(3, 5));
}

// At most 30 idle jobs per project besides 8 per user: five users of one project with 8
// jobs each: the first 30 in order are idle, the last 10 blocked by the project.
TEST(Throttle, IdleJobsPerProjectBesidesPerUser) {
  auto c = cluster(1,
                   "Begin Limit\nNAME = maui\nPER_USER = all\nIDLE_JOBS = 8\nEnd Limit\n"
                   "Begin Limit\nNAME = account\nPER_PROJECT = all\nIDLE_JOBS = 30\nEnd Limit\n");
  c->view.running.push_back(running(100, "bob", 1));
  std::int64_t id = 1;
  for (const char* user : {"u1", "u2", "u3", "u4", "u5"})
    for (int i = 0; i < 9; ++i) c->view.pending.push_back(pending(id++, user, 1, 0, "p1"));
  auto r = schedule(c->view, 0);
  // Each user's ninth job is over the user's 8; of the 40 within it, 30 are idle.
  auto project = pending_for(r, "The idle jobs limit of project <p1> is reached: hard limit 30, 30 in use");
  EXPECT_EQ(project.size(), 5u * 9 - 30 - 3);  // u4's and u5's jobs, but for the per-user blocked ones
  EXPECT_EQ(pending_for(r, "Not enough job slot(s)").size(), 30u);
  EXPECT_EQ(pending_for(r, "The idle jobs limit of user <u1>"), (std::vector<std::int64_t>{9}));
}

// policies.md §4, MAXPS: alice's running job has 2 processors and 34,948 s left (PS
// 69,896); her next job asks 8 x 3,600 = 28,800: 98,696 > 72,000 (soft), so it waits
// while another job within every limit is eligible (bob's, which waits for slots), and
// starts when the running job ends. With nothing else eligible the soft value gives way
// (98,696 is within the hard 1,080,000); past the hard value nothing starts.
TEST(Throttle, ProcessorSecondsWithSoftAndHardValues) {
  const std::int64_t now = 100000;
  auto setup = [&](bool bob_waits, std::int64_t alice_limit) {
    auto c = cluster(16, "Begin Limit\nNAME = maxps\nPER_USER = all\nPROC_SECONDS = 72000/1080000\nEnd Limit\n");
    c->view.running.push_back(running(100, "alice", 2, now - 1052, 36000));  // 34,948 s left
    c->view.pending.push_back(pending(1, "alice", 8, alice_limit));
    if (bob_waits) c->view.pending.push_back(pending(2, "bob", 20, 3600));  // never fits 16 slots
    return c;
  };
  auto c = setup(true, 3600);
  auto r = schedule(c->view, now);
  EXPECT_TRUE(r.dispatches.empty());
  EXPECT_EQ(pending_for(r,
                        "The processor-seconds limit of user <alice> is reached: soft limit 72000, 69896 in use "
                        "+ 28800 asked (Limit <maxps>)"),
            (std::vector<std::int64_t>{1}));
  c->view.running.clear();  // the running job ends
  r = schedule(c->view, now);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 1);

  auto alone = setup(false, 3600);
  r = schedule(alone->view, now);
  ASSERT_EQ(r.dispatches.size(), 1u);  // nothing else eligible: between soft and hard, it starts

  auto huge = setup(false, 200000);  // 8 x 200,000 = 1,600,000 > 1,080,000
  r = schedule(huge->view, now);
  EXPECT_TRUE(r.dispatches.empty());
  EXPECT_EQ(pending_for(r, "The processor-seconds limit of user <alice> is reached: hard limit 1080000").size(), 1u);
}

// JOBS = 1/2: a second running job only when no job within the soft value waits.
TEST(Throttle, SoftJobsLimitGivesWayOnlyToIdleResources) {
  auto c = cluster(4, "Begin Limit\nNAME = soft\nPER_USER = all\nJOBS = 1/2\nEnd Limit\n");
  c->view.running.push_back(running(100, "alice", 1));
  c->view.pending = {pending(1, "alice"), pending(2, "bob", 8)};  // bob's never fits
  auto r = schedule(c->view, 0);
  EXPECT_TRUE(r.dispatches.empty());
  EXPECT_EQ(pending_for(r, "The running jobs limit of user <alice> is reached: soft limit 1, 1 in use"),
            (std::vector<std::int64_t>{1}));
  c->view.pending.pop_back();
  r = schedule(c->view, 0);
  ASSERT_EQ(r.dispatches.size(), 1u);  // its second job, up to the hard 2
  c->view.running.push_back(running(101, "alice", 1));
  r = schedule(c->view, 0);
  EXPECT_TRUE(r.dispatches.empty());  // never past the hard value (schmod_limit's JOBS)
}

// Soft values below hard ones; errors name the file, line and key.
TEST(Throttle, SoftAndHardValuesAreChecked) {
  lsf::testing::ConfigTree t;
  t.lsb("lsb.resources",
        "Begin Limit\nNAME = ok\nPER_USER = all\nJOBS = 6/8\nSLOTS = 10\nPROC_SECONDS = 72000/1080000\n"
        "IDLE_JOBS = 8\nTOTAL_JOBS = 72\nEnd Limit\n"
        "Begin Limit\nNAME = bad\nPER_USER = all\nJOBS = 9/8\nPROC_SECONDS = 5/4\nEnd Limit\n");
  auto r = t.load();
  EXPECT_EQ(lsf::testing::errors_of(r),
            "lsb.resources:13: limit \"bad\": JOBS = 9/8: the hard value is below the soft one\n"
            "lsb.resources:14: limit \"bad\": PROC_SECONDS = 5/4: the hard value is below the soft one\n");
  ASSERT_FALSE(r.config->limits.empty());
  const auto& l = r.config->limits[0];
  EXPECT_EQ(l.jobs_soft, 6);
  EXPECT_EQ(l.jobs, 8);
  EXPECT_EQ(l.slots, 10);
  EXPECT_FALSE(l.slots_soft);
  EXPECT_EQ(l.proc_seconds_soft, 72000);
  EXPECT_EQ(l.proc_seconds_hard, 1080000);
  EXPECT_EQ(l.idle_jobs, 8);
  EXPECT_EQ(l.total_jobs, 72);
}

}  // namespace

// policies.md §4: a job asking for more nodes than are free waits; smaller jobs start
// around it without moving its predicted start. Ten nodes of one processor, two busy
// until 1 h and 2 h from now: the 10-node job holds the 8 free ones and expects to start
// in 2 h; a 1-hour job backfills into its slots, a 3-hour one may not, and with the
// 1-hour job running the prediction stays at 2 h.
TEST(Throttle, WideJobWaitsWhileSmallerJobsStartAroundIt) {
  lsf::testing::ConfigTree tree;
  tree.lsb("lsb.queues",
           "Begin Queue\nQUEUE_NAME = batch\nPRIORITY = 30\nSLOT_RESERVE = MAX_RESERVE_TIME[1000]\nBACKFILL = Y\n"
           "End Queue\n");
  tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters\n");
  auto loaded = tree.load();
  ASSERT_TRUE(loaded.usable()) << lsf::testing::errors_of(loaded);
  ClusterView view = sim::model_cluster(*loaded.config, {10, 1});
  constexpr std::int64_t kNow = 10000;
  for (int i = 0; i < 2; ++i) {
    RunningJobView r = running(100 + i, "bob", 1, kNow - 600, 600 + 3600 * (i + 1));
    r.hosts = {view.hosts[static_cast<size_t>(i)].name};
    view.running.push_back(r);
  }
  JobView wide = pending(1, "alice", 10, 4 * 3600), hour = pending(2, "carol", 1, 3600),
          three_hours = pending(3, "dave", 1, 3 * 3600);
  view.pending = {wide, hour, three_hours};
  PassResult r = schedule(view, kNow);
  ASSERT_EQ(r.reservations.size(), 1u);
  EXPECT_EQ(r.reservations[0].job.id, 1);
  EXPECT_EQ(r.reservations[0].hosts.size(), 8u);
  EXPECT_EQ(r.reservations[0].estimated_start, kNow + 7200);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 2);

  // The 1-hour job runs; the next pass predicts the same start and still keeps the
  // 3-hour job out.
  apply(view, r, kNow);
  PassResult next = schedule(view, kNow + 60);
  ASSERT_EQ(next.reservations.size(), 1u);
  EXPECT_EQ(next.reservations[0].estimated_start, kNow + 7200);
  EXPECT_TRUE(next.dispatches.empty());
}
