// The SCHEDULING PARAMETERS table of bqueues -l and bjobs -l against LSF's layout, as
// captured from real LSF output (a queue with r1m/ut/mem thresholds and a site index).
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/threshold_table.h"

namespace lsf::cli {
namespace {

wire::LoadThresholdInfo threshold(const std::string& name, std::optional<double> sched, std::optional<double> stop) {
  wire::LoadThresholdInfo t;
  t.set_name(name);
  if (sched) {
    t.set_has_sched(true);
    t.set_sched(*sched);
  }
  if (stop) {
    t.set_has_stop(true);
    t.set_stop(*stop);
  }
  return t;
}

std::string table(const std::vector<wire::LoadThresholdInfo>& list) {
  google::protobuf::RepeatedPtrField<wire::LoadThresholdInfo> all(list.begin(), list.end());
  std::ostringstream out;
  print_threshold_table(out, all);
  return out.str();
}

TEST(ThresholdTable, NoThresholdsIsAllDashesInLsfColumns) {
  EXPECT_EQ(table({}),
            "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
            " loadSched   -     -     -     -       -     -    -     -     -      -      -  \n"
            " loadStop    -     -     -     -       -     -    -     -     -      -      -  \n");
}

TEST(ThresholdTable, ValuesSitUnderTheirHeaders) {
  EXPECT_EQ(table({threshold("r1m", 0.7, 2.0), threshold("ut", 0.9, std::nullopt), threshold("mem", 500, 100),
                   threshold("pg", std::nullopt, 8)}),
            "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
            " loadSched   -    0.7    -   0.9       -     -    -     -     -      -    500M \n"
            " loadStop    -    2.0    -     -     8.0     -    -     -     -      -    100M \n");
}

TEST(ThresholdTable, SiteIndicesFollowInATableOfTheirOwn) {
  // LSF: "          scratch      xs ..." / " loadSched20000.0      -  ..." (a captured queue).
  const std::string out =
      table({threshold("scratch", 20000, std::nullopt), threshold("xs", std::nullopt, std::nullopt)});
  EXPECT_NE(out.find("\n          scratch      xs \n loadSched20000.0      -  \n loadStop      -       -  \n"),
            std::string::npos)
      << out;
}

TEST(ThresholdTable, ManySiteIndicesWrapAtEightyColumns) {
  std::vector<wire::LoadThresholdInfo> many;
  for (int i = 0; i < 12; ++i) many.push_back(threshold("site" + std::to_string(i), i, std::nullopt));
  std::istringstream lines(table(many));
  int headers = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 80u) << line;
    if (line.starts_with("          ") && line.find("site") != std::string::npos) ++headers;
  }
  EXPECT_EQ(headers, 2);
}

}  // namespace
}  // namespace lsf::cli
