// The master's lifecycle (daemons/mbatchd/lifecycle.h).
#include <gtest/gtest.h>

#include "daemons/mbatchd/lifecycle.h"

using lsf::mbd::Lifecycle;
using Phase = Lifecycle::Phase;

TEST(Lifecycle, RecoversServesStops) {
  Lifecycle l;
  EXPECT_EQ(l.phase(), Phase::kRecovering);
  l.serving();
  EXPECT_EQ(l.phase(), Phase::kServing);
  l.stopping();
  EXPECT_EQ(l.phase(), Phase::kStopping);
  EXPECT_FALSE(l.restart_requested());
  EXPECT_FALSE(l.event_log_failed());
}

TEST(Lifecycle, RestartIsKeptThroughTheStop) {
  Lifecycle l;
  l.serving();
  l.restart();
  l.stopping();
  EXPECT_TRUE(l.restart_requested());
  EXPECT_EQ(lsf::mbd::to_string(l.phase()), "restarting");
}

TEST(Lifecycle, AFailedWriteWinsAndIsRecordedOnce) {
  Lifecycle l;
  l.serving();
  l.restart();
  EXPECT_TRUE(l.log_failed());
  EXPECT_FALSE(l.log_failed());
  l.restart();
  l.stopping();
  EXPECT_TRUE(l.event_log_failed());
  EXPECT_FALSE(l.restart_requested());
}

TEST(Lifecycle, AFencedMasterStepsDownWithoutRestartingEvenAfterAFailedWrite) {
  Lifecycle l;
  l.serving();
  EXPECT_TRUE(l.log_failed());  // the fence shows first as a failed round
  EXPECT_TRUE(l.fenced());
  EXPECT_FALSE(l.fenced());
  l.restart();  // badmin mbdrestart cannot bring it back either
  l.stopping();
  EXPECT_TRUE(l.was_fenced());
  EXPECT_FALSE(l.event_log_failed());
  EXPECT_FALSE(l.restart_requested());
  EXPECT_EQ(lsf::mbd::to_string(l.phase()), "fenced");
}
