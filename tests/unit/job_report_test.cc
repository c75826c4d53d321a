// The job report appended to the -o file, laid out as LSF 10 writes it (a captured
// report's lines, with this project's values).
#include "daemons/sbatchd/job_report.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace {

// Times are printed in the host's local time: UTC while a test runs, so the text is
// fixed; the zone is given back afterwards.
struct Utc {
  std::optional<std::string> saved;
  Utc() {
    if (const char* tz = std::getenv("TZ")) saved = tz;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~Utc() {
    if (saved)
      setenv("TZ", saved->c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
};

lsf::wire::JobLaunch example() {
  lsf::wire::JobLaunch l;
  l.set_job_id(12548598);
  l.set_job_name("Example3_1");
  l.set_user("s183905");
  l.set_queue("hpc");
  l.add_exec_hosts("n-62-31-21");
  l.set_cluster_name("dcc");
  l.set_cluster_admin("lsfadmin");
  l.set_submit_time(1644000760);  // Fri Feb  4 18:52:40 2022 UTC
  l.set_start_time(1644000761);
  l.set_requested_mem_mb(16384);
  l.mutable_spec()->set_from_host("n-62-27-17");
  l.mutable_spec()->set_cwd("/zhome/ee/d/137643/Desktop/Test/dtu-server-example");
  l.mutable_spec()->set_command("#!/bin/sh\n#BSUB -q hpc\npython main.py $MYARGS\n");
  return l;
}

}  // namespace

TEST(JobReport, SuccessfulJobAsLsfWritesIt) {
  Utc utc;
  lsf::sbd::JobEnd end;
  end.wait_status = 0;
  end.cpu_time = 0.34;
  end.end_time = 1644000762;
  end.home = "/zhome/ee/d/137643";
  EXPECT_EQ(
      lsf::sbd::job_report(example(), end),
      "\n"
      "------------------------------------------------------------\n"
      "Sender: LSF System <lsfadmin@n-62-31-21>\n"
      "Subject: Job 12548598: <Example3_1> in cluster <dcc> Done\n"
      "\n"
      "Job <Example3_1> was submitted from host <n-62-27-17> by user <s183905> in cluster <dcc> at Fri Feb  4 "
      "18:52:40 2022\n"
      "Job was executed on host(s) <n-62-31-21>, in queue <hpc>, as user <s183905> in cluster <dcc> at Fri Feb  4 "
      "18:52:41 2022\n"
      "</zhome/ee/d/137643> was used as the home directory.\n"
      "</zhome/ee/d/137643/Desktop/Test/dtu-server-example> was used as the working directory.\n"
      "Started at Fri Feb  4 18:52:41 2022\n"
      "Terminated at Fri Feb  4 18:52:42 2022\n"
      "Results reported at Fri Feb  4 18:52:42 2022\n"
      "\n"
      "Your job looked like:\n"
      "\n"
      "------------------------------------------------------------\n"
      "# LSBATCH: User input\n"
      "#!/bin/sh\n"
      "#BSUB -q hpc\n"
      "python main.py $MYARGS\n"
      "------------------------------------------------------------\n"
      "\n"
      "Successfully completed.\n"
      "\n"
      "Resource usage summary:\n"
      "\n"
      "    CPU time :                                   0.34 sec.\n"
      "    Max Memory :                                 -\n"
      "    Average Memory :                             -\n"
      "    Total Requested Memory :                     16384.00 MB\n"
      "    Delta Memory :                               -\n"
      "    Max Swap :                                   -\n"
      "    Max Processes :                              -\n"
      "    Max Threads :                                -\n"
      "    Run time :                                   1 sec.\n"
      "    Turnaround time :                            2 sec.\n"
      "\n"
      "The output (if any) is above this job summary.\n"
      "\n");
}

TEST(JobReport, ExitedJobGivesItsExitCodeAndMemory) {
  Utc utc;
  auto l = example();
  l.clear_requested_mem_mb();
  lsf::sbd::JobEnd end;
  end.wait_status = 120 << 8;
  end.max_rss_kb = 83 * 1024;
  end.end_time = 1644000762;
  const std::string r = lsf::sbd::job_report(l, end);
  EXPECT_NE(r.find("Subject: Job 12548598: <Example3_1> in cluster <dcc> Exited\n"), std::string::npos);
  EXPECT_NE(r.find("\n------------------------------------------------------------\n\nExited with exit code 120.\n\n"
                   "Resource usage summary:\n"),
            std::string::npos);
  EXPECT_NE(r.find("    Max Memory :                                 83 MB\n"), std::string::npos);
  EXPECT_NE(r.find("    Total Requested Memory :                     -\n"), std::string::npos);
}

// A job LSF killed: the reason with IBM's words, then the exit code bjobs gives (128 +
// the signal for a job a signal ended). It exited, whatever its status.
TEST(JobReport, KilledJobNamesTheReason) {
  lsf::sbd::JobEnd end;
  end.wait_status = SIGINT;
  end.exit_reason = "TERM_OWNER";
  std::string r = lsf::sbd::job_report(example(), end);
  EXPECT_NE(r.find("\nTERM_OWNER: job killed by owner.\nExited with exit code 130.\n"), std::string::npos);
  end.wait_status = 0;
  r = lsf::sbd::job_report(example(), end);
  EXPECT_NE(r.find("> Exited\n"), std::string::npos);
  EXPECT_NE(r.find("\nExited with exit code 0.\n"), std::string::npos);
}

TEST(JobReport, ArrayElementAndHostsAsLsfListsThem) {
  auto l = example();
  l.set_index(4);
  l.set_job_name("arr[4]");
  l.clear_exec_hosts();
  for (const char* h : {"hostA", "hostA", "hostA", "hostA", "hostB"}) l.add_exec_hosts(h);
  const std::string r = lsf::sbd::job_report(l, lsf::sbd::JobEnd{});
  EXPECT_NE(r.find("Subject: Job 12548598[4]: <arr[4]> in cluster <dcc> Done\n"), std::string::npos);
  EXPECT_NE(r.find("Sender: LSF System <lsfadmin@hostA>\n"), std::string::npos);
  EXPECT_NE(r.find("Job was executed on host(s) <4*hostA>, <hostB>, in queue <hpc>"), std::string::npos);
}
