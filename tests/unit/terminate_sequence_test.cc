// bkill's TERMINATE action as sbatchd keeps time for it: SIGINT at once, SIGTERM one
// JOB_TERMINATE_INTERVAL later, SIGKILL another later; a second bkill changes nothing;
// a restarted sbatchd (the sequence read back from the state file) keeps the deadline.
#include "daemons/sbatchd/terminate_sequence.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <vector>

using lsf::sbd::begin_terminate;
using lsf::sbd::end_terminate;
using lsf::sbd::take_due_signals;
using lsf::sbd::terminating;

namespace {
using Signals = std::vector<int>;
}

TEST(TerminateSequence, IntThenTermThenKillAnIntervalApart) {
  lsf::wire::SbdJob job;
  ASSERT_TRUE(begin_terminate(job, 100000, 10));
  EXPECT_EQ(take_due_signals(job, 100000), Signals{SIGINT});
  EXPECT_EQ(take_due_signals(job, 109999), Signals{});
  EXPECT_EQ(take_due_signals(job, 110000), Signals{SIGTERM});
  EXPECT_TRUE(terminating(job));
  EXPECT_EQ(take_due_signals(job, 120500), Signals{SIGKILL});
  EXPECT_FALSE(terminating(job));
  EXPECT_EQ(take_due_signals(job, 200000), Signals{});
}

TEST(TerminateSequence, ASecondBkillNeitherRestartsNorStretchesIt) {
  lsf::wire::SbdJob job;
  ASSERT_TRUE(begin_terminate(job, 100000, 10));
  EXPECT_EQ(take_due_signals(job, 100000), Signals{SIGINT});
  EXPECT_FALSE(begin_terminate(job, 105000, 10));
  EXPECT_FALSE(begin_terminate(job, 105000, 60));
  EXPECT_EQ(take_due_signals(job, 110000), Signals{SIGTERM});
  EXPECT_EQ(take_due_signals(job, 120000), Signals{SIGKILL});
}

// The sequence lives in SbdJob, the job's state file: what a restarted sbatchd reads
// back goes on from where it was, and signals whose time passed meanwhile go at once.
TEST(TerminateSequence, ARestartedSbatchdCarriesOnToTheSameDeadline) {
  lsf::wire::SbdJob job;
  ASSERT_TRUE(begin_terminate(job, 100000, 10));
  EXPECT_EQ(take_due_signals(job, 100000), Signals{SIGINT});
  lsf::wire::SbdJob reread;
  ASSERT_TRUE(reread.ParseFromString(job.SerializeAsString()));
  EXPECT_TRUE(terminating(reread));
  EXPECT_EQ(take_due_signals(reread, 125000), (Signals{SIGTERM, SIGKILL}));
}

TEST(TerminateSequence, IntervalZeroSendsAllThreeAtOnce) {
  lsf::wire::SbdJob job;
  ASSERT_TRUE(begin_terminate(job, 5, 0));
  EXPECT_EQ(take_due_signals(job, 5), (Signals{SIGINT, SIGTERM, SIGKILL}));
}

TEST(TerminateSequence, EndedSequenceSendsNothingMore) {
  lsf::wire::SbdJob job;
  EXPECT_FALSE(terminating(job));
  EXPECT_EQ(take_due_signals(job, 1000), Signals{});
  ASSERT_TRUE(begin_terminate(job, 1000, 10));
  EXPECT_EQ(take_due_signals(job, 1000), Signals{SIGINT});
  end_terminate(job);  // the job has ended
  EXPECT_FALSE(terminating(job));
  EXPECT_EQ(take_due_signals(job, 50000), Signals{});
}
