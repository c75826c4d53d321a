// Master candidates and takeover timing from the configuration
// (libconfig/failover_params.h), as an LSF administrator writes them.
#include <gtest/gtest.h>

#include "libconfig/failover_params.h"
#include "tests/unit/config_tree.h"

using namespace lsf;
using namespace std::chrono_literals;

namespace {

const char* kCluster =
    "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
    "Begin Parameters\n%s\nEnd Parameters\n"
    "Begin Host\nHOSTNAME model type server RESOURCES\n"
    "hostA Generic LINUX64 1 ()\nclient1 Generic LINUX64 0 ()\nhostB Generic LINUX64 1 ()\nEnd Host\n";

std::string cluster_with(const std::string& params) {
  std::string text = kCluster;
  text.replace(text.find("%s"), 2, params);
  return text;
}

}  // namespace

TEST(FailoverParams, CandidatesAreTheMasterListElseTheServerHostsInOrder) {
  lsf::testing::ConfigTree t;
  t.write("conf/lsf.cluster.test", cluster_with("EXINTERVAL = 2"));
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  EXPECT_EQ(config::master_candidates(*r.config), (std::vector<std::string>{"hostA", "hostB"}));

  t.write("conf/lsf.conf", "LSF_CONFDIR=.\nLSB_CONFDIR=lsbatch\nLSF_MASTER_LIST=\"hostB hostA\"\n");
  auto listed = t.load();
  ASSERT_TRUE(listed.usable()) << listed.diagnostics.to_string();
  EXPECT_EQ(config::master_candidates(*listed.config), (std::vector<std::string>{"hostB", "hostA"}));
}

TEST(FailoverParams, DefaultsTakeOverInThreeSecondsAndLsfsValuesGiveLsfsTiming) {
  lsf::testing::ConfigTree t;
  auto r = t.load();
  ASSERT_TRUE(r.usable());
  auto d = config::failover_timing(*r.config);
  EXPECT_EQ(d.exchange_interval, 1000ms);
  EXPECT_EQ(d.takeover_after(1), 3000ms);  // the first backup
  EXPECT_EQ(d.takeover_after(2), 4000ms);

  t.write("conf/lsf.cluster.test",
          cluster_with("EXINTERVAL = 15\nHOST_INACTIVITY_LIMIT = 5\nMASTER_INACTIVITY_LIMIT = 2\nPROBE_TIMEOUT = 2"));
  auto lsf = t.load();
  ASSERT_TRUE(lsf.usable()) << lsf.diagnostics.to_string();
  auto l = config::failover_timing(*lsf.config);
  EXPECT_EQ(l.takeover_after(1), 105s);  // LSF's own figure for the first backup
  EXPECT_EQ(l.probe_timeout, 2s);
}

TEST(FailoverParams, ABadValueIsAnErrorNamingTheLineAndKeepsTheDefault) {
  lsf::testing::ConfigTree t;
  t.write("conf/lsf.cluster.test", cluster_with("EXINTERVAL = 0\nMASTER_INACTIVITY_LIMIT = soon"));
  auto r = t.load();
  EXPECT_EQ(lsf::testing::errors_of(r),
            "lsf.cluster.test:5: EXINTERVAL must be a whole number from 1 to 3600, not '0'\n"
            "lsf.cluster.test:6: MASTER_INACTIVITY_LIMIT must be a whole number from 1 to 3600, not 'soon'\n");
}

// A lost host's jobs that are not rerunnable end REMOVE_HUNG_JOBS_FOR's host_unavail
// wait_time after it was lost: 10 minutes unless set; the keyword set without
// host_unavail means never, as in LSF.
TEST(FailoverParams, RemoveHungJobsForAsLsfWritesIt) {
  auto load = [](const std::string& value) {
    lsf::testing::ConfigTree t;
    if (!value.empty()) t.lsb("lsb.params", "Begin Parameters\nREMOVE_HUNG_JOBS_FOR = " + value + "\nEnd Parameters\n");
    return t.load();
  };
  auto unset = load("");
  ASSERT_TRUE(unset.usable());
  EXPECT_EQ(unset.config->params.remove_hung_host_unavail_min, 10);
  auto five = load("runlimit,wait_time=3:host_unavail,wait_time=5");
  ASSERT_TRUE(five.usable()) << five.diagnostics.to_string();
  EXPECT_EQ(five.config->params.remove_hung_host_unavail_min, 5);
  EXPECT_EQ(five.config->params.remove_hung_runlimit_min, 3);
  EXPECT_NE(five.diagnostics.to_string().find("runlimit: not acted on"), std::string::npos);
  EXPECT_EQ(load("all").config->params.remove_hung_host_unavail_min, 10);
  EXPECT_EQ(load("runlimit").config->params.remove_hung_host_unavail_min, std::nullopt);

  auto bad = load("host_gone");
  EXPECT_NE(bad.diagnostics.to_string().find("lsb.params"), std::string::npos);
  EXPECT_NE(bad.diagnostics.to_string().find("'host_gone' is not runlimit, host_unavail or all"), std::string::npos)
      << bad.diagnostics.to_string();
  auto bad_wait = load("host_unavail,wait_time=soon");
  EXPECT_NE(bad_wait.diagnostics.to_string().find("wait_time"), std::string::npos) << bad_wait.diagnostics.to_string();
}
