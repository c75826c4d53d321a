// NameIndex: dense ids in the order names are first seen, found again after the table
// has grown many times.
#include "libsched/name_index.h"

#include <gtest/gtest.h>

#include <string>

namespace lsf::sched {
namespace {

TEST(NameIndex, GivesDenseIdsInFirstSeenOrder) {
  NameIndex index;
  EXPECT_EQ(index.find("alice"), -1);
  EXPECT_EQ(index.insert("alice"), std::make_pair(0, true));
  EXPECT_EQ(index.insert("bob"), std::make_pair(1, true));
  EXPECT_EQ(index.insert("alice"), std::make_pair(0, false));
  EXPECT_EQ(index.find("bob"), 1);
  EXPECT_EQ(index.find("carol"), -1);
  EXPECT_EQ(index.find(""), -1);
  EXPECT_EQ(index.insert(""), std::make_pair(2, true));  // an empty name is a name like any other
  EXPECT_EQ(index.name(1), "bob");
  EXPECT_EQ(index.size(), 3u);
}

TEST(NameIndex, FindsEveryNameAfterGrowing) {
  NameIndex index;
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(index.insert("user" + std::to_string(i)).first, i);
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(index.find("user" + std::to_string(i)), i);
    ASSERT_EQ(index.name(i), "user" + std::to_string(i));
  }
  EXPECT_EQ(index.find("user5000"), -1);
  EXPECT_EQ(index.insert("user4999").second, false);
  EXPECT_EQ(index.size(), 5000u);
}

}  // namespace
}  // namespace lsf::sched
