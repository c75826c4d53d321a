// The small typed values of LSF configuration files.
#include <gtest/gtest.h>

#include "libconfig/limits.h"
#include "libconfig/name_list.h"
#include "libconfig/pool_type.h"
#include "libconfig/shares.h"
#include "libconfig/threshold.h"

using namespace lsf::config;

TEST(Threshold, EitherSideMayBeEmpty) {
  EXPECT_EQ(LoadThreshold::parse("0.7/2.0").value(), (LoadThreshold{0.7, 2.0}));
  EXPECT_EQ(LoadThreshold::parse("15/").value(), (LoadThreshold{15, std::nullopt}));
  EXPECT_EQ(LoadThreshold::parse("/8").value(), (LoadThreshold{std::nullopt, 8}));
  EXPECT_EQ(LoadThreshold::parse("3.5").value(), (LoadThreshold{3.5, std::nullopt}));
  EXPECT_EQ(LoadThreshold::parse("0.9/").value().to_string(), "0.9/-");
  EXPECT_EQ(LoadThreshold::parse("a/b").error(), "\"a/b\" is not a threshold loadSched/loadStop");
  EXPECT_FALSE(LoadThreshold::parse("1/2/3"));
}

TEST(HostList, EveryForm) {
  auto l = parse_host_list("all ~hostA groupX+3 hostB+1 others+2 allremote hostC@cl2 none").value();
  ASSERT_EQ(l.size(), 8u);
  EXPECT_EQ(l[0].kind, HostListItem::Kind::kAll);
  EXPECT_TRUE(l[1].exclude);
  EXPECT_EQ(l[1].name, "hostA");
  EXPECT_EQ(l[2].preference, 3);
  EXPECT_EQ(l[4].kind, HostListItem::Kind::kOthers);
  EXPECT_EQ(l[4].preference, 2);
  EXPECT_EQ(l[5].kind, HostListItem::Kind::kAllRemote);
  EXPECT_EQ(l[6].cluster, "cl2");
  EXPECT_EQ(l[7].kind, HostListItem::Kind::kNone);
  EXPECT_EQ(format_host_list(l), "all ~hostA groupX+3 hostB+1 others+2 allremote hostC@cl2 none");
  EXPECT_EQ(parse_host_list("(hostA hostB)").value().size(), 2u);
  EXPECT_EQ(parse_host_list("hostA+x").error(), "host preference in \"hostA+x\" is not a number");
  EXPECT_EQ(parse_host_list("~hostA+1").error(), "\"~hostA+1\": an excluded host cannot have a preference");
  EXPECT_EQ(parse_host_list("hostA@").error(), "\"hostA@\" names no cluster after '@'");
}

TEST(UserList, EveryForm) {
  auto l = parse_user_list("all ~bob groupA@ alice").value();
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].kind, UserListItem::Kind::kAll);
  EXPECT_TRUE(l[1].exclude);
  EXPECT_TRUE(l[2].per_member);
  EXPECT_EQ(l[2].name, "groupA");
  EXPECT_EQ(format_user_list(l), "all ~bob groupA@ alice");
  EXPECT_EQ(parse_user_list("(!)").value()[0].kind, UserListItem::Kind::kExternal);
}

TEST(Shares, AbsoluteAndPercent) {
  auto s = parse_shares("([david, 1] [john,1])").value();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1], (ShareAssignment{"john", 1, false}));
  auto p = parse_shares("[sc1, 25%][sc2, 4]").value();
  EXPECT_EQ(p[0], (ShareAssignment{"sc1", 25, true}));
  EXPECT_EQ(p[1], (ShareAssignment{"sc2", 4, false}));
  EXPECT_EQ(format_shares(p), "[sc1, 25%] [sc2, 4]");
  auto fs = parse_keyword_shares("USER_SHARES[[groupA@, 3] [default, 1]]", "USER_SHARES").value();
  EXPECT_EQ(fs[0].name, "groupA@");
  EXPECT_EQ(parse_shares("[a 1]").error(), "share item [a 1] is not [name, number]");
  EXPECT_EQ(parse_shares("[a, 120%]").error(), "share item [a, 120%] is more than 100%");
  EXPECT_EQ(parse_shares("a, 1").error(), "expected '[' at \"a, 1\" in share list");
}

TEST(Limits, MemoryWithUnits) {
  EXPECT_EQ(parse_memory("5000", MemoryUnit::kKB).value(), 5000);
  EXPECT_EQ(parse_memory("5000", MemoryUnit::kMB).value(), 5000 * 1024);
  EXPECT_EQ(parse_memory("2G", MemoryUnit::kKB).value(), 2 * 1024 * 1024);
  EXPECT_EQ(parse_memory("1.5MB", MemoryUnit::kKB).value(), 1536);
  EXPECT_EQ(parse_memory("10QB", MemoryUnit::kKB).error(),
            "\"10QB\": \"QB\" is not a memory unit (KB, MB, GB, TB, PB, EB)");
  auto two = parse_memory_limits("100M 1G", MemoryUnit::kKB).value();
  EXPECT_EQ(two.default_value, 100 * 1024);
  EXPECT_EQ(two.maximum, 1024 * 1024);
  EXPECT_EQ(parse_memory_limits("2G 1G", MemoryUnit::kKB).error(), "the default 2G is above the maximum 1G");
}

TEST(Limits, TimeLimitsNormalisedToAHost) {
  auto t = TimeLimit::parse("180/apple").value();
  EXPECT_EQ(t.minutes, 180);
  EXPECT_EQ(t.host_spec, "apple");
  EXPECT_EQ(TimeLimit::parse("24:0/apple").value().minutes, 24 * 60);
  EXPECT_EQ(TimeLimit::parse("210").value().to_string(), "3:30");  // minutes may exceed 59
  auto run = parse_time_limits("30 2:00").value();
  EXPECT_EQ(run.default_value->minutes, 30);
  EXPECT_EQ(run.maximum.minutes, 120);
  EXPECT_EQ(TimeLimit::parse("1:x").error(), "\"1:x\" is not [hours:]minutes");
  EXPECT_EQ(TimeLimit::parse("10/").error(), "\"10/\" names no host or model after '/'");
}

TEST(Limits, AmountsPastTheirTypeAreRefused) {
  // Found by tests/fuzz (corpus/bsub/crash-*): bsub -W 802379605485813759:30 overflowed
  // hours x 60 (undefined) and wrapped into some small limit; a huge -M converted a
  // double past int64's range (undefined too).
  EXPECT_EQ(TimeLimit::parse("802379605485813759:30").error(),
            "\"802379605485813759:30\" is too long a time (at most 2147483647 minutes)");
  EXPECT_EQ(TimeLimit::parse("4294967296").error(), "\"4294967296\" is too long a time (at most 2147483647 minutes)");
  EXPECT_EQ(TimeLimit::parse("35791394:07")->minutes, 2147483647);
  EXPECT_EQ(parse_memory("99999999999999999999", MemoryUnit::kKB).error(),
            "\"99999999999999999999\" is too large a memory amount");
  EXPECT_EQ(parse_memory("9000000EB", MemoryUnit::kKB).error(), "\"9000000EB\" is too large a memory amount");
}

TEST(Limits, ProcessorLimit) {
  auto p = parse_processor_limit("2 4 8").value();
  EXPECT_EQ(p.minimum, 2);
  EXPECT_EQ(p.default_value, 4);
  EXPECT_EQ(p.maximum, 8);
  EXPECT_EQ(parse_processor_limit("5").value().maximum, 5);
  EXPECT_EQ(parse_processor_limit("8 2").error(), "\"8 2\" must satisfy minimum <= default <= maximum");
}

TEST(Limits, RequeueExitValuesWithExclude) {
  auto r = RequeueExitValues::parse("30 55 EXCLUDE(20 2)").value();
  EXPECT_EQ(r.requeue, (std::vector<int>{30, 55}));
  EXPECT_EQ(r.exclude, (std::vector<int>{20, 2}));
  EXPECT_EQ(r.to_string(), "30 55 EXCLUDE(20 2)");
  EXPECT_EQ(RequeueExitValues::parse("EXCLUDE(2)").value().exclude, std::vector<int>{2});
  EXPECT_EQ(RequeueExitValues::parse("300").error(), "exit value \"300\" is not 0-255");
  EXPECT_EQ(RequeueExitValues::parse("EXCLUDE(x)").error(), "exit value \"x\" in EXCLUDE() is not 0-255");
}

TEST(PoolType, Kinds) {
  EXPECT_EQ(PoolType::parse("slots").value().kind, PoolType::Kind::kSlots);
  EXPECT_EQ(PoolType::parse("hosts").value().kind, PoolType::Kind::kHosts);
  auto p = PoolType::parse("package[slots=1:mem=1000]").value();
  EXPECT_EQ(p.kind, PoolType::Kind::kPackage);
  EXPECT_EQ(p.package_slots, 1);
  EXPECT_EQ(p.package_mem_mb, 1000);
  EXPECT_EQ(PoolType::parse("package[mem=2G]").value().package_mem_mb, 2048);
  EXPECT_EQ(PoolType::parse("package[slots=1]").value().to_string(), "package[slots=1]");
  EXPECT_EQ(PoolType::parse("package[]").error(), "package[] needs slots=n or mem=m (or both)");
  EXPECT_EQ(PoolType::parse("package[cpus=2]").error(), "package[] does not know \"cpus\" (slots, mem)");
  EXPECT_EQ(PoolType::parse("resource[lic]").value().resource, "lic");
  EXPECT_EQ(PoolType::parse("cores").error(), "TYPE \"cores\" is not slots, hosts, package[...] or resource[...]");
}

TEST(LoanPolicies, EveryPart) {
  auto lp = LoanPolicies::parse("QUEUES[short normal] DURATION[10] CLOSE_ON_DEMAND RETAIN[20%]").value();
  EXPECT_EQ(lp.queues, (std::vector<std::string>{"short", "normal"}));
  EXPECT_EQ(lp.duration_minutes, 10);
  EXPECT_TRUE(lp.close_on_demand);
  EXPECT_EQ(lp.retain, 20);
  EXPECT_TRUE(lp.retain_percent);
  EXPECT_EQ(lp.to_string(), "QUEUES[short normal] DURATION[10] CLOSE_ON_DEMAND RETAIN[20%]");
  EXPECT_TRUE(LoanPolicies::parse("QUEUES[all]").value().all_queues);
  EXPECT_EQ(LoanPolicies::parse("DURATION[10]").error(), "LOAN_POLICIES needs QUEUES[...] to say who may borrow");
  EXPECT_EQ(LoanPolicies::parse("QUEUES[a] LEND").error(),
            "LOAN_POLICIES does not know \"LEND\" (QUEUES[], DURATION[], CLOSE_ON_DEMAND, RETAIN[])");
}
