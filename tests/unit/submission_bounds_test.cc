// What one submission may hold (lengths, NUL bytes, number ranges), limits that are
// refused rather than wrapped, and the request id that lets a retried bsub find the job
// its first attempt made, through a snapshot too.
#include <gtest/gtest.h>

#include <string>

#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/submission_bounds.h"
#include "libconfig/limits.h"

using namespace lsf;

namespace {

wire::JobSpec plain() {
  wire::JobSpec s;
  s.set_command("sleep 10");
  return s;
}

}  // namespace

TEST(SubmissionBounds, APlainJobIsWithinBounds) { EXPECT_EQ(mbd::check_spec_bounds(plain()).message(), ""); }

TEST(SubmissionBounds, LongStringsAreRefusedNamingTheOption) {
  auto s = plain();
  s.set_job_name(std::string(mbd::kMaxNameLength, 'j'));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "");
  s.set_job_name(std::string(mbd::kMaxNameLength + 1, 'j'));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The job name (-J) is too long (4095 characters; at most 4094)");
  s = plain();
  s.set_command(std::string(mbd::kMaxCommandLength + 1, 'x'));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The job command is too long (1048577 characters; at most 1048576)");
  s = plain();
  s.set_res_req(std::string(mbd::kMaxExpressionLength + 1, 'a'));
  EXPECT_NE(mbd::check_spec_bounds(s).message().find("The resource requirement (-R) is too long"), std::string::npos);
  s = plain();
  s.add_asked_hosts(std::string(5000, 'h'));
  EXPECT_NE(mbd::check_spec_bounds(s).message().find("A host name (-m) is too long"), std::string::npos);
}

TEST(SubmissionBounds, TheEnvironmentIsBounded) {
  auto s = plain();
  for (int i = 0; i < 3; ++i) {
    auto* e = s.add_env();
    e->set_name("V" + std::to_string(i));
    e->set_value(std::string(400 << 10, 'v'));
  }
  EXPECT_NE(mbd::check_spec_bounds(s).message().find("The job's environment is too large"), std::string::npos);
  s = plain();
  for (std::size_t i = 0; i <= mbd::kMaxEnvironmentVariables; ++i) s.add_env()->set_name("V" + std::to_string(i));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The job's environment has too many variables (10001; at most 10000)");
}

TEST(SubmissionBounds, NulBytesAreRefusedNotCut) {
  auto s = plain();
  s.set_command(std::string("echo one\0echo two", 17));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The job command contains a NUL character");
  s = plain();
  s.set_out_file(std::string("/tmp/a\0/etc/passwd", 18));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The output file (-o) contains a NUL character");
  s = plain();
  auto* e = s.add_env();
  e->set_name("SECRET");
  e->set_value(std::string("a\0b", 3));
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "The job's environment variable SECRET contains a NUL character");
}

TEST(SubmissionBounds, NumbersOutOfRangeAreRefused) {
  auto s = plain();
  s.set_run_limit_s(-60);
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "Bad RUNLIMIT specification (-W)");
  s = plain();
  s.set_run_limit_s(std::int64_t{1} << 40);
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "Bad RUNLIMIT specification (-W)");
  s = plain();
  s.set_mem_limit_kb(-1);
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "Bad memory limit specification (-M)");
  s = plain();
  s.set_min_processors(-4);
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "Bad argument for option -n");
  s = plain();
  s.set_umask(01000);
  EXPECT_EQ(mbd::check_spec_bounds(s).message(), "Bad umask");
}

// bsub -W 4294967297 once became a one-minute limit, -M 18446744073709551617 none.
TEST(LimitParsing, HugeLimitsAreRefusedNotWrapped) {
  EXPECT_FALSE(config::TimeLimit::parse("4294967297"));
  EXPECT_EQ(config::TimeLimit::parse("4294967297").error(),
            "\"4294967297\" is too long a time (at most 2147483647 minutes)");
  EXPECT_FALSE(config::TimeLimit::parse("35791395:0"));
  EXPECT_FALSE(config::TimeLimit::parse("9223372036854775807:59"));
  ASSERT_TRUE(config::TimeLimit::parse("35791394:07"));
  EXPECT_EQ(config::TimeLimit::parse("35791394:07")->minutes, 2147483647);
  EXPECT_FALSE(config::parse_memory("18446744073709551617", config::MemoryUnit::kKB));
  EXPECT_FALSE(config::parse_memory("9000000PB", config::MemoryUnit::kKB));
  ASSERT_TRUE(config::parse_memory("4GB", config::MemoryUnit::kKB));
  EXPECT_EQ(*config::parse_memory("4GB", config::MemoryUnit::kKB), 4 * 1024 * 1024);
}

TEST(SubmissionRequestId, TheJobARequestMadeIsFoundAgainAfterASnapshot) {
  wire::EventRecord r;
  auto* e = r.mutable_job_new();
  e->set_job_id(7);
  e->set_user("alice");
  e->set_queue("normal");
  e->mutable_spec()->set_command("true");
  e->mutable_spec()->set_request_id("0123abcd");
  mbd::ClusterState s;
  ASSERT_EQ(s.apply(r).message(), "");
  EXPECT_EQ(s.job_of_request("alice", "0123abcd"), 7);
  EXPECT_EQ(s.job_of_request("mallory", "0123abcd"), 0) << "another user's request id is not theirs";
  EXPECT_EQ(s.job_of_request("alice", "ffff"), 0);
  mbd::ClusterState restored;
  restored.load_snapshot(s.snapshot(100));
  EXPECT_EQ(restored.job_of_request("alice", "0123abcd"), 7);
}
