// MultiCluster in the pass: which queues take a borrowed host (allremote, all@cluster,
// host@cluster; never a queue that names only this cluster's hosts or none), the slots
// leased on it, and the slots a provider has lent away from its own host.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "libsched/pass.h"
#include "libsched/pending_reason.h"
#include "one_host_cluster.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

const char* kQueues =
    "Begin Queue\nQUEUE_NAME = local\nPRIORITY = 10\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = remote\nPRIORITY = 20\nHOSTS = allremote\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = named\nPRIORITY = 30\nHOSTS = hostB@remote1\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = whole\nPRIORITY = 40\nHOSTS = all@remote1\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = localfirst\nPRIORITY = 50\nHOSTS = all+1 allremote\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = remotefirst\nPRIORITY = 60\nHOSTS = all allremote+1 hostB@remote1+2\nEnd Queue\n"
    "Begin Queue\nQUEUE_NAME = grouped\nPRIORITY = 70\nHOSTS = remotehosts\nEnd Queue\n";

// Host groups may hold allremote (never a borrowed host by name).
std::string hosts_file(int slots) {
  return "Begin Host\nHOST_NAME MXJ\nhost1 " + std::to_string(slots) +
         "\nEnd Host\n"
         "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nremotehosts (allremote)\nEnd HostGroup\n";
}

HostView borrowed(const std::string& name, int slots) {
  HostView h;
  h.name = name + "@remote1";
  h.cluster = "remote1";
  h.leased_slots = slots;
  h.ncpus = slots;
  return h;
}

JobView pending(std::int64_t id, int queue, int slots = 1) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.queue = queue;
  j.user = "alice";
  j.min_slots = j.max_slots = slots;
  return j;
}

// host1 (2 slots) of this cluster, and hostA and hostB borrowed from remote1.
std::unique_ptr<lsf::testing::OneHostCluster> cluster() {
  auto c = lsf::testing::one_host_cluster(2, {{"lsb.queues", kQueues}, {"lsb.hosts", hosts_file(2)}});
  c->view.hosts.push_back(borrowed("hostA", 1));
  c->view.hosts.push_back(borrowed("hostB", 2));
  c->view.accel.host_table = nullptr;  // the hosts changed
  return c;
}

std::vector<std::string> hosts_of(const PassResult& r, std::int64_t id) {
  for (const auto& d : r.dispatches)
    if (d.job.id == id) return d.hosts;
  return {};
}

int queue(const lsf::testing::OneHostCluster& c, const std::string& name) { return c.view.policy->queue_index(name); }

}  // namespace

TEST(BorrowedHosts, OnlyQueuesThatNameThemTakeThem) {
  auto c = cluster();
  // A queue with no HOSTS means every host of this cluster: 3 slots asked, 2 there.
  c->view.pending.push_back(pending(1, queue(*c, "local"), 3));
  c->view.pending.push_back(pending(2, queue(*c, "named"), 2));
  auto r = schedule(c->view, 0);
  EXPECT_TRUE(hosts_of(r, 1).empty());
  EXPECT_EQ(hosts_of(r, 2), (std::vector<std::string>{"hostB@remote1", "hostB@remote1"}));
}

TEST(BorrowedHosts, AllremoteTakesOnlyBorrowedHostsUpToTheirLeasedSlots) {
  auto c = cluster();
  for (int id = 1; id <= 4; ++id) c->view.pending.push_back(pending(id, queue(*c, "remote")));
  auto r = schedule(c->view, 0);
  std::map<std::string, int> per_host;
  for (const auto& d : r.dispatches)
    for (const auto& h : d.hosts) ++per_host[h];
  EXPECT_EQ(per_host, (std::map<std::string, int>{{"hostA@remote1", 1}, {"hostB@remote1", 2}}));
}

TEST(BorrowedHosts, AllAtClusterTakesEveryHostOfThatCluster) {
  auto c = cluster();
  c->view.pending.push_back(pending(1, queue(*c, "whole"), 3));
  c->view.pending.push_back(pending(2, queue(*c, "named"), 3));  // hostB@remote1 alone has 2
  auto r = schedule(c->view, 0);
  auto hosts = hosts_of(r, 1);
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"hostA@remote1", "hostB@remote1", "hostB@remote1"}));
  EXPECT_TRUE(hosts_of(r, 2).empty());
}

TEST(BorrowedHosts, LentSlotsAreNotTheProvidersToUse) {
  auto c = lsf::testing::one_host_cluster(4, {{"lsb.queues", kQueues}, {"lsb.hosts", hosts_file(4)}});
  c->view.hosts[0].lent_slots = 3;  // a consumer holds a lease of 3 of host1's 4 slots
  for (int id = 1; id <= 3; ++id) c->view.pending.push_back(pending(id, queue(*c, "local")));
  auto r = schedule(c->view, 0);
  EXPECT_EQ(r.dispatches.size(), 1u);
}

// `all+1 allremote`: this cluster's hosts first, however loaded, then borrowed ones.
TEST(BorrowedHosts, QueuePreferenceTakesLocalHostsFirst) {
  auto c = cluster();
  c->view.hosts[0].resources["r15s"] = 3.0;
  for (size_t h = 1; h < c->view.hosts.size(); ++h) c->view.hosts[h].resources["r15s"] = 0.0;
  for (int id = 1; id <= 3; ++id) c->view.pending.push_back(pending(id, queue(*c, "localfirst")));
  auto r = schedule(c->view, 0);
  EXPECT_EQ(hosts_of(r, 1), (std::vector<std::string>{"host1"}));
  EXPECT_EQ(hosts_of(r, 2), (std::vector<std::string>{"host1"}));
  EXPECT_EQ(hosts_of(r, 3).size(), 1u);
  EXPECT_NE(hosts_of(r, 3), (std::vector<std::string>{"host1"}));
}

// `all allremote+1 hostB@remote1+2`: hostB@remote1, then the other borrowed host, then
// this cluster's.
TEST(BorrowedHosts, QueuePreferenceRanksBorrowedHostsByLevel) {
  auto c = cluster();
  for (int id = 1; id <= 4; ++id) c->view.pending.push_back(pending(id, queue(*c, "remotefirst")));
  auto r = schedule(c->view, 0);
  EXPECT_EQ(hosts_of(r, 1), (std::vector<std::string>{"hostB@remote1"}));
  EXPECT_EQ(hosts_of(r, 2), (std::vector<std::string>{"hostB@remote1"}));
  EXPECT_EQ(hosts_of(r, 3), (std::vector<std::string>{"hostA@remote1"}));
  EXPECT_EQ(hosts_of(r, 4), (std::vector<std::string>{"host1"}));
}

TEST(BorrowedHosts, AHostGroupWithAllremoteTakesBorrowedHosts) {
  auto c = cluster();
  c->view.pending.push_back(pending(1, queue(*c, "grouped"), 3));
  c->view.pending.push_back(pending(2, queue(*c, "grouped")));
  auto r = schedule(c->view, 0);
  auto hosts = hosts_of(r, 1);
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"hostA@remote1", "hostB@remote1", "hostB@remote1"}));
  EXPECT_TRUE(hosts_of(r, 2).empty());  // the group holds no host of this cluster
}

// A provider with RECV_FROM=N for this cluster: a parallel job goes wholly on its hosts
// or wholly elsewhere, and waits, saying why, when only both together would hold it.
TEST(BorrowedHosts, AProviderRefusingSpanningJobsGetsAllOfAJobOrNone) {
  auto spanning = cluster();
  spanning->view.pending.push_back(pending(1, queue(*spanning, "localfirst"), 4));
  EXPECT_EQ(hosts_of(schedule(spanning->view, 0), 1).size(), 4u);  // host1 twice, then remote1

  auto c = cluster();
  for (auto& h : c->view.hosts)
    if (!h.cluster.empty()) h.spans_clusters = false;
  c->view.pending.push_back(pending(1, queue(*c, "localfirst"), 4));
  c->view.pending.push_back(pending(2, queue(*c, "localfirst"), 3));
  auto r = schedule(c->view, 0);
  EXPECT_TRUE(hosts_of(r, 1).empty());
  auto hosts = hosts_of(r, 2);
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"hostA@remote1", "hostB@remote1", "hostB@remote1"}));
  std::string why;
  for (const auto& p : r.reasons)
    if (p.job.id == 1 && p.text) why = *p.text;
  EXPECT_EQ(why, reason::kOneCluster);
}
