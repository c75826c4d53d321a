// Each configuration file kind, read through the loader as badmin and mbatchd read it.
#include <gtest/gtest.h>

#include "config_tree.h"

using namespace lsf::config;
using lsf::testing::ConfigTree;
using lsf::testing::errors_of;
using lsf::testing::warnings_of;

TEST(ConfigFiles, FindsFilesThroughLsfEnvdir) {
  ConfigTree t;
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  EXPECT_EQ(r.config->cluster_name, "test");
  EXPECT_EQ(r.config->lsf_conf.confdir, t.envdir().string());
  EXPECT_EQ(r.config->lsf_conf.lsb_confdir, (t.envdir() / "lsbatch").string());
  EXPECT_EQ(r.config->hosts.size(), 3u);
  EXPECT_TRUE(r.config->find_queue("normal"));
}

TEST(ConfigFiles, MissingFilesAreNamed) {
  ConfigTree t;
  LoadOptions o;
  o.envdir = t.root() / "nowhere";
  auto r = load_cluster_config(o);
  EXPECT_FALSE(r.usable());
  EXPECT_NE(errors_of(r).find("lsf.conf: cannot read"), std::string::npos);
  std::filesystem::remove(t.envdir() / "lsf.cluster.test");
  auto r2 = t.load();
  EXPECT_NE(errors_of(r2).find("lsf.shared: no cluster of the Cluster section has an lsf.cluster.<name> file"),
            std::string::npos);
}

TEST(ConfigFiles, WithoutLsbQueuesThereIsAQueueNamedDefault) {
  ConfigTree t;
  std::filesystem::remove(t.envdir() / "lsbatch/test/configdir/lsb.queues");
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  ASSERT_EQ(r.config->queues.size(), 1u);
  EXPECT_EQ(r.config->queues[0].name, "default");
}

TEST(ConfigFiles, LsfConfUnitsAndPorts) {
  ConfigTree t;
  t.write("conf/lsf.conf",
          "LSF_CONFDIR=.\nLSB_CONFDIR=\"lsbatch\"\nLSB_MBD_PORT=6881\nLSF_UNIT_FOR_LIMITS=MB\n"
          "LSB_MBD_PORT2=1\nLSB_SBD_PORT=99999\nMY_SITE_VAR=1\n");
  t.lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = q\nMEMLIMIT = 100 200\nEnd Queue\n");
  auto r = t.load();
  EXPECT_EQ(r.config->lsf_conf.mbd_port, 6881);
  EXPECT_EQ(r.config->queues[0].mem_limit->maximum, 200 * 1024);  // MB by LSF_UNIT_FOR_LIMITS
  EXPECT_EQ(errors_of(r), "lsf.conf:6: LSB_SBD_PORT = \"99999\" is not a whole number from 1 to 65535\n");
  EXPECT_EQ(warnings_of(r), "lsf.conf:5: warning: unknown parameter LSB_MBD_PORT2 is ignored\n");
}

TEST(ConfigFiles, LsbQueuesEveryTypedParameter) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\n"
        "QUEUE_NAME = night\n"
        "PRIORITY = 20\n"
        "USERS = all ~bob\n"
        "HOSTS = hostA+2 hostB others\n"
        "RES_REQ = select[fs] order[r1m] rusage[mem=100]\n"
        "QJOB_LIMIT = 40\nUJOB_LIMIT = 5\nPJOB_LIMIT = 1.5\nHJOB_LIMIT = 2\n"
        "RUNLIMIT = 30 2:00/hostA\nCPULIMIT = 180/Generic\n"
        "RUN_WINDOW = 5:19:00-1:8:30 20:00-8:30\nDISPATCH_WINDOW = 20-8\n"
        "r1m = 0.7/2.0\npg = 4/\nut = /0.9\n"
        "STOP_COND = select[mem < 100]\n"
        "BACKFILL = Y\nSLOT_RESERVE = MAX_RESERVE_TIME[5]\nEXCLUSIVE = y\nINTERACTIVE = ONLY\n"
        "REQUEUE_EXIT_VALUES = 30 EXCLUDE(20)\n"
        "PRE_EXEC = /bin/true\nJOB_STARTER = csh -c \"%USRCMD;sleep 10\"\nTERMINATE_WHEN = WINDOW LOAD\n"
        "FAIRSHARE = USER_SHARES[[default, 1]]\nNICE = 10\nRERUNNABLE = YES\nJOB_ACCEPT_INTERVAL = 0\n"
        "End Queue\n"
        "Begin Queue\nQUEUE_NAME = high\nPRIORITY = 50\nPREEMPTION = PREEMPTIVE[night+1]\nEnd Queue\n");
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  const Queue& q = *r.config->find_queue("night");
  EXPECT_EQ(q.priority, 20);
  EXPECT_EQ(format_user_list(q.users), "all ~bob");
  EXPECT_EQ(format_host_list(q.hosts), "hostA+2 hostB others");
  EXPECT_EQ(q.res_req->to_string(), "select[fs] order[r1m] rusage[mem=100]");
  EXPECT_EQ(q.qjob_limit, 40);
  EXPECT_EQ(q.pjob_limit, 1.5);
  EXPECT_EQ(q.run_limit->default_value->minutes, 30);
  EXPECT_EQ(q.run_limit->maximum.host_spec, "hostA");
  EXPECT_EQ(q.cpu_limit->maximum.minutes, 180);
  EXPECT_FALSE(q.run_window.is_open({3, 12, 0}));
  EXPECT_TRUE(q.dispatch_window.is_open({3, 23, 0}));
  EXPECT_EQ(q.thresholds.at("r1m"), (LoadThreshold{0.7, 2.0}));
  EXPECT_EQ(q.thresholds.at("ut"), (LoadThreshold{std::nullopt, 0.9}));
  EXPECT_TRUE(q.backfill);
  EXPECT_EQ(q.slot_reserve_time, 5);
  EXPECT_TRUE(q.exclusive);
  EXPECT_EQ(q.interactive, Queue::Interactive::kOnly);
  EXPECT_EQ(q.requeue_exit_values.exclude, std::vector<int>{20});
  EXPECT_EQ(q.job_starter, "csh -c \"%USRCMD;sleep 10\"");
  EXPECT_EQ(q.terminate_when, (std::vector<std::string>{"WINDOW", "LOAD"}));
  EXPECT_EQ(q.fairshare->at(0).name, "default");
  EXPECT_EQ(q.job_accept_interval, 0);
  EXPECT_EQ(r.config->find_queue("high")->preemption.preemptive[0].preference, 1);
}

TEST(ConfigFiles, LsbQueuesErrorsNameFileLineAndQueue) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\n"
        "QUEUE_NAME = short\n"
        "PRIORITY = high\n"
        "RUN_WINDOW = 8:00\n"
        "RES_REQ = select[mem>]\n"
        "FOO = 1\n"
        "CHKPNT = /tmp 10\n"
        "End Queue\n"
        "Begin Queue\nPRIORITY = 1\nEnd Queue\n"
        "Begin Queue\nQUEUE_NAME = short\nEnd Queue\n");
  auto r = t.load();
  EXPECT_EQ(errors_of(r),
            "lsb.queues:3: queue \"short\": PRIORITY = \"high\" is not a whole number of at least 0\n"
            "lsb.queues:4: queue \"short\": RUN_WINDOW: time window \"8:00\" has no '-' between start and end\n"
            "lsb.queues:5: queue \"short\": RES_REQ: select expression ends where a value is expected\n"
            "lsb.queues:9: section Queue has no QUEUE_NAME; the queue is ignored\n"
            "lsb.queues:12: queue \"short\" is defined twice (first at line 1)\n");
  EXPECT_EQ(warnings_of(r),
            "lsb.queues:6: warning: queue \"short\": unknown parameter FOO is ignored\n"
            "lsb.queues:7: warning: queue \"short\": CHKPNT is accepted but not yet acted on\n");
}

TEST(ConfigFiles, LsbParams) {
  ConfigTree t;
  t.lsb("lsb.params",
        "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 10\nHIST_HOURS = 10\n"
        "ENABLE_HIST_RUN_TIME = y\nMAX_JOBID = 12\nEnd Parameters\n");
  auto r = t.load();
  EXPECT_EQ(r.config->params.mbd_sleep_time, 10);
  EXPECT_EQ(r.config->params.hist_hours, 10);
  EXPECT_TRUE(r.config->params.enable_hist_run_time);
  EXPECT_EQ(r.config->params.run_job_factor, 3.0);  // the default
  EXPECT_EQ(errors_of(r), "lsb.params:6: MAX_JOBID = \"12\" is not a whole number from 999999 to 2147483646\n");
}

TEST(ConfigFiles, ReservationModel) {
  ConfigTree t;
  t.lsb("lsb.params", "Begin Parameters\nRESERVATION_MODEL = plan\nEnd Parameters\n");
  auto r = t.load();
  EXPECT_TRUE(r.config->params.reservation_plan);
  EXPECT_EQ(errors_of(r), "");
  ConfigTree bad;
  bad.lsb("lsb.params", "Begin Parameters\nRESERVATION_MODEL = EASY\nEnd Parameters\n");
  auto b = bad.load();
  EXPECT_EQ(errors_of(b), "lsb.params:2: RESERVATION_MODEL = EASY: the values are HOLD and PLAN\n");
}

// This project's planning keys: lsb.params for every queue, a queue's own over them.
TEST(ConfigFiles, PlanningKeys) {
  ConfigTree t;
  t.lsb("lsb.params",
        "Begin Parameters\nRUNTIME_ESTIMATE = predict\nBACKFILL_ORDER = SHORTEST\nBACKFILL_MAX_WAIT = 60\n"
        "End Parameters\n");
  t.lsb("lsb.queues",
        "Begin Queue\nQUEUE_NAME = a\nRESERVATION_MODEL = PLAN\nRUNTIME_ESTIMATE = LIMIT\nEnd Queue\n"
        "Begin Queue\nQUEUE_NAME = b\nBACKFILL_ORDER = FCFS\nBACKFILL_MAX_WAIT = 0\nEnd Queue\n");
  auto r = t.load();
  ASSERT_EQ(errors_of(r), "");
  EXPECT_FALSE(r.config->params.reservation_plan);
  EXPECT_EQ(r.config->params.planning.predict, true);
  EXPECT_EQ(r.config->params.planning.shortest_first, true);
  EXPECT_EQ(r.config->params.planning.max_wait_minutes, 60);
  const auto& a = r.config->queues[0].planning;
  EXPECT_EQ(a.plan, true);
  EXPECT_EQ(a.predict, false);
  EXPECT_FALSE(a.shortest_first);  // unset: lsb.params' holds
  const auto& b = r.config->queues[1].planning;
  EXPECT_EQ(b.shortest_first, false);
  EXPECT_EQ(b.max_wait_minutes, 0);
  ConfigTree bad;
  bad.lsb("lsb.queues",
          "Begin Queue\nQUEUE_NAME = a\nRUNTIME_ESTIMATE = guess\nBACKFILL_ORDER = LJF\nBACKFILL_MAX_WAIT = -1\n"
          "RESERVATION_MODEL = EASY\nEnd Queue\n");
  auto e = bad.load();
  EXPECT_EQ(errors_of(e),
            "lsb.queues:3: queue \"a\": RUNTIME_ESTIMATE = guess: the values are LIMIT and PREDICT\n"
            "lsb.queues:4: queue \"a\": BACKFILL_ORDER = LJF: the values are FCFS and SHORTEST\n"
            "lsb.queues:5: queue \"a\": BACKFILL_MAX_WAIT = \"-1\" is not a whole number from 0 to 527040\n"
            "lsb.queues:6: queue \"a\": RESERVATION_MODEL = EASY: the values are HOLD and PLAN\n");
}

TEST(ConfigFiles, ApplicationProfiles) {
  ConfigTree t;
  t.lsb("lsb.applications",
        "Begin Application\nNAME = fluent\nDESCRIPTION = CFD runs\nRUNLIMIT = 1:30\nCPULIMIT = 45\n"
        "MEMLIMIT = 2000000\nPROCLIMIT = 2 4 8\nRES_REQ = select[mem>100] rusage[mem=50]\nPRE_EXEC = /bin/pre\n"
        "POST_EXEC = /bin/post\nJOB_STARTER = nice %USRCMD\nREQUEUE_EXIT_VALUES = 99 EXCLUDE(98)\n"
        "RERUNNABLE = y\nCHUNK_JOB_SIZE = 4\nEnd Application\n"
        "Begin Application\nNAME = short\nEnd Application\n");
  t.lsb("lsb.params", "Begin Parameters\nDEFAULT_APPLICATION = short\nEnd Parameters\n");
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  EXPECT_EQ(errors_of(r), "");
  const auto* app = r.config->find_application("fluent");
  ASSERT_TRUE(app);
  EXPECT_EQ(app->description, "CFD runs");
  EXPECT_EQ(app->run_limit->minutes, 90);
  EXPECT_EQ(app->cpu_limit->minutes, 45);
  EXPECT_EQ(*app->mem_limit, 2000000);
  EXPECT_EQ(app->proc_limit->minimum, 2);
  EXPECT_EQ(app->proc_limit->default_value, 4);
  EXPECT_EQ(app->proc_limit->maximum, 8);
  EXPECT_NE(app->res_req->to_string().find("mem>100"), std::string::npos) << app->res_req->to_string();
  EXPECT_EQ(app->pre_exec, "/bin/pre");
  EXPECT_EQ(app->post_exec, "/bin/post");
  EXPECT_EQ(app->job_starter, "nice %USRCMD");
  EXPECT_EQ(app->requeue_exit_values->requeue, std::vector<int>{99});
  EXPECT_EQ(app->requeue_exit_values->exclude, std::vector<int>{98});
  EXPECT_EQ(app->rerunnable, true);
  EXPECT_EQ(app->other.at("CHUNK_JOB_SIZE"), "4");  // accepted, with a warning
  EXPECT_NE(warnings_of(r).find("CHUNK_JOB_SIZE"), std::string::npos);
  EXPECT_TRUE(r.config->find_application("short"));
  EXPECT_EQ(r.config->params.default_application, "short");

  // Errors name the file, the line and the profile; a bad profile is not half-read.
  ConfigTree bad;
  bad.lsb("lsb.applications",
          "Begin Application\nNAME = a\nRUNLIMIT = 10 20\nPROCLIMIT = 4 2\nEnd Application\n"
          "Begin Application\nDESCRIPTION = nameless\nEnd Application\n"
          "Begin Application\nNAME = a\nEnd Application\n");
  bad.lsb("lsb.params", "Begin Parameters\nDEFAULT_APPLICATION = nosuch\nEnd Parameters\n");
  auto b = bad.load();
  EXPECT_EQ(errors_of(b),
            "lsb.applications:3: application profile \"a\": RUNLIMIT: one value only (the queue's is the hard limit)\n"
            "lsb.applications:4: application profile \"a\": PROCLIMIT: \"4 2\" must satisfy minimum <= default <= "
            "maximum\n"
            "lsb.applications:6: section Application has no NAME; the profile is ignored\n"
            "lsb.applications:9: application profile \"a\" is defined twice (first at line 1)\n"
            "lsb.params:2: DEFAULT_APPLICATION names unknown application profile \"nosuch\" (lsb.applications)\n");
}

TEST(ConfigFiles, LsbHostsAndUsers) {
  ConfigTree t;
  t.lsb("lsb.hosts",
        "Begin Host\nHOST_NAME MXJ JL/U r1m pg DISPATCH_WINDOW\n"
        "hostA 4 1 0.6/1.6 10/20 (5:19:00-1:8:30 20:00-8:30)\nGeneric ! () () () ()\ndefault 2 - - - -\nEnd Host\n"
        "Begin HostGroup\nGROUP_NAME GROUP_MEMBER CONDENSE\nhg1 (hostA hostB) Y\nhg2 (all ~hostA) N\nhg3 (!) N\nEnd "
        "HostGroup\n"
        "Begin HostPartition\nHPART_NAME = part1\nHOSTS = hg1\nUSER_SHARES = [default, 1]\nEnd HostPartition\n");
  t.lsb("lsb.users",
        "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
        "eng (alice bob) ([alice, 2] [bob, 1])\nall_eng (eng carol) ([eng, 3] [default, 1])\nEnd UserGroup\n"
        "Begin User\nUSER_NAME MAX_JOBS JL/P MAX_PEND_JOBS\neng@ 10 0.5 20\ndefault 6 1 -\nEnd User\n");
  auto r = t.load();
  ASSERT_TRUE(r.usable()) << r.diagnostics.to_string();
  const auto& c = *r.config;
  EXPECT_EQ(c.batch_hosts[0].mxj, 4);
  EXPECT_EQ(c.batch_hosts[0].thresholds.at("pg"), (LoadThreshold{10, 20}));
  EXPECT_TRUE(c.batch_hosts[1].mxj_is_ncpus);
  EXPECT_TRUE(c.find_host_group("hg1")->condense);
  EXPECT_TRUE(c.find_host_group("hg3")->external);
  EXPECT_EQ(c.host_partitions[0].user_shares[0].name, "default");
  EXPECT_EQ(c.find_user_group("all_eng")->user_shares[0], (ShareAssignment{"eng", 3, false}));
  EXPECT_TRUE(c.user_limits[0].per_member);
  EXPECT_EQ(c.user_limits[0].jl_p, 0.5);
  EXPECT_EQ(c.user_limits[0].max_pend_jobs, 20);
}

TEST(ConfigFiles, LsbResourcesLimitBothLayouts) {
  ConfigTree t;
  t.lsb("lsb.resources",
        "Begin Limit\nNAME = lim1\nPER_USER = all\nQUEUES = normal\nSLOTS = 10\nMEM = 20%\nRESOURCE = [licA, 2]\nEnd "
        "Limit\n"
        "Begin Limit\nNAME USERS QUEUES HOSTS SLOTS MEM\n"
        "lim2 (alice bob) normal (hostA hostB) 4 -\nlim3 - - hostC - 500\nEnd Limit\n"
        "Begin Limit\nNAME = bad\nUSERS = a\nPER_USER = b\nEnd Limit\n"
        "Begin Limit\nNAME = empty\nSLOTS = 1\nEnd Limit\n");
  auto r = t.load();
  const auto& l = r.config->limits;
  ASSERT_EQ(l.size(), 3u);
  EXPECT_TRUE(l[0].per_user);
  EXPECT_EQ(l[0].mem, 20);
  EXPECT_TRUE(l[0].mem_percent);
  EXPECT_EQ(l[0].resources[0].name, "licA");
  EXPECT_EQ(l[1].name, "lim2");
  EXPECT_EQ(l[1].slots, 4);
  EXPECT_EQ(format_host_list(l[1].hosts), "hostA hostB");
  EXPECT_EQ(l[2].mem, 500);
  EXPECT_EQ(
      errors_of(r),
      "lsb.resources:14: limit \"bad\": give USERS or PER_USER, not both\n"
      "lsb.resources:14: limit \"bad\": limits no resource (SLOTS, SLOTS_PER_PROCESSOR, JOBS, MEM, SWP, TMP, "
      "RESOURCE, IDLE_JOBS, TOTAL_JOBS or PROC_SECONDS)\n"
      "lsb.resources:19: limit \"empty\": names no consumer (USERS, QUEUES, HOSTS, PROJECTS or their PER_ forms)\n");
}

TEST(ConfigFiles, ServiceClassesAndModules) {
  ConfigTree t;
  t.lsb("lsb.serviceclasses",
        "Begin ServiceClass\nNAME = sc1\nGOALS = [GUARANTEE]\nACCESS_CONTROL = QUEUES[normal] USERS[alice]\n"
        "AUTO_ATTACH = Y\nEnd ServiceClass\n"
        "Begin ServiceClass\nNAME = sc2\nGOALS = [GUARANTEE]\nPRIORITY = 10\nEnd ServiceClass\n");
  t.lsb("lsb.modules",
        "Begin PluginModule\nSCH_PLUGIN RB_PLUGIN SCH_DISABLE_PHASES\nschmod_default () ()\n"
        "schmod_fairshare () ()\nschmod_magic () ()\nEnd PluginModule\n");
  auto r = t.load();
  const auto& sc = r.config->service_classes;
  ASSERT_EQ(sc.size(), 2u);
  EXPECT_TRUE(sc[0].guarantee);
  EXPECT_TRUE(sc[0].auto_attach);
  EXPECT_EQ(sc[0].access_users, std::vector<std::string>{"alice"});
  EXPECT_EQ(r.config->modules.size(), 3u);
  EXPECT_EQ(errors_of(r),
            "lsb.serviceclasses:10: service class \"sc2\": a guarantee service class may not set PRIORITY\n");
  EXPECT_NE(warnings_of(r).find("lsb.modules:5: warning: module \"schmod_magic\" is not a module this scheduler has"),
            std::string::npos);
}

TEST(ConfigFiles, TimeBasedConfigurationFollowsTheInstant) {
  ConfigTree t;
  t.lsb("lsb.queues",
        "Begin Queue\nQUEUE_NAME = normal\n#if time(8:00-18:00)\nPRIORITY = 30\n#else\nPRIORITY = 60\n"
        "#endif\nEnd Queue\n");
  EXPECT_EQ(t.load({3, 12, 0}).config->find_queue("normal")->priority, 30);
  EXPECT_EQ(t.load({3, 22, 0}).config->find_queue("normal")->priority, 60);
}

TEST(ConfigFiles, UnknownColumnIsReportedAtTheKeywordLine) {
  ConfigTree t;
  t.lsb("lsb.hosts",
        "Begin Host\n# a comment between Begin and the keywords\n\nHOST_NAME MXJ COLOUR\nhostA 2 red\nEnd Host\n");
  EXPECT_EQ(warnings_of(t.load()), "lsb.hosts:4: warning: section Host: unknown parameter COLOUR is ignored\n");
}
