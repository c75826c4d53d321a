// A host's resources: a sorted vector behind std::map's interface. The pass reads them
// in name order (fill_values expects hosts to list the same names in the same order).
#include "libsched/model/resource_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lsf::sched {
namespace {

TEST(ResourceMapTest, KeepsNamesInOrderWhateverTheyWereGivenIn) {
  ResourceMap m;
  m["r15s"] = 0.5;
  m["mem"] = 64000.0;
  m["type"] = std::string("LINUX64");
  m["it"] = 3.0;
  std::vector<std::string> names;
  for (const auto& [name, value] : m) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"it", "mem", "r15s", "type"}));
}

TEST(ResourceMapTest, FindsAndReplacesByName) {
  ResourceMap m{{"mem", 100.0}, {"ut", 0.2}};
  ASSERT_NE(m.find("mem"), m.end());
  EXPECT_EQ(std::get<double>(m.find("mem")->second), 100.0);
  EXPECT_EQ(m.find("me"), m.end());
  EXPECT_EQ(m.find("mem2"), m.end());
  m["mem"] = 50.0;  // replaces, does not add
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(std::get<double>(m.find("mem")->second), 50.0);
  EXPECT_FALSE(m.try_emplace("ut", 0.9).second);
  EXPECT_EQ(std::get<double>(m.find("ut")->second), 0.2);
  EXPECT_EQ(m, (ResourceMap{{"ut", 0.2}, {"mem", 50.0}}));
}

}  // namespace
}  // namespace lsf::sched
