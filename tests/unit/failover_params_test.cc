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
