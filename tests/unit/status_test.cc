// The daemons' error vocabulary (daemons/common/status.h).
#include <gtest/gtest.h>

#include "daemons/common/status.h"

using namespace lsf::daemon;

TEST(DaemonStatus, OkAndFailure) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
  Status bad = fail("cannot listen on port 1: Address already in use");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "cannot listen on port 1: Address already in use");
  EXPECT_TRUE(Status::from_message("").ok());
  EXPECT_FALSE(Status::from_message("why").ok());
}

TEST(DaemonStatus, ResultHoldsAValueOrWhy) {
  Result<int> three = 3;
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(*three, 3);
  Result<int> none = fail("no such host");
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "no such host");
  EXPECT_EQ(Result<std::string>::failure("x").error(), "x");
}
