// Every expression a user submits or an admin configures is bounded (input_limits.h):
// nesting past 64 levels and text past 64 KiB are refused with a message naming the
// limit, and a flat run of operators of any allowed length parses, evaluates and is
// freed without recursing once per term. These run under the ASan build too, where a
// stack frame is several times larger: a per-term recursion would overflow there.
#include <string>

#include <gtest/gtest.h>

#include "libconfig/input_limits.h"
#include "libconfig/resreq.h"
#include "libconfig/source_text.h"
#include "libconfig/time_window.h"
#include "libsched/array_index_list.h"
#include "libsched/dependency.h"

using namespace lsf;
using config::ResourceRequirement;
using config::SelectExpr;

namespace {

std::string repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// `open` n times, then `core`, then `close` n times.
std::string nested(std::string_view open, std::string_view core, std::string_view close, size_t n) {
  return repeat(open, n) + std::string(core) + repeat(close, n);
}

// `term op term op ... term`, n terms.
std::string chain(std::string_view term, std::string_view op, size_t n) {
  return repeat(std::string(term) + std::string(op), n - 1) + std::string(term);
}

config::ResourceValue host_a(std::string_view name) {
  if (name == "mem") return 3000.0;
  if (name == "fs") return 1.0;
  if (name == "type") return std::string("LINUX64");
  return std::monostate{};
}

TEST(SelectLimits, NestingPastTheLimitIsRefusedByName) {
  EXPECT_TRUE(SelectExpr::parse(nested("(", "mem>1", ")", 64)).ok());
  EXPECT_EQ(SelectExpr::parse(nested("(", "mem>1", ")", 65)).error(), "select[] nests deeper than 64 levels");
  EXPECT_EQ(SelectExpr::parse(repeat("!", 65) + "fs").error(), "select[] nests deeper than 64 levels");
  EXPECT_EQ(SelectExpr::parse(repeat("-", 65) + "mem < 0").error(), "select[] nests deeper than 64 levels");
  EXPECT_EQ(ResourceRequirement::parse("select[" + nested("(", "fs", ")", 1000) + "]").error(),
            "select[] nests deeper than 64 levels");
}

TEST(SelectLimits, TextPastTheLimitIsRefusedByName) {
  const std::string flat = chain("fs", " && ", 100'000);
  EXPECT_EQ(SelectExpr::parse(flat).error(), "select[] longer than 64 KiB");
  EXPECT_EQ(ResourceRequirement::parse("select[" + flat + "]").error(), "resource requirement longer than 64 KiB");
}

TEST(SelectLimits, LongFlatChainsParseAndEvaluate) {
  // 10,000 terms: under 64 KiB, and far deeper than a stack allows if nested per term.
  auto all = SelectExpr::parse(chain("fs", " && ", 10'000));
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_TRUE(all->matches(host_a));
  EXPECT_FALSE(SelectExpr::parse(chain("fs", " && ", 10'000) + " && cs")->matches(host_a));
  EXPECT_TRUE(SelectExpr::parse(chain("cs", " || ", 10'000) + " || fs")->matches(host_a));
  EXPECT_FALSE(SelectExpr::parse(chain("cs", " || ", 10'000))->matches(host_a));
  // 10,000 x mem = 30,000,000; minus and divide stay left to right.
  EXPECT_TRUE(SelectExpr::parse(chain("mem", "+", 10'000) + " == 30000000")->matches(host_a));
  EXPECT_TRUE(SelectExpr::parse("mem" + repeat("-1", 10'000) + " == -7000")->matches(host_a));
  EXPECT_TRUE(SelectExpr::parse("mem" + repeat("/2", 3) + " == 375")->matches(host_a));
  // The pre-LSF-6 form is a flat conjunction too.
  EXPECT_TRUE(SelectExpr::parse(chain("fs", ":", 10'000))->matches(host_a));
  EXPECT_EQ(SelectExpr::parse(chain("fs", " && ", 10'000))->to_string().size(), 10'000 * 6 - 4);
}

TEST(SelectLimits, ParenthesesThatChangeTheMeaningAreKept) {
  EXPECT_EQ(SelectExpr::parse("mem-(1+2)")->to_string(), "mem-(1+2)");
  EXPECT_EQ(SelectExpr::parse("mem/(2*2)")->to_string(), "mem/(2*2)");
  EXPECT_EQ(SelectExpr::parse("(mem-1)-2")->to_string(), "mem-1-2");
  EXPECT_EQ(SelectExpr::parse("(a || b) && (c || d)")->to_string(), "(a || b) && (c || d)");
  EXPECT_TRUE(SelectExpr::parse("mem-(1000+1000) == 1000")->matches(host_a));
}

TEST(SelectLimits, ManySelectSectionsJoinFlat) {
  // Each select[] joins one flat chain, not one more pair of parentheses around all
  // before it.
  auto rr = ResourceRequirement::parse(repeat("select[fs] ", 5'000));
  ASSERT_TRUE(rr.ok()) << rr.error();
  EXPECT_TRUE(rr->select.matches(host_a));
  EXPECT_FALSE(ResourceRequirement::parse(repeat("select[fs] ", 5'000) + "select[cs]")->select.matches(host_a));
}

sched::DependencyState all_done(const sched::DependencyExpr& e) {
  return e.evaluate([](const sched::DependencyRef&) {
    return std::vector<sched::DependencyJob>{{sched::DependencyJob::Phase::kDone, 0}};
  });
}

TEST(DependencyLimits, NestingPastTheLimitIsRefusedByName) {
  EXPECT_TRUE(sched::DependencyExpr::parse(nested("(", "done(1)", ")", 64)).ok());
  const std::string deep = "Dependency condition syntax error: dependency expression nests deeper than 64 levels";
  EXPECT_EQ(sched::DependencyExpr::parse(nested("(", "done(1)", ")", 65)).error(), deep);
  EXPECT_EQ(sched::DependencyExpr::parse(repeat("!", 65) + "done(1)").error(), deep);
}

TEST(DependencyLimits, TextPastTheLimitIsRefusedByName) {
  EXPECT_EQ(sched::DependencyExpr::parse(chain("done(1)", " && ", 100'000)).error(),
            "Dependency condition syntax error: dependency expression longer than 64 KiB");
}

TEST(DependencyLimits, LongFlatChainsParseAndEvaluate) {
  auto e = sched::DependencyExpr::parse(chain("1", "&&", 20'000));
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(all_done(*e), sched::DependencyState::kSatisfied);
  EXPECT_EQ(e->references().size(), 20'000u);
  auto any = sched::DependencyExpr::parse(chain("exit(1)", "||", 6'000));
  ASSERT_TRUE(any.ok()) << any.error();
  EXPECT_EQ(all_done(*any), sched::DependencyState::kNever);
}

TEST(DependencyLimits, NumbersTooLargeAreRefusedNotThrown) {
  EXPECT_FALSE(sched::DependencyExpr::parse("done(12[99999999999])").ok());
  EXPECT_FALSE(sched::DependencyExpr::parse("numdone(12, >= 99999999999999999999)").ok());
  EXPECT_FALSE(sched::DependencyExpr::parse("exit(12, 99999999999999999999)").ok());
}

TEST(ConditionLimits, IfNestingPastTheLimitIsAnError) {
  config::Diagnostics d;
  const std::string text = "#if " + nested("(", "time(8:00-17:00)", ")", 65) + "\nA = 1\n#endif\n";
  config::preprocess_config_text(text, "lsb.queues", "/nonexistent", {3, 12, 0}, d);
  EXPECT_NE(d.to_string().find("condition nests deeper than 64 levels"), std::string::npos) << d.to_string();

  config::Diagnostics ok;
  const std::string within = "#if " + nested("(", "time(8:00-17:00)", ")", 64) + "\nA = 1\n#endif\n";
  EXPECT_EQ(config::preprocess_config_text(within, "lsb.queues", "/nonexistent", {3, 12, 0}, ok).size(), 1u);
  EXPECT_FALSE(ok.has_errors()) << ok.to_string();
}

TEST(TimeWindowLimits, TextPastTheLimitIsRefusedByName) {
  EXPECT_EQ(config::TimeWindowSet::parse(chain("8:00-17:00", " ", 10'000)).error(),
            "time window list longer than 64 KiB");
  EXPECT_EQ(config::TimeWindowSet::parse(chain("8:00-17:00", " ", 5'000))->windows().size(), 5'000u);
}

TEST(ArrayIndexLimits, IndicesAreCountedBeforeTheyAreMade) {
  // 5,000 x 1000 indices named: refused at once, not after five million steps.
  EXPECT_EQ(sched::parse_array_index_list(chain("1-1000", ",", 5'000), 1000).error(),
            "Job array index too large (MAX_JOB_ARRAY_SIZE is 1000)");
  EXPECT_EQ(sched::parse_array_index_list("1-600,400-1000", 1000).error(),
            "Job array index too large (MAX_JOB_ARRAY_SIZE is 1000)");
  EXPECT_EQ(sched::parse_array_index_list("1-1001", 1000).error(),
            "Job array index too large (MAX_JOB_ARRAY_SIZE is 1000)");
  EXPECT_EQ(sched::parse_array_index_list(chain("1", ",", 40'000), 1'000'000).error(),
            "job array index list longer than 64 KiB");
}

TEST(ArrayIndexLimits, ListsWithinTheLimitGiveEachIndexOnce) {
  EXPECT_EQ(sched::parse_array_index_list("1-500,501-1000", 1000)->size(), 1000u);
  EXPECT_EQ(*sched::parse_array_index_list("1-10:4, 5, 2", 1000), (std::vector<std::int32_t>{1, 2, 5, 9}));
  EXPECT_EQ(*sched::parse_array_index_list("1-1000:9223372036854775807", 1000), (std::vector<std::int32_t>{1}));
  EXPECT_EQ(sched::parse_array_index_list("0-5", 1000).error(), "Bad job array index list");
  EXPECT_EQ(sched::parse_array_index_list("5-1", 1000).error(), "Bad job array index list");
  EXPECT_EQ(sched::parse_array_index_list("1-5:0", 1000).error(), "Bad job array index list");
  EXPECT_EQ(sched::parse_array_index_list("", 1000).error(), "Bad job array index list");
}

}  // namespace
