// Debug builds assert the thread that touches state (daemons/common/thread_owner.h);
// release builds compile the checks away.
#include <gtest/gtest.h>

#include <thread>

#include "daemons/common/thread_owner.h"

using lsf::daemon::ThreadOwner;

TEST(ThreadOwner, TheOwnerMayTouch) {
  ThreadOwner owner;
  owner.check("state");  // the first thread to check owns it
  owner.check("state");
  std::thread other([&] { owner.bind(); });  // bind() hands it to another thread
  other.join();
  owner.bind();
  owner.check("state");
  SUCCEED();
}

#ifndef NDEBUG
TEST(ThreadOwnerDeathTest, AnotherThreadAborts) {
  ThreadOwner owner;
  owner.bind();
  EXPECT_DEATH(
      {
        std::thread other([&] { owner.check("state"); });
        other.join();
      },
      "touched off its owning thread");
}
#else
TEST(ThreadOwner, ReleaseBuildsHoldNothing) { EXPECT_LE(sizeof(ThreadOwner), 1u); }
#endif
