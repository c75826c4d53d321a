// Absolute priority scheduling (APS_PRIORITY, schmod_aps): LSF's factors and Maui's
// (queue time, expansion factor, target queue time, QOS), weights, limits and grace
// periods, and the order jobs start in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "libconfig/aps_priority.h"
#include "libsched/pass.h"
#include "one_host_cluster.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

constexpr std::int64_t kNow = 100000;

// One host of `slots` slots; queue `normal` (PRIORITY 40) with the queue lines given.
std::unique_ptr<lsf::testing::OneHostCluster> cluster(int slots, const std::string& queue_lines,
                                                      const std::string& classes = "") {
  std::map<std::string, std::string> files = {
      {"lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 40\n" + queue_lines + "End Queue\n"}};
  if (!classes.empty()) files["lsb.serviceclasses"] = classes;
  return lsf::testing::one_host_cluster(slots, files, "MAX_USER_PRIORITY = 100\n");
}

// Eligible since `waited_s` before now.
JobView pending(std::int64_t id, std::int64_t waited_s, int slots = 1, std::int64_t run_limit = 0) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = "alice";
  j.min_slots = j.max_slots = slots;
  j.run_limit_s = run_limit;
  j.idle_since = kNow - waited_s;
  return j;
}

const ApsScore& score_of(const PassResult& r, std::int64_t id) {
  auto it = std::find_if(r.aps.begin(), r.aps.end(), [&](const ApsScore& s) { return s.job.id == id; });
  EXPECT_NE(it, r.aps.end()) << "job " << id;
  return *it;
}

double factor(const ApsScore& s, const std::string& name) {
  for (const auto& [n, v] : s.factors)
    if (n == name) return v;
  ADD_FAILURE() << "no factor " << name;
  return -1;
}

TEST(Aps, ParsesWeightsLimitsAndGracePeriods) {
  auto aps = config::ApsPriority::parse(
      "WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10] [SERV, 2]] LIMIT[[QUEUETIME, 30]] "
      "GRACE_PERIOD[[MEM,10h] [JPRIORITY, 10m] [QPRIORITY,10s] [RSRC, 10]]");
  ASSERT_TRUE(aps) << aps.error();
  // A weighted subfactor gives its factor weight 1; a weighted factor without weighted
  // subfactors counts each of them.
  EXPECT_EQ(aps->weight("WORK"), 1);
  EXPECT_EQ(aps->weight("QPRIORITY"), 10);
  EXPECT_EQ(aps->weight("SERV"), 2);
  EXPECT_EQ(aps->weight("QUEUETIME"), 1);
  EXPECT_EQ(aps->weight("XFACTOR"), 1);
  EXPECT_EQ(aps->weight("RSRC"), 0);
  EXPECT_EQ(aps->terms.at("MEM").grace_s, 36000);
  EXPECT_EQ(aps->terms.at("JPRIORITY").grace_s, 600);
  EXPECT_EQ(aps->terms.at("QPRIORITY").grace_s, 10);
  EXPECT_EQ(aps->terms.at("RSRC").grace_s, 36000);
  EXPECT_EQ(*aps->terms.at("QUEUETIME").limit, 30);

  EXPECT_EQ(config::ApsPriority::parse("WEIGHT[[CPU, 1]]").error().substr(0, 30), "WEIGHT: unknown factor \"CPU\" (");
  EXPECT_EQ(config::ApsPriority::parse("WEIGHT[[FS, 0]]").error(), "WEIGHT: FS = \"0\" is not a non-zero number");
  EXPECT_EQ(config::ApsPriority::parse("WEIGHT[[ADMIN, 1]]").error(),
            "WEIGHT: ADMIN is set per job with bmod -aps, not configured");
  EXPECT_EQ(config::ApsPriority::parse("GRACE_PERIOD[[FS, 5d]]").error(),
            "GRACE_PERIOD: FS = \"5d\" is not a positive time (30s, 30m, 30h)");
  EXPECT_EQ(config::ApsPriority::parse("ORDER[[FS, 1]]").error(), "\"ORDER\" is not WEIGHT, LIMIT or GRACE_PERIOD");
}

TEST(Aps, ABadValueNamesTheFileAndLine) {
  lsf::testing::ConfigTree tree;
  tree.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nAPS_PRIORITY = WEIGHT[[QTIME, 1]]\nEnd Queue\n");
  auto loaded = tree.load();
  std::string errors = lsf::testing::errors_of(loaded);
  EXPECT_NE(errors.find("lsb.queues:3"), std::string::npos) << errors;
  EXPECT_NE(errors.find("APS_PRIORITY: WEIGHT: unknown factor \"QTIME\""), std::string::npos) << errors;
}

// The job that has waited longest starts first, whatever its place in the queue; the
// value is the weighted sum with limits applied.
TEST(Aps, WeightedSumOrdersTheQueue) {
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[QUEUETIME, 2] [QPRIORITY, 1]] LIMIT[[QUEUETIME, 30]]\n");
  c->view.pending = {pending(1, 5 * 60), pending(2, 20 * 60), pending(3, 60 * 60)};
  PassResult r = schedule(c->view, kNow);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 3);
  // 1 x (2 x min(30, 60 minutes)) + 1 x (1 x 40): the queue-time limit caps job 3.
  EXPECT_DOUBLE_EQ(score_of(r, 3).value, 100);
  EXPECT_DOUBLE_EQ(score_of(r, 2).value, 80);
  EXPECT_DOUBLE_EQ(score_of(r, 1).value, 50);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 1), "QUEUETIME"), 5);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 1), "QPRIORITY"), 40);

  // Without APS_PRIORITY the queue is FCFS: job 1 first.
  auto fcfs = cluster(1, "");
  fcfs->view.pending = c->view.pending;
  PassResult f = schedule(fcfs->view, kNow);
  ASSERT_EQ(f.dispatches.size(), 1u);
  EXPECT_EQ(f.dispatches[0].job.id, 1);
  EXPECT_TRUE(f.aps.empty());
}

// Maui's example: a 1-hour job that has waited 4 hours scores 5, a 4-hour job that has
// waited as long scores 2, so the short one goes first.
TEST(Aps, ExpansionFactorFavoursShortJobs) {
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[XFACTOR, 1]]\n");
  c->view.pending = {pending(1, 4 * 3600, 1, 4 * 3600), pending(2, 4 * 3600, 1, 3600)};
  PassResult r = schedule(c->view, kNow);
  EXPECT_DOUBLE_EQ(score_of(r, 1).value, 2);
  EXPECT_DOUBLE_EQ(score_of(r, 2).value, 5);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 2);
}

// Target queue time rises exponentially as the job nears its service class's target
// (doubling every tenth of it), then keeps rising, more slowly; QOS is the class's
// PRIORITY. A job without a class has neither.
TEST(Aps, TargetQueueTimeRisesExponentiallyAndQosAddsItsPriority) {
  const std::string classes =
      "Begin ServiceClass\nNAME = express\nGOALS = [VELOCITY 10 timeWindow ()]\nPRIORITY = 500\n"
      "QUEUE_TIME_TARGET = 60\nEnd ServiceClass\n";
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[TARGETQUEUETIME, 1] [QOS, 1]]\n", classes);
  std::vector<std::int64_t> waited_min = {0, 6, 30, 36, 60, 66};
  std::int64_t id = 1;
  for (auto w : waited_min) {
    JobView j = pending(id++, w * 60);
    j.sla = "express";
    c->view.pending.push_back(j);
  }
  c->view.pending.push_back(pending(id, 1000 * 60));  // no class
  c->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult r = schedule(c->view, kNow);
  std::vector<double> expected = {1, 2, 32, 64, 1024, 1024 * (1 + std::log(2.0))};
  for (size_t i = 0; i < expected.size(); ++i) {
    const ApsScore& s = score_of(r, static_cast<std::int64_t>(i + 1));
    EXPECT_NEAR(factor(s, "TARGETQUEUETIME"), expected[i], 1e-9) << "waited " << waited_min[i] << " min";
    EXPECT_DOUBLE_EQ(factor(s, "QOS"), 500);
  }
  EXPECT_DOUBLE_EQ(score_of(r, id).value, 0);
}

// A factor counts only after its grace period; JPRIORITY is MAX_USER_PRIORITY / 2 for a
// job without bsub -sp.
TEST(Aps, GracePeriodAndDefaultJobPriority) {
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[QUEUETIME, 1] [JPRIORITY, 1]] GRACE_PERIOD[[QUEUETIME, 10m]]\n");
  c->view.pending = {pending(1, 5 * 60), pending(2, 15 * 60)};
  c->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult r = schedule(c->view, kNow);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 1), "QUEUETIME"), 0);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 2), "QUEUETIME"), 15);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 1), "JPRIORITY"), 50);
}

// bsub -sp: with MAX_USER_PRIORITY (100 here) jobs of a queue go by their priority, then
// by submission; a job without -sp counts as 50. An APS queue reads it as JPRIORITY.
TEST(Aps, UserAssignedPriorityOrdersTheQueueAndIsJpriority) {
  auto fcfs = cluster(1, "");
  JobView low = pending(1, 0), plain = pending(2, 0), high = pending(3, 0);
  low.user_priority = 10;
  high.user_priority = 80;
  fcfs->view.pending = {low, plain, high};
  fcfs->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult r = schedule(fcfs->view, kNow);
  std::vector<std::int64_t> order;
  for (const auto& why : r.reasons) order.push_back(why.job.id);
  EXPECT_EQ(order, (std::vector<std::int64_t>{3, 2, 1}));

  auto aps = cluster(1, "APS_PRIORITY = WEIGHT[[JPRIORITY, 2]]\n");
  aps->view.pending = {low, plain, high};
  aps->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult a = schedule(aps->view, kNow);
  EXPECT_DOUBLE_EQ(score_of(a, 1).value, 20);
  EXPECT_DOUBLE_EQ(score_of(a, 2).value, 100);
  EXPECT_DOUBLE_EQ(score_of(a, 3).value, 160);
}

// bmod -aps: a system value goes ahead of every calculated one (highest first); an
// admin factor is added to the calculated value.
TEST(Aps, SystemValuesGoFirstAndAdminFactorsAdd) {
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[QUEUETIME, 1]]\n");
  JobView low_system = pending(1, 0), high_system = pending(2, 0), boosted = pending(3, 10 * 60),
          waited = pending(4, 60 * 60);
  low_system.aps_system = 5;
  high_system.aps_system = 7;
  boosted.aps_admin = 100;
  c->view.pending = {low_system, high_system, boosted, waited};
  c->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult r = schedule(c->view, kNow);
  EXPECT_TRUE(score_of(r, 2).system);
  EXPECT_DOUBLE_EQ(score_of(r, 2).value, 7);
  EXPECT_DOUBLE_EQ(score_of(r, 3).value, 110);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 3), "ADMIN"), 100);
  EXPECT_DOUBLE_EQ(score_of(r, 4).value, 60);
  // The order the pass considered them in is the order of their reasons.
  std::vector<std::int64_t> order;
  for (const auto& why : r.reasons) order.push_back(why.job.id);
  EXPECT_EQ(order, (std::vector<std::int64_t>{2, 1, 3, 4}));
}

// A job passed over (a later job starts while it waits) counts it; a job after the
// last start, or refused before host matching, does not. BYPASS weighs the count.
TEST(Aps, BypassCountsLaterStarts) {
  auto c = cluster(1, "APS_PRIORITY = WEIGHT[[BYPASS, 3]]\n");
  JobView wide = pending(1, 0, 2), small = pending(2, 0), after = pending(3, 0), held = pending(4, 0);
  wide.bypass_count = 4;
  held.held = true;
  held.order = 0;  // first in the queue, but held: nothing passes it over
  c->view.pending = {wide, small, after, held};
  PassResult r = schedule(c->view, kNow);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 2);
  auto bypassed = [&](std::int64_t id) {
    for (const auto& why : r.reasons)
      if (why.job.id == id) return why.bypassed;
    return -1;
  };
  EXPECT_EQ(bypassed(1), 1);
  EXPECT_EQ(bypassed(3), 0);
  EXPECT_EQ(bypassed(4), 0);
  EXPECT_DOUBLE_EQ(score_of(r, 1).value, 12);
  EXPECT_DOUBLE_EQ(factor(score_of(r, 1), "BYPASS"), 4);
}

// FS: the user's dynamic fairshare priority. Bob runs nothing, alice two jobs: bob's
// later job goes first.
TEST(Aps, FairshareFactorIsTheDynamicUserPriority) {
  auto c = cluster(3, "FAIRSHARE = USER_SHARES[[default, 1]]\nAPS_PRIORITY = WEIGHT[[FS, 1]]\n");
  for (int i = 0; i < 2; ++i)
    c->view.running.push_back(lsf::testing::running_on_host1(100 + i, "alice", 1, kNow - 600));
  JobView a = pending(1, 600), b = pending(2, 60);
  b.user = "bob";
  c->view.pending = {a, b};
  PassResult r = schedule(c->view, kNow);
  ASSERT_EQ(r.dispatches.size(), 1u);
  EXPECT_EQ(r.dispatches[0].job.id, 2);
  EXPECT_GT(score_of(r, 2).value, score_of(r, 1).value);
  EXPECT_GT(score_of(r, 1).value, 0);
}

// Maui's fairshare target: alice's 3 shares of 4 make her target 75 %, bob's 25 %;
// each has used half the run time, so alice is 25 points below target, bob 25 above.
TEST(Aps, FairshareTargetIsTheDeviationFromTheTargetShare) {
  auto c = cluster(3, "FAIRSHARE = USER_SHARES[[alice, 3] [bob, 1]]\nAPS_PRIORITY = WEIGHT[[FSTARGET, 1]]\n");
  c->view.running.push_back(lsf::testing::running_on_host1(100, "alice", 1, kNow - 600));
  c->view.running.push_back(lsf::testing::running_on_host1(101, "bob", 1, kNow - 600));
  JobView b = pending(1, 60), a = pending(2, 60);
  b.user = "bob";
  c->view.pending = {b, a};
  c->view.hosts[0].status = HostStatus::kClosedAdm;
  PassResult r = schedule(c->view, kNow);
  EXPECT_NEAR(score_of(r, 2).value, 25, 1e-9);
  EXPECT_NEAR(score_of(r, 1).value, -25, 1e-9);
  EXPECT_EQ(r.reasons.front().job.id, 2);
}

}  // namespace
