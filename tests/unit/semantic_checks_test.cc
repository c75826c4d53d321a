// Every cross-file rule, each asserted with the file:line text the admin sees.
#include <gtest/gtest.h>

#include "config_tree.h"

using namespace lsf::config;
using lsf::testing::ConfigTree;
using lsf::testing::errors_of;
using lsf::testing::warnings_of;

TEST(SemanticChecks, UnknownHostsGroupsQueuesAndClusters) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\n"
        "QUEUE_NAME = short\n"
        "HOSTS = hostA hg9 hostZ@nowhere hostQ@remote1\n"
        "PREEMPTION = PREEMPTIVE[normal+1 ghost]\n"
        "FAIRSHARE = USER_SHARES[[nogroup@, 1]]\n"
        "End Queue\n"
        "Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n");
  t.lsb("lsb.params", "Begin Parameters\nDEFAULT_QUEUE = normal missing\nEnd Parameters\n");
  t.lsb("lsb.hosts",
        "Begin Host\nHOST_NAME MXJ\nhostZ 1\nEnd Host\n"
        "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nhg1 (hostA hg2)\nhg2 (hg1)\nEnd HostGroup\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r),
            "lsb.params:2: lsb.params: DEFAULT_QUEUE names unknown queue \"missing\"\n"
            "lsb.queues:3: queue \"short\": HOSTS names unknown host or host group \"hg9\"\n"
            "lsb.queues:3: queue \"short\": HOSTS names unknown cluster \"nowhere\" in \"hostZ@nowhere\"\n"
            "lsb.queues:4: queue \"short\": PREEMPTION names unknown queue \"ghost\"\n"
            "lsb.queues:5: queue \"short\": FAIRSHARE names unknown user group \"nogroup@\"\n"
            "lsb.hosts:3: host \"hostZ\": HOST_NAME is not a host, host model, host type or default\n"
            "lsb.hosts:7: host group \"hg1\": GROUP_MEMBER includes the group itself\n"
            "lsb.hosts:8: host group \"hg2\": GROUP_MEMBER includes the group itself\n");
}

TEST(SemanticChecks, HostGroupCycleIsReportedNotFollowedWhereHostsAreCompared) {
  // Queues of one SLOT_POOL must use the same hosts: comparing them expands hg1, whose
  // members lead back to it. Expanding afresh at every level would never end.
  ConfigTree t;
  t.lsb("lsb.hosts", "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nhg1 (hostA hg2)\nhg2 (hg1)\nEnd HostGroup\n");
  t.lsb("lsb.queues",
        "Begin Queue\nQUEUE_NAME = a\nSLOT_POOL = p\nSLOT_SHARE = 50\nHOSTS = hg1\nEnd Queue\n"
        "Begin Queue\nQUEUE_NAME = b\nSLOT_POOL = p\nSLOT_SHARE = 50\nHOSTS = hg2\nEnd Queue\n");
  const std::string errors = errors_of(t.load());
  EXPECT_NE(errors.find("host group \"hg1\": GROUP_MEMBER includes the group itself"), std::string::npos) << errors;
  EXPECT_NE(errors.find("host group \"hg2\": GROUP_MEMBER includes the group itself"), std::string::npos) << errors;
}

TEST(SemanticChecks, UnknownUsersAndServiceClassesAndResources) {
  ConfigTree t;
  t.lsb("lsb.users",
        "Begin User\nUSER_NAME MAX_JOBS\nghosts@ 5\nEnd User\n"
        "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\neng (alice) ([alice, 1] [zed, 2])\nEnd UserGroup\n");
  t.lsb("lsb.resources",
        "Begin GuaranteedResourcePool\nNAME = p1\nTYPE = slots\nHOSTS = hostA\nDISTRIBUTION = [nosuch, 2] [plain, 1]\n"
        "LOAN_POLICIES = QUEUES[nope]\nEnd GuaranteedResourcePool\n"
        "Begin Limit\nNAME = l1\nQUEUES = all ~normal gone\nRESOURCE = [licZ, 1]\nEnd Limit\n");
  t.lsb("lsb.serviceclasses",
        "Begin ServiceClass\nNAME = plain\nGOALS = [VELOCITY 10 timeWindow ()]\nEnd ServiceClass\n");
  t.write(
      "conf/lsf.cluster.test",
      "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
      "Begin Host\nHOSTNAME model type server RESOURCES\nhostA Nope LINUX64 1 (fs gpu)\nhostB Generic LINUX64 1 ()\n"
      "hostC Generic LINUX64 1 ()\nEnd Host\n"
      "Begin ResourceMap\nRESOURCENAME LOCATION\nlicA (4@[all])\nlicQ [default]\nEnd ResourceMap\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r),
            "lsf.cluster.test:6: host \"hostA\": model \"Nope\" is not a HostModel in lsf.shared\n"
            "lsf.cluster.test:6: host \"hostA\": RESOURCES names \"gpu\", which lsf.shared does not define\n"
            "lsf.cluster.test:13: resource \"licQ\": ResourceMap names a resource lsf.shared does not define\n"
            "lsb.users:3: user \"ghosts@\": USER_NAME names unknown user group \"ghosts\"\n"
            "lsb.resources:10: limit \"l1\": QUEUES names unknown queue \"gone\"\n"
            "lsb.resources:11: limit \"l1\": RESOURCE names \"licZ\", which lsf.shared does not define\n"
            "lsb.resources:5: guarantee pool \"p1\": DISTRIBUTION names unknown service class \"nosuch\"\n"
            "lsb.resources:5: guarantee pool \"p1\": DISTRIBUTION names service class \"plain\", which has no GOALS = "
            "[GUARANTEE]\n"
            "lsb.resources:6: guarantee pool \"p1\": LOAN_POLICIES names unknown queue \"nope\"\n");
  EXPECT_NE(warnings_of(r).find("lsb.users:7: warning: user group \"eng\": USER_SHARES gives a share to \"zed\", which "
                                "is not a member of the group"),
            std::string::npos)
      << warnings_of(r);
}

TEST(SemanticChecks, AHostInTwoGuaranteePoolsGoesToTheFirst) {
  ConfigTree t;
  t.lsb("lsb.serviceclasses", "Begin ServiceClass\nNAME = sc1\nGOALS = [GUARANTEE]\nEnd ServiceClass\n");
  t.lsb("lsb.resources",
        "Begin GuaranteedResourcePool\nNAME = first\nTYPE = slots\nHOSTS = hostA hostB\nDISTRIBUTION = [sc1, 1]\n"
        "End GuaranteedResourcePool\n"
        "Begin GuaranteedResourcePool\nNAME = second\nTYPE = package[slots=2:mem=1000]\nHOSTS = all\n"
        "RES_SELECT = fs\nDISTRIBUTION = [sc1, 50%]\nEnd GuaranteedResourcePool\n"
        "Begin GuaranteedResourcePool\nNAME = third\nTYPE = hosts\nHOSTS = hostC\nRES_SELECT = mem > 16000\n"
        "DISTRIBUTION = [sc1, 1]\nEnd GuaranteedResourcePool\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r), "");
  // hostA has fs, so `second` matches it too; hostB lacks fs. mem is not known from files.
  EXPECT_EQ(warnings_of(r),
            "lsb.resources:7: warning: guarantee pool \"second\": host \"hostA\" also matches guarantee pool "
            "\"first\" (line 1), which comes first and gets it\n");
}

TEST(SemanticChecks, SlotPoolRules) {
  ConfigTree t;
  t.lsb(
      "lsb.queues",
      "Begin Queue\nQUEUE_NAME = q1\nPRIORITY = 50\nHOSTS = hostA hostB\nSLOT_POOL = pool\nSLOT_SHARE = 60\nEnd Queue\n"
      "Begin Queue\nQUEUE_NAME = q2\nPRIORITY = 40\nHOSTS = hostA hostC\nSLOT_POOL = pool\nSLOT_SHARE = 30\n"
      "SLOT_RESERVE = MAX_RESERVE_TIME[3]\nEnd Queue\n"
      "Begin Queue\nQUEUE_NAME = q3\nPRIORITY = 30\nHOSTS = hostB hostA\nSLOT_POOL = pool\nSLOT_SHARE = 20\n"
      "PREEMPTION = PREEMPTIVE[other]\nEnd Queue\n"
      "Begin Queue\nQUEUE_NAME = other\nPRIORITY = 10\nEnd Queue\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r),
            "lsb.queues:12: queue \"q2\": uses other hosts than queue \"q1\" of the same SLOT_POOL \"pool\"; "
            "queues of a pool must use the same hosts\n"
            "lsb.queues:14: queue \"q2\": a queue of SLOT_POOL \"pool\" may not have SLOT_RESERVE\n"
            "lsb.queues:22: queue \"q3\": a queue of SLOT_POOL \"pool\" may not be preemptive\n"
            "lsb.queues:6: slot pool \"pool\": SLOT_SHARE adds up to 110 (60 + 30 + 20), more than 100\n");
}

TEST(SemanticChecks, QueueAndHostPartitionFairshareTogetherAreWarnedAbout) {
  ConfigTree t;
  t.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = fs\nFAIRSHARE = USER_SHARES[[default, 1]]\nEnd Queue\n");
  t.lsb("lsb.hosts",
        "Begin HostPartition\nHPART_NAME = p1\nHOSTS = hostA\nUSER_SHARES = [default, 1]\n"
        "End HostPartition\n");
  auto r = t.load();
  EXPECT_TRUE(r.usable());
  EXPECT_EQ(warnings_of(r),
            "lsb.hosts:1: warning: host partition \"p1\": queue \"fs\" has FAIRSHARE too; LSF does not allow "
            "queue-level and host-partition fairshare in one cluster (the queue keeps its own)\n");
}

TEST(SemanticChecks, DispatchOrderTakesQueueAndNeedsACrossQueueSet) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\nQUEUE_NAME = fs\nFAIRSHARE = USER_SHARES[[default, 1]]\nDISPATCH_ORDER = QUEUE\nEnd Queue\n"
        "Begin Queue\nQUEUE_NAME = fs2\nFAIRSHARE = USER_SHARES[[default, 1]]\nDISPATCH_ORDER = USER\n"
        "End Queue\n");
  auto r = t.load();
  EXPECT_EQ(warnings_of(r),
            "lsb.queues:4: warning: queue \"fs\": DISPATCH_ORDER = QUEUE has no effect without "
            "FAIRSHARE_QUEUES\n");
  EXPECT_EQ(errors_of(r), "lsb.queues:9: queue \"fs2\": DISPATCH_ORDER = USER: the only value is QUEUE\n");
}

TEST(SemanticChecks, SlotPoolQueuesMayNotBePreemptable) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\nQUEUE_NAME = q1\nSLOT_POOL = pool\nSLOT_SHARE = 50\nEnd Queue\n"
        "Begin Queue\nQUEUE_NAME = high\nPREEMPTION = PREEMPTIVE[q1]\nEnd Queue\n");
  EXPECT_EQ(errors_of(t.load()), "lsb.queues:3: queue \"q1\": a queue of SLOT_POOL \"pool\" may not be preemptable\n");
}

TEST(SemanticChecks, ExportRules) {
  ConfigTree t;
  t.lsb(
      "lsb.resources",
      "Begin HostExport\nPER_HOST = hostA\nSLOTS = 2\nTYPE = shared\nDISTRIBUTION = ([remote1, 1] [remote2, 1])\nEnd "
      "HostExport\n"
      "Begin HostExport\nRES_SELECT = type==LINUX64\nSLOTS = 1\nDISTRIBUTION = [remote1, 1]\nEnd HostExport\n"
      "Begin HostExport\nPER_HOST = hostB\nSLOTS = 1\nDISTRIBUTION = [mars, 1]\nEnd HostExport\n"
      "Begin SharedResourceExport\nNAME = fs\nNINSTANCES = 1\nDISTRIBUTION = [remote1, 1]\nEnd SharedResourceExport\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r),
            "lsb.resources:1: HostExport: a shared export with PER_HOST must name exactly one cluster in DISTRIBUTION, "
            "not 2\n"
            "lsb.resources:7: HostExport: RES_SELECT needs NHOSTS\n"
            "lsb.resources:15: HostExport: DISTRIBUTION names unknown cluster \"mars\"\n"
            "lsb.resources:18: shared resource export \"fs\": NAME must be a Numeric resource of lsf.shared\n");
}

TEST(SemanticChecks, PackageTypeNeedsSlotsOrMem) {
  ConfigTree t;
  t.lsb("lsb.serviceclasses", "Begin ServiceClass\nNAME = sc1\nGOALS = [GUARANTEE]\nEnd ServiceClass\n");
  t.lsb("lsb.resources",
        "Begin GuaranteedResourcePool\nNAME = p\nTYPE = package[]\nDISTRIBUTION = [sc1, 1]\n"
        "End GuaranteedResourcePool\n");
  EXPECT_EQ(errors_of(t.load()),
            "lsb.resources:3: guarantee pool \"p\": TYPE: package[] needs slots=n or mem=m (or both)\n"
            "lsb.resources:1: guarantee pool \"p\": TYPE is required (slots, hosts, package[...] or resource[...])\n");
}

TEST(SemanticChecks, AllErrorsAreReportedNotOnlyTheFirst) {
  ConfigTree t;
  t.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = a\nPRIORITY = x\nHOSTS = nohost\nEnd Queue\n");
  t.lsb("lsb.params", "Begin Parameters\nMBD_SLEEP_TIME = -1\nEnd Parameters\n");
  auto r = t.load();
  EXPECT_EQ(r.diagnostics.error_count(), 3) << errors_of(r);
  EXPECT_FALSE(r.usable());
}
