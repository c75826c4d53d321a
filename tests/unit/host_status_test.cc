// Host statuses as an enum (daemons/mbatchd/host_status.h): the names bhosts shows and
// providers' offers carry map to one status each and back.
#include <gtest/gtest.h>

#include "daemons/mbatchd/host_status.h"

using lsf::mbd::HostStatus;

TEST(HostStatus, NamesRoundTrip) {
  for (auto s : {HostStatus::kOk, HostStatus::kClosedAdm, HostStatus::kClosedWind, HostStatus::kClosedBusy,
                 HostStatus::kClosedExcl, HostStatus::kClosedFull, HostStatus::kUnreach, HostStatus::kUnavail})
    EXPECT_EQ(lsf::mbd::parse_host_status(lsf::mbd::to_string(s)), s);
  EXPECT_EQ(lsf::mbd::to_string(HostStatus::kClosedAdm), "closed_Adm");
  EXPECT_EQ(lsf::mbd::parse_host_status("closed_LIM"), std::nullopt);
}

TEST(HostStatus, UnreachableIsUnreachOrUnavail) {
  EXPECT_TRUE(lsf::mbd::unreachable(HostStatus::kUnreach));
  EXPECT_TRUE(lsf::mbd::unreachable(HostStatus::kUnavail));
  EXPECT_FALSE(lsf::mbd::unreachable(HostStatus::kClosedFull));
  EXPECT_FALSE(lsf::mbd::unreachable(HostStatus::kOk));
}
