// Every folder of conf-examples/ is a configuration an admin can start from: it must
// load through LSF_ENVDIR with no error, and carry the numbers the docs promise.
#include <filesystem>

#include <gtest/gtest.h>

#include "libconfig/config_loader.h"
#include "libconfig/failover_params.h"

namespace fs = std::filesystem;
using namespace lsf::config;

namespace {

LoadResult load_example(const std::string& name) {
  LoadOptions o;
  o.envdir = fs::path(LSFSCHED_SOURCE_DIR) / "conf-examples" / name / "conf";
  o.now = {3, 12, 0};
  return load_cluster_config(o);
}

}  // namespace

TEST(ConfExamples, EveryFolderLoadsWithoutErrors) {
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LSFSCHED_SOURCE_DIR) / "conf-examples")) {
    if (entry.path().filename() != "lsf.conf") continue;
    auto rel = fs::relative(entry.path().parent_path().parent_path(), fs::path(LSFSCHED_SOURCE_DIR) / "conf-examples");
    LoadResult r = load_example(rel.string());
    EXPECT_TRUE(r.usable()) << rel << ":\n" << r.diagnostics.to_string();
    ++checked;
  }
  EXPECT_EQ(checked,
            9);  // quickstart, queue-fairshare, package-guarantee, maui-throttle, multicluster/{provider,consumer},
                 // bsim, bsim-plan, failover
}

TEST(ConfExamples, FailoverHasThreeMasterCandidatesWithTheDefaultTiming) {
  auto r = load_example("failover");
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  EXPECT_EQ(master_candidates(*r.config), (std::vector<std::string>{"hostA", "hostB", "hostC"}));
  EXPECT_EQ(failover_timing(*r.config).takeover_after(1), std::chrono::seconds(3));
}

TEST(ConfExamples, QuickstartHasThreeHostsAndANightQueueWithARunWindow) {
  auto r = load_example("quickstart");
  ASSERT_TRUE(r.usable());
  EXPECT_EQ(r.config->hosts.size(), 3u);
  for (const char* q : {"normal", "short", "night"}) EXPECT_TRUE(r.config->find_queue(q)) << q;
  const Queue* night = r.config->find_queue("night");
  EXPECT_FALSE(night->run_window.is_open({3, 12, 0}));
  EXPECT_TRUE(night->run_window.is_open({3, 23, 0}));
}

TEST(ConfExamples, QueueFairsharePools) {
  auto r = load_example("queue-fairshare");
  ASSERT_TRUE(r.usable());
  const auto& c = *r.config;
  EXPECT_EQ(c.find_queue("queue1")->slot_share, 50);
  EXPECT_EQ(c.find_queue("queue2")->slot_share, 30);
  EXPECT_EQ(c.find_queue("queue3")->slot_share, 20);
  EXPECT_TRUE(c.find_queue("queue4")->slot_pool.empty());
  EXPECT_EQ(c.find_queue("queue6")->slot_pool, "poolB");
  int slots = 0;
  for (const auto& h : c.batch_hosts)
    if (h.name == "hostA" || h.name == "hostB") slots += *h.mxj;
  EXPECT_EQ(slots, 12);  // 2 hosts x MXJ 6
}

TEST(ConfExamples, PackageGuaranteePool) {
  auto r = load_example("package-guarantee");
  ASSERT_TRUE(r.usable());
  const GuaranteePool& p = r.config->guarantee_pools.at(0);
  EXPECT_EQ(p.name, "example_pool");
  EXPECT_EQ(p.type.package_slots, 1);
  EXPECT_EQ(p.type.package_mem_mb, 1000);
  EXPECT_EQ(format_shares(p.distribution), "[sc1, 25%] [sc2, 25%] [sc3, 30%]");
  EXPECT_EQ(p.res_select->select.to_string(), "mem>16000");
}

TEST(ConfExamples, MulticlusterExportsAndBorrowedHosts) {
  auto provider = load_example("multicluster/provider");
  ASSERT_TRUE(provider.usable());
  ASSERT_EQ(provider.config->host_exports.size(), 3u);
  EXPECT_TRUE(provider.config->host_exports[2].shared);
  EXPECT_EQ(provider.config->shared_resource_exports.at(0).ninstances, 2);
  auto consumer = load_example("multicluster/consumer");
  ASSERT_TRUE(consumer.usable());
  EXPECT_EQ(format_host_list(consumer.config->find_queue("normal")->hosts), "all+1 allremote");
  EXPECT_EQ(consumer.config->find_queue("borrowed")->hosts.at(0).cluster, "provider");
}

TEST(ConfExamples, MauiThrottleStatesTheSitePolicy) {
  auto r = load_example("maui-throttle");
  ASSERT_TRUE(r.usable());
  ASSERT_EQ(r.config->limits.size(), 3u);
  const Limit& u = r.config->limits[0];
  EXPECT_TRUE(u.per_user);
  EXPECT_EQ(u.idle_jobs, 8);
  EXPECT_EQ(u.total_jobs, 72);
  EXPECT_EQ(u.proc_seconds_soft, 72000);
  EXPECT_EQ(u.proc_seconds_hard, 1080000);
  EXPECT_EQ(r.config->limits[1].idle_jobs, 30);
  EXPECT_EQ(r.config->limits[2].proc_seconds_hard, 3 * *r.config->limits[2].proc_seconds_soft);
  const Queue* q = r.config->find_queue("batch");
  ASSERT_TRUE(q && q->run_limit);
  EXPECT_EQ(q->run_limit->maximum.minutes, 5 * 24 * 60);
}
