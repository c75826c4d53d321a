// Resource requirement strings: parsing, select[] evaluation against a host's static
// resources and load indices, and order[] ranking.
#include <map>

#include <gtest/gtest.h>

#include "libconfig/resreq.h"

using namespace lsf::config;

namespace {

// A host as select[] sees it.
struct Host {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;
  ResourceLookup lookup() const {
    return [this](std::string_view name) -> ResourceValue {
      std::string n(name);
      if (n == "cpu") n = "r1m";
      if (n == "swap") n = "swp";
      if (auto it = numbers.find(n); it != numbers.end()) return it->second;
      if (auto it = strings.find(n); it != strings.end()) return it->second;
      return std::monostate{};
    };
  }
};

const Host kHostA{{{"r15s", 0.2},
                   {"r1m", 0.5},
                   {"r15m", 0.4},
                   {"ut", 0.1},
                   {"pg", 2},
                   {"mem", 3000},
                   {"swp", 60},
                   {"tmp", 900},
                   {"ncpus", 8},
                   {"maxmem", 16000},
                   {"cpuf", 4.5},
                   {"fs", 1}},
                  {{"type", "LINUX64"}, {"model", "Generic"}, {"hname", "hostA"}}};

struct SelectCase {
  const char* expr;
  bool matches;
};

class SelectTable : public ::testing::TestWithParam<SelectCase> {};

TEST_P(SelectTable, AgainstHostA) {
  auto rr = ResourceRequirement::parse(GetParam().expr);
  ASSERT_TRUE(rr) << rr.error();
  EXPECT_EQ(rr->select.matches(kHostA.lookup()), GetParam().matches) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Operators, SelectTable,
    ::testing::Values(SelectCase{"select[mem>2000]", true}, SelectCase{"select[mem>3000]", false},
                      SelectCase{"mem>=3000", true}, SelectCase{"select[mem<3000]", false},
                      SelectCase{"select[mem<=3000]", true}, SelectCase{"select[ncpus==8]", true},
                      SelectCase{"select[ncpus!=8]", false}, SelectCase{"select[type==LINUX64]", true},
                      SelectCase{"select[type!=LINUX64]", false}, SelectCase{"select[type==\"LINUX64\"]", true},
                      SelectCase{"select[type==any]", true},
                      SelectCase{"select[type==local]", true},  // no submission host known: any type
                      SelectCase{"select[fs]", true}, SelectCase{"select[cs]", false}, SelectCase{"select[!cs]", true},
                      SelectCase{"select[defined(fs)]", true}, SelectCase{"select[defined(verilog)]", false},
                      SelectCase{"select[(swp>50 && mem>=10 && type==MIPS) || (swp>35 && type==LINUX64)]", true},
                      SelectCase{"select[((2*r15s + 3*r1m + r15m)/6 < 1.0) && fs && (cpuf > 4.0)]", true},
                      SelectCase{"select[maxmem - mem > 12000]", true}, SelectCase{"select[-mem < 0]", true},
                      SelectCase{"select[cpu < 0.6]", true},                  // alias of r1m
                      SelectCase{"select[license > 0]", false},               // undefined: comparisons fail
                      SelectCase{"select[mem>1000] select[swp>100]", false},  // several select[] all hold
                      SelectCase{"mem>1000 order[r1m]", true},                // unlabeled leading select
                      // The select syntax before LSF 6: `=` means at most for increasing indices.
                      SelectCase{"r15m=1.5:mem=20:swp=12:-cs", true}, SelectCase{"r1m=0.1:mem=20", false},
                      SelectCase{"-:fs", true}));

TEST(ResReq, ParsesEverySection) {
  auto rr = ResourceRequirement::parse(
      "select[type==LINUX64 && mem>100] order[-mem:r15s] rusage[mem=200:licA=1:duration=2h:decay=1] "
      "span[ptile=4] same[type:model] cu[type=rack:pref=maxavail:maxcus=2:excl] affinity[core(1)]");
  ASSERT_TRUE(rr) << rr.error();
  EXPECT_EQ(rr->order, (std::vector<OrderKey>{{"mem", true}, {"r15s", false}}));
  ASSERT_EQ(rr->rusage.alternatives.size(), 1u);
  const auto& clause = rr->rusage.alternatives[0][0];
  EXPECT_EQ(clause.items, (std::vector<RusageItem>{{"mem", 200}, {"licA", 1}}));
  EXPECT_EQ(clause.duration_minutes, 120);
  EXPECT_TRUE(clause.decay);
  EXPECT_EQ(rr->span->ptile, 4);
  EXPECT_EQ(rr->same, (std::vector<std::string>{"type", "model"}));
  EXPECT_EQ(rr->cu->type, "rack");
  EXPECT_EQ(rr->cu->maxcus, 2);
  EXPECT_TRUE(rr->cu->excl);
  EXPECT_EQ(rr->affinity, "core(1)");
  EXPECT_EQ(rr->to_string(),
            "select[type==LINUX64 && mem>100] order[-mem:r15s] rusage[mem=200:licA=1:duration=120:decay=1] "
            "span[ptile=4] same[type:model] cu[type=rack:pref=maxavail:maxcus=2:excl] affinity[core(1)]");
}

TEST(ResReq, RusageAlternativesAndClauses) {
  auto alt = ResourceRequirement::parse("rusage[mem=20 || mem=10:swp=20]");
  ASSERT_TRUE(alt) << alt.error();
  ASSERT_EQ(alt->rusage.alternatives.size(), 2u);
  EXPECT_EQ(alt->rusage.alternatives[1][0].items, (std::vector<RusageItem>{{"mem", 10}, {"swp", 20}}));

  auto clauses = ResourceRequirement::parse("rusage[mem=20, licA=1:duration=2]");
  ASSERT_TRUE(clauses) << clauses.error();
  ASSERT_EQ(clauses->rusage.alternatives[0].size(), 2u);
  EXPECT_FALSE(clauses->rusage.alternatives[0][0].duration_minutes);
  EXPECT_EQ(clauses->rusage.alternatives[0][1].duration_minutes, 2);

  // decay without a duration is ignored, as LSF does.
  auto nodur = ResourceRequirement::parse("rusage[mem=50:decay=1]");
  ASSERT_TRUE(nodur);
  EXPECT_FALSE(nodur->rusage.alternatives[0][0].decay);
}

TEST(ResReq, Span) {
  EXPECT_EQ(ResourceRequirement::parse("span[hosts=1]")->span->hosts, 1);
  EXPECT_EQ(ResourceRequirement::parse("span[hosts=-1]")->span->hosts, -1);
  EXPECT_TRUE(ResourceRequirement::parse("span[ptile='!']")->span->ptile_per_cpu);
  EXPECT_EQ(ResourceRequirement::parse("span[block=4]")->span->block, 4);
}

TEST(ResReq, WhatIsPrintedReadsBack) {
  // Found by tests/fuzz (corpus/resreq/crash-*): the old syntax takes a number or a name
  // as a value, not any text, and a string holding a double quote is printed inside single
  // quotes.
  EXPECT_EQ(ResourceRequirement::parse("defspanl:usablecuslots=2]").error(),
            "bad term \"usablecuslots=2]\" in select expression");
  EXPECT_FALSE(ResourceRequirement::parse("-ux]:mem=20").ok());
  EXPECT_FALSE(ResourceRequirement::parse("r15m=....1.5:mem=20").ok());
  EXPECT_EQ(ResourceRequirement::parse("r15m=+.5:mem=-2")->to_string(), "select[r15m<=.5 && mem>=-2]");
  EXPECT_TRUE(ResourceRequirement::parse("type=LINUX64:mem=20:ncpus=4").ok());
  EXPECT_EQ(ResourceRequirement::parse("\"type=='a[b'\"").error(),
            "a string in a select expression cannot hold '[' or ']'");
  auto quoted = ResourceRequirement::parse("select[type == 'LINUX\"64']");
  ASSERT_TRUE(quoted.ok()) << quoted.error();
  EXPECT_EQ(quoted->to_string(), "select[type=='LINUX\"64']");
  EXPECT_TRUE(ResourceRequirement::parse(quoted->to_string()).ok());
  // Found by tests/fuzz (corpus/resreq/crash-same-nul): same[] refuses control bytes in a
  // name, which would not read back as the same requirement.
  using namespace std::string_literals;
  EXPECT_EQ(ResourceRequirement::parse("same[type:m\0\0odel]"s).error(),
            "same[] lists resource names separated by ':'");
  EXPECT_EQ(ResourceRequirement::parse("same[type:my_res2]")->to_string(), "same[type:my_res2]");
}

TEST(ResReq, Errors) {
  EXPECT_EQ(ResourceRequirement::parse("select[mem>]").error(), "select expression ends where a value is expected");
  EXPECT_EQ(ResourceRequirement::parse("select[(mem>1]").error(), "missing ')' in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem>1").error(), "select[ has no closing ']'");
  EXPECT_EQ(ResourceRequirement::parse("rusage[mem]").error(), "rusage term \"mem\" is not name=value");
  EXPECT_EQ(ResourceRequirement::parse("rusage[mem=x]").error(), "rusage value \"x\" for mem is not a number");
  EXPECT_EQ(ResourceRequirement::parse("rusage[mem=1:decay=2:duration=5]").error(), "decay must be 0 or 1, not \"2\"");
  EXPECT_EQ(ResourceRequirement::parse("span[ptile=0]").error(), "span[ptile=0]: ptile must be a positive number");
  EXPECT_EQ(ResourceRequirement::parse("span[hosts=1:ptile=2]").error(), "span[] cannot have both hosts=1 and ptile");
  EXPECT_EQ(ResourceRequirement::parse("span[foo=1]").error(), "span[] does not know \"foo\" (hosts, ptile, block)");
  EXPECT_EQ(ResourceRequirement::parse("order[r1m] order[mem]").error(), "order[] is given twice");
  EXPECT_EQ(ResourceRequirement::parse("order[r1m] junk").error(), "unexpected \"junk\" in resource requirement");
  EXPECT_EQ(ResourceRequirement::parse("cu[pref=best]").error(),
            "cu[pref=best]: pref is config, bestfit, maxavail or minavail");
  // A bare type printed as cu[], which did not read back (fuzz corpus/resreq/crash-cu-bare-type).
  EXPECT_EQ(ResourceRequirement::parse("rU cu[type]").error(),
            "cu[type]: type needs a compute unit type (cu[type=enclosure])");
  // The old syntax's -name with the function's name printed as !defined, which did not
  // read back (fuzz corpus/resreq/crash-old-syntax-not-defined).
  EXPECT_EQ(ResourceRequirement::parse("1:-defined").error(), "bad term \"-defined\" in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem > 1 $]").error(), "unexpected \"$\" in select expression");
  // The message goes back to bhosts -R or bsub -R in a protobuf string, which must be
  // UTF-8: a character beyond ASCII is quoted whole, a byte that is no character as \xNN
  // (fuzz corpus/request/crash-reply-not-utf8).
  EXPECT_EQ(ResourceRequirement::parse("select[mem > \xC8\xA2]").error(), "unexpected '\xC8\xA2' in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem > \xE2\x80\x9C"
                                       "1\xE2\x80\x9D]")
                .error(),
            "unexpected '\xE2\x80\x9C' in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem > \xC8]").error(), "unexpected '\\xC8' in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem > \xED\xA0\x80]").error(),
            "unexpected '\\xED' in select expression");
  EXPECT_EQ(ResourceRequirement::parse("select[mem > \x01]").error(), "unexpected '\\x01' in select expression");
}

TEST(ResReq, OrderRanksHosts) {
  Host busy = kHostA, idle = kHostA, no_mem = kHostA;
  busy.numbers["r15s"] = 2.0;
  idle.numbers["r15s"] = 0.0;
  idle.numbers["mem"] = 1000;
  no_mem.numbers.erase("mem");
  auto by = [](const char* order) { return ResourceRequirement::parse(order)->order; };
  // r15s grows with load: less first. mem is free memory: more first; `-` reverses.
  EXPECT_LT(compare_by_order(by("order[r15s]"), idle.lookup(), busy.lookup()), 0);
  EXPECT_GT(compare_by_order(by("order[mem]"), idle.lookup(), busy.lookup()), 0);
  EXPECT_LT(compare_by_order(by("order[-mem]"), idle.lookup(), busy.lookup()), 0);
  // The first key decides; ties go to the next.
  EXPECT_LT(compare_by_order(by("order[ncpus:r15s]"), idle.lookup(), busy.lookup()), 0);
  EXPECT_EQ(compare_by_order(by("order[ncpus]"), idle.lookup(), busy.lookup()), 0);
  // A host without the value goes last whatever the direction.
  EXPECT_GT(compare_by_order(by("order[mem]"), no_mem.lookup(), busy.lookup()), 0);
  EXPECT_GT(compare_by_order(by("order[-mem]"), no_mem.lookup(), busy.lookup()), 0);
}

TEST(ResReq, BothSelectsHold) {
  auto queue = SelectExpr::parse("mem>1000").value();
  auto job = SelectExpr::parse("type==MIPS").value();
  EXPECT_TRUE(queue.matches(kHostA.lookup()));
  EXPECT_FALSE(SelectExpr::both(queue, job).matches(kHostA.lookup()));
  EXPECT_EQ(SelectExpr::both(queue, job).to_string(), "mem>1000 && type==MIPS");
}

}  // namespace
