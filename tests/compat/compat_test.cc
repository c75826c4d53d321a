// Configuration files written for other LSF-compatible systems must parse unchanged:
// warnings are allowed, errors are not. One test per folder of ../shared/compat.
#include <filesystem>

#include <gtest/gtest.h>

#include "libconfig/config_loader.h"

namespace fs = std::filesystem;
using namespace lsf::config;

namespace {

fs::path compat_dir() {
  if (const char* env = std::getenv("LSFSCHED_COMPAT_DIR")) return env;
  return fs::path(LSFSCHED_SOURCE_DIR) / ".." / "shared" / "compat";
}

std::optional<fs::path> present(const fs::path& p) {
  if (fs::exists(p)) return p;
  return std::nullopt;
}

// The files of one corpus folder; `suffix` is ".in" for autoconf templates.
ConfigFiles files_in(const fs::path& d, const std::string& cluster_file, const std::string& suffix) {
  ConfigFiles f;
  f.lsf_conf = present(d / ("lsf.conf" + suffix));
  f.lsf_shared = present(d / ("lsf.shared" + suffix));
  f.lsf_cluster = present(d / cluster_file);
  f.lsf_task = present(d / ("lsf.task" + suffix));
  f.lsb_params = present(d / ("lsb.params" + suffix));
  f.lsb_queues = present(d / ("lsb.queues" + suffix));
  f.lsb_hosts = present(d / ("lsb.hosts" + suffix));
  f.lsb_users = present(d / ("lsb.users" + suffix));
  return f;
}

// Every diagnostic, so a failure shows what the parser said.
std::string all(const LoadResult& r) { return r.diagnostics.to_string(); }

}  // namespace

TEST(Compat, OpenLava10ParsesWithoutErrors) {
  fs::path d = compat_dir() / "openlava-1.0";
  if (!fs::exists(d)) GTEST_SKIP() << "no " << d << " (the shared/ corpus sits beside the repository)";
  LoadResult r = load_config_files(files_in(d, "lsf.cluster.openlava", ""), WeekInstant{3, 12, 0});
  ASSERT_TRUE(r.config);
  EXPECT_EQ(r.diagnostics.error_count(), 0) << all(r);

  const ClusterConfig& c = *r.config;
  EXPECT_EQ(c.cluster_name, "openlava");
  ASSERT_EQ(c.hosts.size(), 1u);
  EXPECT_EQ(c.hosts[0].name, "__HOSTNAME__");
  EXPECT_EQ(c.hosts[0].model, "IntelI5");
  EXPECT_EQ(c.hosts[0].busy_thresholds.at("r1m").sched, 3.5);
  ASSERT_EQ(c.host_models.size(), 1u);
  EXPECT_EQ(c.host_models[0].architectures, std::vector<std::string>{"x86_64"});
  EXPECT_EQ(c.resources.size(), 2u);
  EXPECT_EQ(c.resources[1].description, "Compute server");
  EXPECT_EQ(c.cluster_admins, std::vector<std::string>{"openlava"});
  EXPECT_EQ(c.params.mbd_sleep_time, 10);
  EXPECT_EQ(c.params.default_queues, std::vector<std::string>{"normal"});
  EXPECT_EQ(*c.lsf_conf.mbd_port, 6324);
  EXPECT_EQ(c.lsf_conf.values.at("LSB_MAILTO"), "!U");  // the leading-space line

  // Six uncommented queues, with the traps of the file.
  ASSERT_EQ(c.queues.size(), 6u);
  const Queue* normal = c.find_queue("normal");
  ASSERT_TRUE(normal);
  EXPECT_EQ(normal->priority, 30);
  EXPECT_EQ(normal->description, "For normal low priority jobs, running only if hosts are lightly loaded.");
  const Queue* owners = c.find_queue("owners");
  ASSERT_TRUE(owners);
  EXPECT_EQ(owners->ujob_limit, 6);
  EXPECT_EQ(owners->thresholds.at("swp"), (LoadThreshold{4, 1}));
  const Queue* short_q = c.find_queue("short");
  ASSERT_TRUE(short_q);
  EXPECT_EQ(short_q->thresholds.at("r1m"), (LoadThreshold{0.9, std::nullopt}));  // `0.9/`
  EXPECT_EQ(short_q->cpu_limit->maximum.minutes, 15);
  const Queue* chk = c.find_queue("chkpnt_rerun_queue");
  ASSERT_TRUE(chk);
  EXPECT_TRUE(chk->rerunnable);

  ASSERT_EQ(c.batch_hosts.size(), 1u);
  EXPECT_EQ(c.batch_hosts[0].name, "default");
  EXPECT_TRUE(c.batch_hosts[0].mxj_is_ncpus);  // MXJ = !
}

TEST(Compat, Volclava22TemplatesParseWithoutErrors) {
  fs::path d = compat_dir() / "volclava-2.2";
  if (!fs::exists(d)) GTEST_SKIP() << "no " << d;
  LoadResult r = load_config_files(files_in(d, "lsf.cluster.in", ".in"), WeekInstant{3, 12, 0});
  ASSERT_TRUE(r.config);
  EXPECT_EQ(r.diagnostics.error_count(), 0) << all(r);

  const ClusterConfig& c = *r.config;
  EXPECT_EQ(c.cluster_name, "@volclavacluster@");  // placeholders are ordinary tokens
  EXPECT_EQ(c.cluster_admins, std::vector<std::string>{"@volclavaadmin@"});
  EXPECT_EQ(c.lsf_conf.values.at("LSF_SERVERDIR"), "@prefix@/sbin");
  EXPECT_EQ(c.params.job_accept_interval, 0);
  ASSERT_EQ(c.queues.size(), 1u);  // every other queue is commented out
  EXPECT_EQ(c.queues[0].name, "normal");
  EXPECT_TRUE(c.hosts.empty());
}

// Every folder of the corpus is covered by a test above.
TEST(Compat, EveryFolderIsCovered) {
  fs::path d = compat_dir();
  if (!fs::exists(d)) GTEST_SKIP() << "no " << d;
  for (const auto& entry : fs::directory_iterator(d)) {
    if (!entry.is_directory()) continue;
    std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "openlava-1.0" || name == "volclava-2.2")
        << "new compat folder " << name << " has no test in tests/compat/compat_test.cc";
  }
}
