// lsb.acct JOB_FINISH lines: what mbatchd writes, bacct reads back unchanged.
#include "daemons/mbatchd/acct_record.h"

#include <sys/wait.h>

#include <gtest/gtest.h>

namespace lsf::mbd {
namespace {

Job finished_job() {
  auto sub = std::make_shared<Submission>();
  sub->spec.set_command("echo \"quoted\" && exit 3");
  sub->spec.set_job_name("arr");
  sub->spec.set_project("projA");
  sub->spec.set_from_host("submithost");
  sub->spec.set_cwd("/home/user/work dir");
  sub->spec.set_out_file("out.%J");
  sub->spec.set_res_req("select[mem>100]");
  sub->spec.set_min_processors(2);
  sub->spec.add_asked_hosts("hostA");
  sub->user = "alice";
  sub->uid = 1000;
  sub->submit_time = 1700000000;
  Job job;
  job.key = {42, 7};
  job.submission = sub;
  job.queue = "normal";
  job.state = wire::JOB_EXIT;
  job.start_time = 1700000010;
  job.exec_hosts = {"hostA", "hostB"};
  job.exit_status = 3 << 8;
  job.cpu_time = 1.25;
  job.max_rss_kb = 2048;
  job.reason = "TERM_OWNER";
  return job;
}

TEST(AcctRecord, ReadsBackWhatItWrites) {
  Job job = finished_job();
  auto r = parse_job_finish_record(job_finish_record(job, 1700000100));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->job_id(), 42);
  EXPECT_EQ(r->index(), 7);
  EXPECT_EQ(r->user(), "alice");
  EXPECT_EQ(r->queue(), "normal");
  EXPECT_EQ(r->project(), "projA");
  EXPECT_EQ(r->from_host(), "submithost");
  EXPECT_EQ(r->cwd(), "/home/user/work dir");
  EXPECT_EQ(r->out_file(), "out.%J");
  EXPECT_EQ(r->res_req(), "select[mem>100]");
  EXPECT_EQ(r->command(), "echo \"quoted\" && exit 3");
  EXPECT_EQ(r->job_name(), "arr[7]");
  ASSERT_EQ(r->exec_hosts_size(), 2);
  EXPECT_EQ(r->exec_hosts(1), "hostB");
  EXPECT_EQ(r->submit_time(), 1700000000);
  EXPECT_EQ(r->start_time(), 1700000010);
  EXPECT_EQ(r->end_time(), 1700000100);
  EXPECT_FALSE(r->done());
  EXPECT_EQ(WEXITSTATUS(r->exit_status()), 3);
  EXPECT_DOUBLE_EQ(r->cpu_time(), 1.25);
  EXPECT_EQ(r->max_rss_kb(), 2048);
  EXPECT_EQ(r->slots(), 2);
  EXPECT_EQ(r->exit_reason(), "TERM_OWNER");
}

TEST(AcctRecord, RefusesOtherAndCutLines) {
  EXPECT_FALSE(parse_job_finish_record("\"JOB_NEW\" \"10.1\" 1 2 3").has_value());
  std::string line = job_finish_record(finished_job(), 1700000100);
  EXPECT_FALSE(parse_job_finish_record(line.substr(0, line.size() / 2)).has_value());
}

}  // namespace
}  // namespace lsf::mbd
