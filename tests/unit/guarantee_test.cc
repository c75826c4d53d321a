// Guarantee pools (schmod_guarantee): the worked examples of reference/policies.md §3,
// host membership, what owners, borrowers and everyone else may take, and the bound a
// loan puts on an owner's wait.
#include <gtest/gtest.h>

#include <algorithm>

#include "config_tree.h"
#include "libsched/pass.h"
#include "libsched/sim/cluster_model.h"
#include "libsched/sim/simulator.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

// A cluster of hosts host1..hostN (MXJ as given), the pools and service classes given.
struct Cluster {
  lsf::testing::ConfigTree tree;
  config::LoadResult loaded;
  ClusterView view;
};

std::unique_ptr<Cluster> cluster(const std::vector<int>& mxj, const std::string& pools,
                                 const std::string& queues = "") {
  auto c = std::make_unique<Cluster>();
  std::string hosts, rows;
  for (size_t i = 0; i < mxj.size(); ++i) {
    std::string name = "host" + std::to_string(i + 1);
    hosts += name + " Generic LINUX64 1 ()\n";
    rows += name + " " + std::to_string(mxj[i]) + "\n";
  }
  c->tree.write("conf/lsf.cluster.test",
                "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
                "Begin Host\nHOSTNAME model type server RESOURCES\n" +
                    hosts + "End Host\n");
  c->tree.lsb("lsb.hosts", "Begin Host\nHOST_NAME MXJ\n" + rows + "End Host\n");
  c->tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters\n");
  c->tree.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n" + queues);
  c->tree.lsb("lsb.resources", pools);
  std::string classes;
  for (const char* sc : {"sc1", "sc2", "sc3"})
    classes += std::string("Begin ServiceClass\nNAME = ") + sc + "\nGOALS = [GUARANTEE]\nEnd ServiceClass\n";
  c->tree.lsb("lsb.serviceclasses", classes);
  c->loaded = c->tree.load();
  EXPECT_TRUE(c->loaded.usable()) << lsf::testing::errors_of(c->loaded);
  c->view = sim::model_cluster(*c->loaded.config, {0, 1});
  return c;
}

void memory(ClusterView& v, int host, double maxmem, double mem) {
  v.hosts[static_cast<size_t>(host)].resources["maxmem"] = maxmem;
  v.hosts[static_cast<size_t>(host)].resources["mem"] = mem;
}

JobView pending(std::int64_t id, int slots, const std::string& sla = "", std::int64_t run_limit = 0, int queue = 0) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = "alice";
  j.min_slots = j.max_slots = slots;
  j.sla = sla;
  j.run_limit_s = run_limit;
  j.queue = queue;
  return j;
}

RunningJobView running(std::int64_t id, const std::vector<std::string>& hosts, const std::string& sla = "") {
  RunningJobView r;
  r.key = {id, 0};
  r.user = "bob";
  r.hosts = hosts;
  r.sla = sla;
  return r;
}

std::vector<std::int64_t> started(const PassResult& r) {
  std::vector<std::int64_t> ids;
  for (const auto& d : r.dispatches) ids.push_back(d.job.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// policies.md §3: 5 free slots and 5 GB free memory, packages of 2 slots + 2 GB -> 2
// packages available. The host (8 slots, 16 GB) holds 4 in all.
TEST(Guarantee, FreeSlotsAndMemoryMakeTwoPackages) {
  auto c = cluster({8},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = package[slots=2:mem=2000]\nHOSTS = host1\n"
                   "DISTRIBUTION = [sc1, 1]\nEnd GuaranteedResourcePool\n");
  memory(c->view, 0, 16000, 5000);
  c->view.running.push_back(running(1, {"host1", "host1", "host1"}));
  auto r = schedule(c->view, 0);
  ASSERT_EQ(r.guarantees.size(), 1u);
  EXPECT_EQ(r.guarantees[0].total, 4);
  EXPECT_EQ(r.guarantees[0].free, 2);
  EXPECT_FALSE(r.guarantees[0].overcommitted);
}

// The example_pool of policies.md §3 on four hosts of different sizes: host3 has too
// little memory for RES_SELECT; the others hold min(MXJ, maxmem / 1000) packages:
// 8 + 16 + 20 = 44; 25/25/30 % of 44 rounded down = 11, 11, 13. Guarantees of
// 50/30/30 % (22 + 13 + 13 = 48) pass the total: overcommitted.
TEST(Guarantee, ExamplePoolTotalsAndShares) {
  auto run = [](const std::string& distribution) {
    auto c = cluster({8, 16, 4, 32},
                     "Begin GuaranteedResourcePool\nNAME = example_pool\nTYPE = package[slots=1:mem=1000]\n"
                     "HOSTS = host1 host2 host3 host4\nRES_SELECT = mem > 16000\nDISTRIBUTION = (" +
                         distribution + ")\nEnd GuaranteedResourcePool\n");
    memory(c->view, 0, 32000, 30000);
    memory(c->view, 1, 64000, 60000);
    memory(c->view, 2, 8000, 7000);
    memory(c->view, 3, 20000, 17000);
    return schedule(c->view, 0).guarantees.at(0);
  };
  auto g = run("[sc1, 25%] [sc2, 25%] [sc3, 30%]");
  EXPECT_EQ(g.total, 44);
  ASSERT_EQ(g.owners.size(), 3u);
  EXPECT_EQ(g.owners[0].guaranteed, 11);
  EXPECT_EQ(g.owners[1].guaranteed, 11);
  EXPECT_EQ(g.owners[2].guaranteed, 13);
  EXPECT_FALSE(g.overcommitted);
  ASSERT_EQ(g.hosts.size(), 3u);  // host3 is not a member
  EXPECT_EQ(g.hosts[1].name, "host2");
  EXPECT_EQ(g.hosts[1].total, 16);
  EXPECT_TRUE(run("[sc1, 50%] [sc2, 30%] [sc3, 30%]").overcommitted);
}

// Two pools over host1 and host2: both hosts go to the first (configuration order).
// When host2 becomes unavailable it leaves the total, and sc1's job on it leaves the
// count.
TEST(Guarantee, FirstPoolTakesAHostAndUnavailableHostsLeave) {
  auto c = cluster({4, 4},
                   "Begin GuaranteedResourcePool\nNAME = first\nTYPE = slots\nHOSTS = host1 host2\n"
                   "DISTRIBUTION = [sc1, 4]\nEnd GuaranteedResourcePool\n"
                   "Begin GuaranteedResourcePool\nNAME = second\nTYPE = slots\nHOSTS = host2\n"
                   "DISTRIBUTION = [sc2, 2]\nEnd GuaranteedResourcePool\n");
  c->view.running.push_back(running(1, {"host2", "host2"}, "sc1"));
  auto r = schedule(c->view, 0);
  ASSERT_EQ(r.guarantees.size(), 2u);
  EXPECT_EQ(r.guarantees[0].total, 8);
  EXPECT_EQ(r.guarantees[0].owners[0].used, 2);
  EXPECT_EQ(r.guarantees[1].total, 0);
  EXPECT_TRUE(r.guarantees[1].hosts.empty());
  c->view.hosts[1].status = HostStatus::kUnavail;
  r = schedule(c->view, 0);
  EXPECT_EQ(r.guarantees[0].total, 4);
  EXPECT_EQ(r.guarantees[0].owners[0].used, 0);
}

// A pool of 4 slots, 2 guaranteed to sc1: others may take the 2 not held back, never
// more (the 3-slot job, and the 1-slot job once 2 are taken, wait); sc1 takes its own
// 2 on top.
TEST(Guarantee, OthersTakeOnlyWhatIsNotHeldBack) {
  auto c = cluster({4},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = slots\nHOSTS = host1\n"
                   "DISTRIBUTION = [sc1, 2]\nEnd GuaranteedResourcePool\n");
  c->view.pending = {pending(1, 3), pending(2, 2), pending(3, 1), pending(4, 2, "sc1")};
  auto r = schedule(c->view, 0);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{2, 4}));
  // bresources -g -l: sc1 uses 2 slots; the other 2 are within the unguaranteed part.
  const auto& g = r.guarantees.at(0);
  EXPECT_EQ(g.owner_use.slots, 2);
  EXPECT_EQ(g.other_use.slots, 2);
  EXPECT_EQ(g.loan_use.slots, 0);
  for (const auto& why : r.reasons) {
    if (why.job.id == 3) {
      EXPECT_EQ(*why.text, "Resources reserved for service class guarantees: 1 host");
    }
  }
}

// Past its guarantee a class competes like any other job: sc1 already runs its 2, so its
// next job may take only what is not held back, and sc2's 2 are held: it waits, sc2's
// job starts.
TEST(Guarantee, PastItsGuaranteeAClassCompetesLikeOthers) {
  auto c = cluster({4},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = slots\nHOSTS = host1\n"
                   "DISTRIBUTION = [sc1, 2] [sc2, 2]\nEnd GuaranteedResourcePool\n");
  c->view.running.push_back(running(1, {"host1", "host1"}, "sc1"));
  c->view.pending = {pending(2, 1, "sc1"), pending(3, 1, "sc2"), pending(4, 1)};
  auto r = schedule(c->view, 0);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(r.guarantees.at(0).owners.at(0).used, 2);
  EXPECT_EQ(r.guarantees.at(0).owners.at(1).used, 1);
}

// A hosts pool counts whole free hosts: of three, 2 are held for sc1, so one plain job
// takes a free host, a second shares that host, a third waits; sc1's job takes a host.
TEST(Guarantee, HostsPoolLendsWholeHosts) {
  auto c = cluster({2, 2, 2},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = hosts\n"
                   "HOSTS = host1 host2 host3\nDISTRIBUTION = [sc1, 2]\nEnd GuaranteedResourcePool\n");
  c->view.pending = {pending(1, 1), pending(2, 1), pending(3, 1), pending(4, 1, "sc1")};
  auto r = schedule(c->view, 0);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{1, 2, 4}));
  EXPECT_EQ(r.dispatches[0].hosts, r.dispatches[1].hosts);  // 1 and 2 share a host
  EXPECT_EQ(r.guarantees.at(0).total, 3);
  EXPECT_EQ(r.guarantees.at(0).free, 1);
}

// LOAN_POLICIES = QUEUES[short] DURATION[10]: all 4 slots guaranteed to sc1, none used.
// A short job of 5 minutes borrows; one of an hour, one without a run limit and one of
// another queue do not. With CLOSE_ON_DEMAND and an sc1 job pending, nothing is lent.
TEST(Guarantee, LoansFollowTheLoanPolicies) {
  auto run = [](const std::string& close, bool owner_waits) {
    auto c = cluster({4},
                     "Begin GuaranteedResourcePool\nNAME = p\nTYPE = slots\nHOSTS = host1\n"
                     "DISTRIBUTION = [sc1, 4]\nLOAN_POLICIES = QUEUES[short] DURATION[10] " +
                         close + "\nEnd GuaranteedResourcePool\n",
                     "Begin Queue\nQUEUE_NAME = short\nPRIORITY = 40\nEnd Queue\n");
    int short_q = c->view.policy->queue_index("short");
    c->view.pending = {pending(1, 1, "", 300, short_q), pending(2, 1, "", 3600, short_q), pending(3, 1, "", 0, short_q),
                       pending(4, 1, "", 300, 0)};
    if (owner_waits) c->view.pending.push_back(pending(5, 5, "sc1"));  // 5 slots never fit: it waits
    return started(schedule(c->view, 0));
  };
  EXPECT_EQ(run("", false), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(run("CLOSE_ON_DEMAND", false), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(run("CLOSE_ON_DEMAND", true), (std::vector<std::int64_t>{}));
  EXPECT_EQ(run("", true), (std::vector<std::int64_t>{1}));
}

// An owner never waits longer than a loaned job's run limit: four 10-minute loans fill
// the pool at 0; sc1's 4-slot job, submitted at 60, starts when they end, at 600. A
// fifth short job without a run limit may not borrow: it would keep a slot for 10,000 s.
TEST(Guarantee, OwnerWaitsAtMostTheLoanedJobsRunLimit) {
  auto c = cluster({4},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = slots\nHOSTS = host1\n"
                   "DISTRIBUTION = [sc1, 4]\nLOAN_POLICIES = QUEUES[short] DURATION[10]\n"
                   "End GuaranteedResourcePool\n",
                   "Begin Queue\nQUEUE_NAME = short\nPRIORITY = 40\nEnd Queue\n");
  std::vector<sim::Job> jobs;
  for (int i = 1; i <= 4; ++i) {
    sim::Job j;
    j.id = i;
    j.runtime = j.run_limit = 600;
    j.queue = c->view.policy->queue_index("short");
    jobs.push_back(j);
  }
  sim::Job endless;
  endless.id = 6;
  endless.runtime = 10000;
  endless.queue = c->view.policy->queue_index("short");
  jobs.push_back(endless);
  sim::Job owner;
  owner.id = 5;
  owner.submit = 60;
  owner.runtime = 100;
  owner.procs = 4;
  owner.sla = "sc1";
  jobs.push_back(owner);
  auto result = sim::simulate(c->view, jobs);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(result.jobs[static_cast<size_t>(i)].start, 0);
  EXPECT_EQ(result.jobs[5].start, 600);  // the owner
  EXPECT_EQ(result.jobs[4].start, -1);   // never lent anything
}

// package[slots=2]: an sc1 job of 3 slots is not a whole number of packages.
TEST(Guarantee, JobsTakeWholePackages) {
  auto c = cluster({8},
                   "Begin GuaranteedResourcePool\nNAME = p\nTYPE = package[slots=2]\nHOSTS = host1\n"
                   "DISTRIBUTION = [sc1, 2]\nEnd GuaranteedResourcePool\n");
  c->view.pending = {pending(1, 3, "sc1"), pending(2, 4, "sc1")};
  auto r = schedule(c->view, 0);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{2}));
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_EQ(*r.reasons[0].text,
            "The job's slots (3) are not a whole number of packages of 2 slots in guarantee pool <p>");
}

}  // namespace
