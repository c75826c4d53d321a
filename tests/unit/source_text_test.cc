// The preprocessing every LSF configuration file gets: comments, continuations,
// #INCLUDE and time-based #if blocks.
#include <gtest/gtest.h>

#include "config_tree.h"
#include "libconfig/source_text.h"

using namespace lsf::config;

namespace {

std::vector<LogicalLine> pre(const std::string& text, Diagnostics& d, WeekInstant now = {3, 12, 0}) {
  return preprocess_config_text(text, "lsb.queues", "/nonexistent", now, d);
}

std::vector<std::string> texts(const std::vector<LogicalLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(std::to_string(l.where.line) + ":" + l.text);
  return out;
}

TEST(Preprocess, CommentsAndContinuations) {
  Diagnostics d;
  auto lines = pre("# a comment\n"
                   "DEFAULT_QUEUE  = normal   #default job queue name\n"
                   "DESCRIPTION  = For normal jobs, running only if hosts are \\\n"
                   "lightly loaded.\n"
                   "#DESCRIPTION = commented \\\n"
                   "#also commented\n"
                   "   \n"
                   "JOB_STARTER = echo \"#not a comment\"\n",
                   d);
  EXPECT_EQ(texts(lines), (std::vector<std::string>{"2:DEFAULT_QUEUE  = normal",
                                                     "3:DESCRIPTION  = For normal jobs, running only if hosts are lightly loaded.",
                                                     "8:JOB_STARTER = echo \"#not a comment\""}));
  EXPECT_FALSE(d.has_errors());
}

TEST(Preprocess, TimeBasedBlocks) {
  const std::string text =
      "A = always\n"
      "#if time(8:00-18:00)\n"
      "B = day\n"
      "#elif time(18:00-22:00)\n"
      "B = evening\n"
      "#else\n"
      "B = night\n"
      "#endif\n";
  Diagnostics d;
  EXPECT_EQ(texts(pre(text, d, {3, 12, 0})), (std::vector<std::string>{"1:A = always", "3:B = day"}));
  EXPECT_EQ(texts(pre(text, d, {3, 19, 0})), (std::vector<std::string>{"1:A = always", "5:B = evening"}));
  EXPECT_EQ(texts(pre(text, d, {3, 23, 0})), (std::vector<std::string>{"1:A = always", "7:B = night"}));
  EXPECT_FALSE(d.has_errors()) << d.to_string();
}

TEST(Preprocess, ConditionsCombineAndNest) {
  const std::string text =
      "#if time(5:19:00-1:8:30) || !time(8:00-20:00)\n"
      "#if time(0:0:00-0:23:59)\n"
      "S = sunday\n"
      "#endif\n"
      "W = weekend_or_night\n"
      "#endif\n";
  Diagnostics d;
  EXPECT_EQ(texts(pre(text, d, {0, 12, 0})), (std::vector<std::string>{"3:S = sunday", "5:W = weekend_or_night"}));
  EXPECT_EQ(texts(pre(text, d, {3, 12, 0})), std::vector<std::string>{});
  EXPECT_EQ(texts(pre(text, d, {3, 21, 0})), std::vector<std::string>{"5:W = weekend_or_night"});
  EXPECT_FALSE(d.has_errors()) << d.to_string();
}

TEST(Preprocess, TimeZoneIsReadAndIgnoredWithAWarning) {
  Diagnostics d;
  auto lines = pre("#if time(18:30-19:30 EDT)\nX = 1\n#endif\n", d, {3, 19, 0});
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_EQ(d.to_string(), "lsb.queues:1: warning: time zone EDT is ignored; windows use local time\n");
}

TEST(Preprocess, UnbalancedDirectivesAreErrors) {
  Diagnostics d;
  pre("#if time(8:00-9:00)\nX = 1\n", d);
  pre("#endif\n#else\n", d);
  pre("#if time(25:00-1:00)\n#endif\n", d);
  pre("#if hostname(a)\n#endif\n", d);
  EXPECT_EQ(d.to_string(),
            "lsb.queues:1: #if without a matching #endif\n"
            "lsb.queues:1: #endif without a matching #if\n"
            "lsb.queues:2: #else without a matching #if\n"
            "lsb.queues:1: #if condition: time window \"25:00-1:00\": hour 25 is not 0-23\n"
            "lsb.queues:1: #if condition: expected time(...) but found \"hostname(a)\"\n");
}

TEST(Preprocess, IncludeSplicesAnotherFile) {
  lsf::testing::ConfigTree tree;
  tree.write("inc/extra.queues", "Begin Queue\nQUEUE_NAME = extra\nEnd Queue\n#INCLUDE \"missing\"\n");
  Diagnostics d;
  std::string text = "X = 1\n#INCLUDE \"" + (tree.root() / "inc/extra.queues").string() + "\"\nY = 2\n";
  auto lines = preprocess_config_text(text, "lsb.queues", tree.root(), {3, 12, 0}, d);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[2].text, "QUEUE_NAME = extra");
  EXPECT_EQ(lines[2].where.file, (tree.root() / "inc/extra.queues").string());
  EXPECT_EQ(lines[2].where.line, 2);
  EXPECT_EQ(lines[4].where.file, "lsb.queues");
  ASSERT_EQ(d.error_count(), 1);
  EXPECT_EQ(d.items()[0].where.line, 4);
  EXPECT_NE(d.items()[0].message.find("#INCLUDE \"missing\": cannot read"), std::string::npos);
}

TEST(Preprocess, IncludeCycleIsAnError) {
  lsf::testing::ConfigTree tree;
  tree.write("a", "#INCLUDE \"b\"\n");
  tree.write("b", "#INCLUDE \"a\"\n");
  Diagnostics d;
  preprocess_config_text("#INCLUDE \"a\"\n", "lsb.queues", tree.root(), {3, 12, 0}, d);
  ASSERT_EQ(d.error_count(), 1);
  EXPECT_NE(d.items()[0].message.find("nested more than 16 deep (an include cycle?)"), std::string::npos);
}

}  // namespace
