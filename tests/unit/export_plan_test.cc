// The export plan of a MultiCluster provider against the examples of
// reference/policies.md §5, with their exact splits.
#include "libsched/mc/export_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace lsf::sched::mc {
namespace {

ProviderHost host(const std::string& name, int slots, const std::string& type = "LINUX") {
  ProviderHost h;
  h.view.name = name;
  h.view.resources["type"] = type;
  h.slots = slots;
  return h;
}

config::HostExport per_host(int slots, std::vector<config::ShareAssignment> distribution) {
  config::HostExport e;
  e.slots = slots;
  e.distribution = std::move(distribution);
  return e;
}

config::HostExport res_select(const std::string& select, int nhosts,
                              std::vector<config::ShareAssignment> distribution) {
  config::HostExport e;
  e.res_select = *config::ResourceRequirement::parse("select[" + select + "]");
  e.nhosts = nhosts;
  e.distribution = std::move(distribution);
  return e;
}

using Grant = std::tuple<std::string, std::string, int>;  // host, cluster, slots

std::vector<Grant> grants(const ExportPlan& plan) {
  std::vector<Grant> out;
  for (const auto& g : plan.hosts) out.emplace_back(g.host, g.cluster, g.slots);
  return out;
}

ExportInput reaching(std::vector<ProviderHost> hosts, std::set<std::string, std::less<>> reachable = {"C1", "C2"}) {
  ExportInput in;
  in.hosts = std::move(hosts);
  in.reachable = std::move(reachable);
  return in;
}

}  // namespace

TEST(ExportPlan, DealFollowsSharesOneUnitAtATime) {
  EXPECT_EQ(deal(2, {1, 1}), (std::vector<int>{1, 1}));
  EXPECT_EQ(deal(3, {1, 1}), (std::vector<int>{2, 1}));  // the odd unit to the first listed
  EXPECT_EQ(deal(3, {2, 1}), (std::vector<int>{2, 1}));
  EXPECT_EQ(deal(4, {0, 3}), (std::vector<int>{0, 4}));
  EXPECT_EQ(deal(5, {}), std::vector<int>{});
}

// PER_HOST=HostA HostB SLOTS=2 DISTRIBUTION=([C1,1] [C2,1]): one slot of each host to
// each cluster.
TEST(ExportPlan, PerHostSlotsAreDealtSlotBySlot) {
  auto in = reaching({host("HostA", 4), host("HostB", 4), host("HostC", 4)});
  in.per_host = {{"HostA", "HostB"}};
  auto plan = plan_exports({per_host(2, {{"C1", 1}, {"C2", 1}})}, {}, in);
  EXPECT_EQ(grants(plan),
            (std::vector<Grant>{{"HostA", "C1", 1}, {"HostA", "C2", 1}, {"HostB", "C1", 1}, {"HostB", "C2", 1}}));
  EXPECT_EQ(plan.exported_slots("HostA"), 2);
  EXPECT_EQ(plan.exported_slots("HostC"), 0);
}

// RES_SELECT with NHOSTS=2 to two clusters: one whole host each.
TEST(ExportPlan, ResSelectGivesWholeHostsOneConsumerEach) {
  auto in = reaching({host("h1", 4), host("h2", 8), host("h3", 4, "AIX")});
  in.per_host = {{}};
  auto plan = plan_exports({res_select("type==LINUX", 2, {{"C1", 1}, {"C2", 1}})}, {}, in);
  EXPECT_EQ(grants(plan), (std::vector<Grant>{{"h1", "C1", 4}, {"h2", "C2", 8}}));
  EXPECT_TRUE(plan.hosts[0].whole_host);
}

// NHOSTS=4 with 3 matching hosts exports 3; the lease grows to 4 when a fourth matches.
TEST(ExportPlan, FewerMatchingHostsExportFewerAndTheExportGrows) {
  auto in = reaching({host("h1", 2), host("h2", 2), host("h3", 2)}, {"C1"});
  in.per_host = {{}};
  const auto exports = std::vector<config::HostExport>{res_select("type==LINUX", 4, {{"C1", 1}})};
  EXPECT_EQ(plan_exports(exports, {}, in).hosts.size(), 3u);
  in.hosts.push_back(host("h4", 2));
  EXPECT_EQ(plan_exports(exports, {}, in).hosts.size(), 4u);
  in.hosts.push_back(host("h5", 2));
  EXPECT_EQ(plan_exports(exports, {}, in).hosts.size(), 4u);
}

// Chosen again, hosts that run a consumer's jobs stay with it.
TEST(ExportPlan, HostsRunningConsumerJobsAreKept) {
  auto in = reaching({host("h1", 2), host("h2", 2), host("h3", 2)});
  in.per_host = {{}};
  in.hosts[2].consumer_slots["C2"] = 1;
  auto plan = plan_exports({res_select("type==LINUX", 2, {{"C1", 1}, {"C2", 1}})}, {}, in);
  EXPECT_EQ(grants(plan), (std::vector<Grant>{{"h1", "C1", 2}, {"h3", "C2", 2}}));
}

// DLINUX hosts need SWP in the export; hosts the provider cannot see are not exported;
// a host goes to the first HostExport that takes it.
TEST(ExportPlan, DlinuxWithoutSwpUnavailableAndTakenHostsAreLeftOut) {
  auto in = reaching({host("d1", 2, "DLINUX"), host("h2", 2), host("h3", 2), host("h4", 2)});
  in.hosts[2].view.status = HostStatus::kUnavail;
  in.per_host = {{"h4"}, {}};
  const std::vector<config::ShareAssignment> c1 = {{"C1", 1}};
  auto plan = plan_exports({per_host(1, c1), res_select("type==LINUX || type==DLINUX", 9, c1)}, {}, in);
  EXPECT_EQ(grants(plan), (std::vector<Grant>{{"h4", "C1", 1}, {"h2", "C1", 2}}));
  auto with_swp = res_select("type==LINUX || type==DLINUX", 9, c1);
  with_swp.swp_mb = 512;
  plan = plan_exports({per_host(1, c1), with_swp}, {}, in);
  EXPECT_EQ(grants(plan), (std::vector<Grant>{{"h4", "C1", 1}, {"d1", "C1", 2}, {"h2", "C1", 2}}));
  EXPECT_EQ(plan.hosts[1].swp_mb, 512);
}

// A shared resource goes only to consumers that receive a host holding it, and no more
// instances than are available.
TEST(ExportPlan, SharedResourcesOnlyWithHostsAndOnlyWhatIsAvailable) {
  auto in = reaching({host("h1", 2), host("h2", 2)});
  in.per_host = {{"h1"}};
  in.available_instances["lic"] = 3;
  in.resource_hosts["lic"] = {"h1"};
  config::SharedResourceExport lic;
  lic.name = "lic";
  lic.ninstances = 5;
  lic.distribution = {{"C1", 1}, {"C2", 1}};
  auto plan = plan_exports({per_host(1, {{"C1", 1}})}, {lic}, in);
  ASSERT_EQ(plan.resources.size(), 1u);
  EXPECT_EQ(plan.resources[0].cluster, "C1");
  EXPECT_EQ(plan.resources[0].instances, 3);
  in.per_host = {{"h2"}};
  EXPECT_TRUE(plan_exports({per_host(1, {{"C1", 1}})}, {lic}, in).resources.empty());  // h2 does not hold it
}

// The provider keeps what it cannot hand over.
TEST(ExportPlan, AnUnreachableConsumersPartStaysWithTheProvider) {
  auto in = reaching({host("HostA", 4)}, {"C1"});
  in.per_host = {{"HostA"}};
  auto plan = plan_exports({per_host(2, {{"C1", 1}, {"C2", 1}})}, {}, in);
  ASSERT_EQ(plan.hosts.size(), 2u);
  EXPECT_TRUE(plan.hosts[0].reachable);
  EXPECT_FALSE(plan.hosts[1].reachable);
  EXPECT_EQ(plan.exported_slots("HostA"), 1);
}

}  // namespace lsf::sched::mc
