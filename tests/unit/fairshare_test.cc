// User fairshare (schmod_fairshare): the share tree, LSF's dynamic priority, and the
// slot-time users get when they saturate a cluster, simulated on bsim's virtual clock.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "config_tree.h"
#include "libsched/share_accounts.h"
#include "libsched/sim/cluster_model.h"
#include "libsched/sim/simulator.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

struct Loaded {
  lsf::testing::ConfigTree tree;
  config::LoadResult result;
};

std::unique_ptr<Loaded> load(const std::string& queue_lines, const std::string& users = "",
                             const std::string& params = "") {
  auto l = std::make_unique<Loaded>();
  l->tree.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = fs\nPRIORITY = 30\n" + queue_lines + "End Queue\n");
  l->tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\n" + params + "End Parameters\n");
  if (!users.empty()) l->tree.lsb("lsb.users", users);
  l->result = l->tree.load();
  EXPECT_TRUE(l->result.usable());
  return l;
}

// Every user submits `per_user` one-slot jobs of ten minutes at time 0 to a cluster of
// 10 hosts x 10 slots; returns each user's share of the slot-time used in [0, until).
std::map<std::string, double> slot_time(const config::ClusterConfig& cfg, const std::vector<std::string>& users,
                                        int per_user, std::int64_t until) {
  auto cluster = sim::model_cluster(cfg, {10, 10});
  std::vector<sim::Job> jobs;
  std::int64_t id = 1;
  // Interleaved submission, so FCFS alone would give everyone the same.
  for (int i = 0; i < per_user; ++i)
    for (const auto& u : users) {
      sim::Job j;
      j.id = id++;
      j.runtime = j.run_limit = 600;
      j.user = u;
      jobs.push_back(j);
    }
  auto result = sim::simulate(cluster, jobs);
  std::map<std::string, double> used;
  double total = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& o = result.jobs[i];
    if (o.start < 0 || o.start >= until) continue;
    double s = static_cast<double>(std::min(o.end, until) - o.start) * o.procs;
    used[jobs[i].user] += s;
    total += s;
  }
  for (auto& [u, s] : used) s = 100 * s / total;
  return used;
}

TEST(ShareTree, UsersFindTheirAccounts) {
  auto l = load("FAIRSHARE = USER_SHARES[[alice, 10] [ga@, 3] [gb, 5] [gc, 4] [others, 1]]\n",
                "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
                "ga (ann amy) ()\ngb (bob ben) ()\ngc (carl gd) ([carl, 2] [default, 1])\n"
                "gd (dora) ()\nEnd UserGroup\n");
  const auto& fs = *l->result.config->queues[0].fairshare;
  auto policy = build_policy(*l->result.config);
  const auto& tree = *policy->queues[0].fairshare;
  EXPECT_EQ(fs.size(), 5u);
  auto names = [&](const std::string& user) { return share_path(tree, user).names; };
  using N = std::vector<std::string>;
  EXPECT_EQ(names("alice"), N({"alice"}));
  EXPECT_EQ(names("amy"), N({"amy"}));  // group@: an account per member
  EXPECT_EQ(names("ben"), N({"gb"}));   // a group without shares: one account
  EXPECT_EQ(names("carl"), N({"gc", "carl"}));
  EXPECT_EQ(names("dora"), N({"gc", "dora"}));  // default below gc, dora through gd
  EXPECT_EQ(names("zed"), N({"others"}));

  auto none = load("FAIRSHARE = USER_SHARES[[alice, 10]]\n");
  EXPECT_TRUE(share_path(*build_policy(*none->result.config)->queues[0].fairshare, "zed").empty());
}

// shares / (cpu_h x 0.7 + run_h x 0.7 + (1 + slots) x 3): a user with 10 shares running
// two slots for an hour, 1 CPU hour used: 10 / (0.7 + 1.4 + 9) = 0.9009.
TEST(ShareTree, DynamicPriorityAsLsfDefinesIt) {
  auto l = load("FAIRSHARE = USER_SHARES[[alice, 10] [bob, 10]]\n");
  auto cluster = sim::model_cluster(*l->result.config, {2, 2});
  RunningJobView r;
  r.key = {1, 0};
  r.user = "alice";
  r.hosts = {cluster.hosts[0].name, cluster.hosts[0].name};
  r.start_time = 1000;
  r.cpu_s = 3600;
  cluster.running.push_back(r);
  auto rows = share_table(cluster, 0, 1000 + 3600);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "alice");
  EXPECT_EQ(rows[0].started, 2);
  EXPECT_NEAR(rows[0].priority, 10 / (0.7 + 1.4 + 9), 1e-9);
  EXPECT_NEAR(rows[1].priority, 10 / 3.0, 1e-9);  // bob: nothing used
}

TEST(Fairshare, SlotTimeFollowsSharesAfterTwoHistHours) {
  auto l = load("FAIRSHARE = USER_SHARES[[u1, 40] [u2, 30] [u3, 20] [u4, 10]]\n", "", "HIST_HOURS = 5\n");
  auto used = slot_time(*l->result.config, {"u1", "u2", "u3", "u4"}, 3000, 10 * 3600);
  EXPECT_NEAR(used["u1"], 40, 5);
  EXPECT_NEAR(used["u2"], 30, 5);
  EXPECT_NEAR(used["u3"], 20, 5);
  EXPECT_NEAR(used["u4"], 10, 5);
}

TEST(Fairshare, WithoutFairshareEveryoneGetsTheSame) {
  auto l = load("");
  auto used = slot_time(*l->result.config, {"u1", "u2", "u3", "u4"}, 3000, 10 * 3600);
  EXPECT_NEAR(used["u1"], 25, 1);
  EXPECT_NEAR(used["u4"], 25, 1);
}

TEST(Fairshare, LoneUserOfAGroupGetsHalf) {
  auto l = load("FAIRSHARE = USER_SHARES[[ga, 50] [gb, 50]]\n",
                "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
                "ga (a1) ()\ngb (b1 b2 b3 b4) ([default, 1])\nEnd UserGroup\n");
  auto used = slot_time(*l->result.config, {"a1", "b1", "b2", "b3", "b4"}, 3000, 10 * 3600);
  EXPECT_NEAR(used["a1"], 50, 5);
  for (const char* b : {"b1", "b2", "b3", "b4"}) EXPECT_NEAR(used[b], 12.5, 5) << b;
}

// Yesterday alice used 100 slot-hours, bob 20 an hour ago. With HIST_HOURS = 5,
// alice's use has decayed to almost nothing (0.1^(24/5)) and bob's is 0.1^(1/5) of it:
// alice's job starts although bob's was submitted first. Without decay bob's would.
TEST(Fairshare, DecayLetsYesterdaysHeavyUserWinToday) {
  auto first = [](const std::string& params) {
    auto l = load("FAIRSHARE = USER_SHARES[[alice, 1] [bob, 1]]\n", "", params);
    auto cluster = sim::model_cluster(*l->result.config, {1, 1});
    const std::int64_t now = 100 * 3600;
    const auto& fs = *cluster.policy->queues[0].fairshare;
    auto history = std::make_shared<ShareHistory>();
    history->charge("fs", "alice", {100 * 3600.0, 100 * 3600.0}, now - 24 * 3600, fs.hist_hours);
    history->charge("fs", "bob", {20 * 3600.0, 20 * 3600.0}, now - 3600, fs.hist_hours);
    cluster.share_history = history;
    for (auto [id, user] : {std::pair<int, const char*>{1, "bob"}, {2, "alice"}}) {
      JobView j;
      j.key = {id, 0};
      j.order = id;
      j.user = user;
      cluster.pending.push_back(j);
    }
    auto pass = schedule(cluster, now);
    EXPECT_EQ(pass.dispatches.size(), 1u);
    return pass.dispatches.empty() ? std::int64_t{0} : pass.dispatches[0].job.id;
  };
  EXPECT_EQ(first("HIST_HOURS = 5\n"), 2);  // alice
  EXPECT_EQ(first("HIST_HOURS = 0\n"), 1);  // bob
}

TEST(Fairshare, UserWithoutShareWaitsWithReason) {
  auto l = load("FAIRSHARE = USER_SHARES[[alice, 1]]\n");
  auto cluster = sim::model_cluster(*l->result.config, {1, 1});
  JobView j;
  j.key = {1, 0};
  j.user = "zed";
  cluster.pending.push_back(j);
  auto pass = schedule(cluster, 10);
  EXPECT_TRUE(pass.dispatches.empty());
  ASSERT_EQ(pass.reasons.size(), 1u);
  EXPECT_EQ(*pass.reasons[0].text, "The user has no share in the queue's fairshare policy");
}

// One free slot: alice runs a job of `running_queue`; alice's job (submitted first) and
// bob's wait in the pending queues given. Which one starts?
std::int64_t first_of_alice_and_bob(ClusterView cluster, const std::string& running_queue,
                                    const std::string& alice_queue, const std::string& bob_queue) {
  RunningJobView r;
  r.key = {1, 0};
  r.queue = cluster.policy->queue_index(running_queue);
  r.user = "alice";
  r.hosts = {cluster.hosts[0].name};
  cluster.running.push_back(r);
  for (auto [id, user, queue] :
       {std::tuple<int, const char*, std::string>{2, "alice", alice_queue}, {3, "bob", bob_queue}}) {
    JobView j;
    j.key = {id, 0};
    j.order = id;
    j.user = user;
    j.queue = cluster.policy->queue_index(queue);
    cluster.pending.push_back(j);
  }
  auto pass = schedule(cluster, 60);
  EXPECT_EQ(pass.dispatches.size(), 1u);
  return pass.dispatches.empty() ? std::int64_t{0} : pass.dispatches[0].job.id;
}

// Cross-queue fairshare: fs2 uses fs's tree (FAIRSHARE_QUEUES), so alice's job running
// in fs2 counts against her in fs too: with alice's job pending in fs (higher priority,
// submitted first) and bob's in fs2, bob's starts. Without the set, fs's tree knows
// nothing of alice's fs2 job and hers starts.
TEST(Fairshare, CrossQueueSetCountsEveryQueuesJobs) {
  auto first = [](const std::string& set) {
    auto l = load("FAIRSHARE = USER_SHARES[[alice, 1] [bob, 1]]\n" + set +
                  "End Queue\nBegin Queue\nQUEUE_NAME = fs2\nPRIORITY = 20\n");
    return first_of_alice_and_bob(sim::model_cluster(*l->result.config, {1, 2}), "fs2", "fs", "fs2");
  };
  EXPECT_EQ(first("FAIRSHARE_QUEUES = fs2\n"), 3);  // bob
  EXPECT_EQ(first(""), 2);                          // alice
}

// DISPATCH_ORDER=QUEUE in the master: the set's queues go by queue priority first, so
// alice's job in fs (the higher queue) starts although bob's user priority is higher.
// Queues of equal priority still go by user priority together.
TEST(Fairshare, DispatchOrderQueueTakesQueuePriorityFirst) {
  auto first = [](const std::string& fs2_priority) {
    auto l = load(
        "FAIRSHARE = USER_SHARES[[alice, 1] [bob, 1]]\nFAIRSHARE_QUEUES = fs2\nDISPATCH_ORDER = QUEUE\n"
        "End Queue\nBegin Queue\nQUEUE_NAME = fs2\nPRIORITY = " +
        fs2_priority + "\n");
    return first_of_alice_and_bob(sim::model_cluster(*l->result.config, {1, 2}), "fs2", "fs", "fs2");
  };
  EXPECT_EQ(first("20"), 2);  // alice, in the higher queue
  EXPECT_EQ(first("30"), 3);  // bob: equal priorities, user priority decides
}

// bsub -G: carl is in ga and gb. Without -G his jobs go to his first account (ga); with
// -G gb to gb, for running jobs, history and the path bjobs -l shows. A group carl is
// not in leaves him in his first account.
TEST(Fairshare, BsubGChargesTheNamedGroup) {
  auto l = load("FAIRSHARE = USER_SHARES[[ga, 1] [gb, 1]]\n",
                "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
                "ga (carl ann) ([default, 1])\ngb (carl bob) ([default, 1])\ngc (zed) ()\nEnd UserGroup\n");
  auto cluster = sim::model_cluster(*l->result.config, {1, 2});
  const auto& tree = *cluster.policy->queues[0].fairshare;
  EXPECT_EQ(share_path(tree, "carl").to_string(), "/ga/carl");
  EXPECT_EQ(share_path(tree, "carl", "gb").to_string(), "/gb/carl");
  EXPECT_EQ(share_path(tree, "carl", "gc").to_string(), "/ga/carl");

  // carl runs one slot charged to gb, and used an hour of CPU there: ann (ga) now
  // ranks above bob (gb) and her job starts first although bob's was submitted first.
  RunningJobView r;
  r.key = {1, 0};
  r.user = "carl";
  r.share_group = "gb";
  r.hosts = {cluster.hosts[0].name};
  cluster.running.push_back(r);
  auto history = std::make_shared<ShareHistory>();
  charge_finished(*history, cluster.policy->queues[0], "carl", "gb", {3600, 3600}, 60);
  cluster.share_history = history;
  for (auto [id, user] : {std::pair<int, const char*>{2, "bob"}, {3, "ann"}}) {
    JobView j;
    j.key = {id, 0};
    j.order = id;
    j.user = user;
    cluster.pending.push_back(j);
  }
  auto rows = share_table(cluster, 0, 60);
  auto row = [&](const std::string& name, int depth) {
    for (const auto& x : rows)
      if (x.name == name && x.depth == depth) return x;
    return ShareRow{};
  };
  EXPECT_EQ(row("gb", 0).started, 1);
  EXPECT_EQ(row("ga", 0).started, 0);
  EXPECT_NEAR(row("gb", 0).cpu_s, 3600, 1);
  auto pass = schedule(cluster, 60);
  ASSERT_EQ(pass.dispatches.size(), 1u);
  EXPECT_EQ(pass.dispatches[0].job.id, 3);  // ann
}

// Slots a pending job's reservation holds count in job_slots (RESERVED in bqueues -l):
// alice's wide job holds 3 slots, so bob's job, submitted last, starts first.
TEST(Fairshare, ReservedSlotsLowerThePriority) {
  auto l = load("FAIRSHARE = USER_SHARES[[alice, 1] [bob, 1]]\n");
  auto cluster = sim::model_cluster(*l->result.config, {1, 1});
  for (auto [id, user, slots, held] :
       {std::tuple<int, const char*, int, int>{1, "alice", 4, 3}, {2, "alice", 1, 0}, {3, "bob", 1, 0}}) {
    JobView j;
    j.key = {id, 0};
    j.order = id;
    j.user = user;
    j.min_slots = j.max_slots = slots;
    j.reserved_slots = held;
    cluster.pending.push_back(j);
  }
  auto rows = share_table(cluster, 0, 60);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "alice");
  EXPECT_EQ(rows[0].reserved, 3);
  EXPECT_NEAR(rows[0].priority, 1 / (3.0 * 4), 1e-9);
  auto pass = schedule(cluster, 60);
  ASSERT_EQ(pass.dispatches.size(), 1u);
  EXPECT_EQ(pass.dispatches[0].job.id, 3);  // bob
}

// Host-partition fairshare: queues whose hosts lie in a HostPartition are ordered by
// its tree, and a user's jobs in any of them count: alice runs a job of qa on the
// partition, and in qb bob's job starts before hers. Without the partition, FCFS.
TEST(Fairshare, HostPartitionCountsJobsOfEveryQueueOnIt) {
  auto first = [](bool partition) {
    auto l = std::make_unique<Loaded>();
    l->tree.lsb("lsb.queues",
                "Begin Queue\nQUEUE_NAME = qa\nPRIORITY = 30\nHOSTS = hostA\nEnd Queue\n"
                "Begin Queue\nQUEUE_NAME = qb\nPRIORITY = 20\nHOSTS = hostA\nEnd Queue\n");
    l->tree.lsb("lsb.hosts", std::string("Begin Host\nHOST_NAME MXJ\ndefault 2\nEnd Host\n") +
                                 (partition ? "Begin HostPartition\nHPART_NAME = part1\nHOSTS = hostA\n"
                                              "USER_SHARES = [alice, 1] [bob, 1]\nEnd HostPartition\n"
                                            : ""));
    l->result = l->tree.load();
    EXPECT_TRUE(l->result.usable());
    return first_of_alice_and_bob(sim::model_cluster(*l->result.config, {0, 1}), "qa", "qb", "qb");
  };
  EXPECT_EQ(first(true), 3);   // bob
  EXPECT_EQ(first(false), 2);  // alice
}

TEST(ShareHistory, DecaysToATenthAfterHistHours) {
  ShareHistory h;
  h.charge("q", "u", {3600, 7200}, 0, 5);
  auto later = h.use("q", "u", 5 * 3600, 5);
  EXPECT_NEAR(later.cpu_s, 360, 1e-6);
  EXPECT_NEAR(later.run_s, 720, 1e-6);
  h.charge("q", "u", {100, 0}, 5 * 3600, 5);
  EXPECT_NEAR(h.use("q", "u", 5 * 3600, 5).cpu_s, 460, 1e-6);
  EXPECT_NEAR(h.use("q", "u", 10 * 3600, 0).cpu_s, 460, 1e-6);  // HIST_HOURS=0: no decay
}

}  // namespace
