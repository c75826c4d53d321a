// The scheduler modules one at a time, through their hooks, on hand-built views: what
// the scenario tests see only as whole-pass decisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

// Three hosts of `mxj` slots, one queue, a policy with nothing else.
ClusterView small_view(int mxj) {
  auto policy = std::make_shared<SchedPolicy>();
  policy->default_host.mxj = mxj;
  QueuePolicy q;
  q.name = "normal";
  q.priority = 30;
  policy->queues.push_back(q);
  ClusterView v;
  v.policy = policy;
  v.queues.resize(1);
  for (const char* name : {"hostA", "hostB", "hostC"}) {
    HostView h;
    h.name = name;
    h.resources["r15s"] = 0.0;
    h.resources["pg"] = 0.0;
    v.hosts.push_back(h);
  }
  return v;
}

JobView job(std::int64_t id, const std::string& user = "alice", int slots = 1) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = user;
  j.min_slots = j.max_slots = slots;
  return j;
}

}  // namespace

// schmod_aps (after FCFS, whose order it refines), schmod_slotpool, schmod_jobgroup,
// schmod_gpu, schmod_throttle and schmod_guarantee always run too: LSF has no module
// name for SLOT_POOL, job group limits, GPU devices, Maui's throttles or guarantee
// pools to be listed by.
// schmod_throttle and schmod_guarantee come last.
TEST(Modules, PipelineFollowsLsbModulesWithDefaultAndFcfsFirst) {
  std::vector<std::string> unknown;
  auto p = make_pipeline({"schmod_limit", "schmod_advrsv", "schmod_fcfs", "schmod_limit"}, &unknown);
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[0]->name(), "schmod_default");
  EXPECT_EQ(p[1]->name(), "schmod_fcfs");
  EXPECT_EQ(p[2]->name(), "schmod_aps");
  EXPECT_EQ(p[3]->name(), "schmod_slotpool");
  EXPECT_EQ(p[4]->name(), "schmod_jobgroup");
  EXPECT_EQ(p[5]->name(), "schmod_gpu");
  EXPECT_EQ(p[6]->name(), "schmod_limit");
  EXPECT_EQ(p[7]->name(), "schmod_throttle");
  EXPECT_EQ(p[8]->name(), "schmod_guarantee");
  EXPECT_EQ(unknown, std::vector<std::string>{"schmod_advrsv"});
}

// The pipeline's order is what the modules declare (phase, the modules each runs
// after), not where the registry lists them: listed in any order, they come out in the
// same order, with the configured ones in lsb.modules' order.
TEST(Modules, PipelineOrderIsDeclaredNotPositional) {
  const auto registered = registered_modules();
  ASSERT_EQ(ModuleOrder(registered).error(), "");
  const std::vector<std::string_view> lead = {"schmod_default",  "schmod_fcfs",     "schmod_aps",
                                              "schmod_slotpool", "schmod_jobgroup", "schmod_gpu"};
  const std::vector<std::string_view> close = {"schmod_throttle", "schmod_guarantee"};
  const std::vector<std::vector<std::string>> configs = {
      {},
      {"schmod_limit", "schmod_fairshare", "schmod_parallel", "schmod_reserve", "schmod_preemption"},
      {"schmod_preemption", "schmod_fcfs", "schmod_advrsv", "schmod_limit", "schmod_preemption"},
  };
  std::vector<std::vector<std::string_view>> expected;
  for (const auto& names : configs) {
    std::vector<std::string_view> e = lead;
    for (const auto& n : names)
      if (n != "schmod_fcfs" && n != "schmod_advrsv" && std::find(e.begin(), e.end(), n) == e.end()) e.push_back(n);
    e.insert(e.end(), close.begin(), close.end());
    expected.push_back(e);
  }
  auto check = [&](const std::vector<const ModuleDecl*>& decls) {
    ModuleOrder order(decls);
    ASSERT_EQ(order.error(), "");
    for (size_t c = 0; c < configs.size(); ++c) {
      std::vector<std::string_view> got;
      for (size_t i : order.order(configs[c])) got.push_back(decls[i]->name);
      ASSERT_EQ(got, expected[c]);
    }
  };
  // The registry lists the six that lead first and the two that close next: every
  // order of those (6! x 2! = 1,440 arrays), and the whole array reversed.
  std::vector<const ModuleDecl*> decls(registered.begin(), registered.end());
  ASSERT_EQ(decls[0]->name, "schmod_default");
  ASSERT_EQ(decls[6]->name, "schmod_throttle");
  std::vector<size_t> perm = {0, 1, 2, 3, 4, 5, 6, 7};
  int arrays = 0;
  do {
    do {
      std::vector<const ModuleDecl*> permuted = decls;
      for (size_t i = 0; i < perm.size(); ++i) permuted[i] = decls[perm[i]];
      check(permuted);
      ++arrays;
    } while (std::next_permutation(perm.begin() + 6, perm.end()));
  } while (std::next_permutation(perm.begin(), perm.begin() + 6));
  EXPECT_EQ(arrays, 1440);
  check(std::vector<const ModuleDecl*>(decls.rbegin(), decls.rend()));
  // make_pipeline orders by the same declarations.
  std::vector<std::string_view> made;
  for (const auto& m : make_pipeline(configs[1])) made.push_back(m->name());
  EXPECT_EQ(made, expected[1]);
}

namespace {
std::unique_ptr<Module> no_module() { return nullptr; }
}  // namespace

TEST(Modules, PipelineOrderRefusesCyclesUnknownNamesAndLaterPhases) {
  const ModuleDecl a{"a", Phase::kLead, {"b"}, no_module};
  const ModuleDecl b{"b", Phase::kLead, {"c"}, no_module};
  const ModuleDecl c{"c", Phase::kLead, {"a"}, no_module};
  const ModuleDecl d{"d", Phase::kLead, {}, no_module};
  const ModuleDecl unknown{"u", Phase::kLead, {"d", "nosuch"}, no_module};
  const ModuleDecl closing{"z", Phase::kClose, {}, no_module};
  const ModuleDecl early{"e", Phase::kLead, {"z"}, no_module};
  const ModuleDecl configured{"f", Phase::kConfigured, {"d"}, no_module};

  const std::vector<const ModuleDecl*> cycle = {&d, &a, &b, &c};
  ModuleOrder o1(cycle);
  EXPECT_EQ(o1.error(), "the modules' `after`s make a cycle among: a, b, c");
  EXPECT_TRUE(o1.order({}).empty());

  const std::vector<const ModuleDecl*> no_such = {&d, &unknown};
  EXPECT_EQ(ModuleOrder(no_such).error(), "u runs after nosuch, which is no module");

  const std::vector<const ModuleDecl*> later = {&closing, &early};
  EXPECT_EQ(ModuleOrder(later).error(), "e (lead) runs after z, of the later phase close");

  const std::vector<const ModuleDecl*> twice = {&d, &d};
  EXPECT_EQ(ModuleOrder(twice).error(), "two modules named d");

  // Running after a module of an earlier phase is allowed, and changes nothing.
  const std::vector<const ModuleDecl*> fine = {&closing, &configured, &d};
  ModuleOrder o2(fine);
  EXPECT_EQ(o2.error(), "");
  EXPECT_EQ(o2.order({"f"}), (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(o2.order({}), (std::vector<size_t>{2, 0}));
}

TEST(Modules, FcfsOrdersByQueuePriorityThenPosition) {
  ClusterView v = small_view(1);
  auto policy = std::make_shared<SchedPolicy>(*v.policy);
  QueuePolicy high;
  high.name = "high";
  high.priority = 50;
  policy->queues.push_back(high);
  v.policy = policy;
  v.queues.resize(2);
  std::vector<JobView> jobs = {job(1), job(2), job(3), job(4)};
  jobs[2].queue = 1;
  jobs[3].order = 0;  // btop
  std::vector<std::unique_ptr<Module>> none;
  PassContext ctx(v, 0, none);
  std::vector<const JobView*> order;
  for (const auto& j : jobs) order.push_back(&j);
  make_schmod_fcfs()->order(ctx, order);
  std::vector<std::int64_t> ids;
  for (auto* j : order) ids.push_back(j->key.id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{3, 4, 1, 2}));
}

// FCFS sorts only the queues whose jobs are out of order: the result must be the plain
// sort by (queue PRIORITY, configuration order, -sp, position, job) whatever order the
// jobs come in, with queues of equal priority and runs already in order.
TEST(Modules, FcfsOrderIsTheFullSortForAnyInputOrder) {
  ClusterView v = small_view(1);
  auto policy = std::make_shared<SchedPolicy>(*v.policy);
  for (int priority : {50, 30, 50, 10}) {
    QueuePolicy q;
    q.name = "q" + std::to_string(policy->queues.size());
    q.priority = priority;
    policy->queues.push_back(q);
  }
  policy->max_user_priority = 10;
  v.policy = policy;
  v.queues.resize(policy->queues.size());
  std::mt19937 rng(7);
  std::vector<std::unique_ptr<Module>> none;
  PassContext ctx(v, 0, none);
  for (int round = 0; round < 50; ++round) {
    std::vector<JobView> jobs;
    for (int i = 0; i < 200; ++i) {
      JobView j = job(i + 1);
      j.queue = static_cast<int>(rng() % policy->queues.size());
      // Half the rounds keep submission order, as mbatchd mostly hands jobs over.
      j.order = round % 2 ? static_cast<std::int64_t>(rng() % 50) : i;
      j.user_priority = rng() % 4 == 0 ? static_cast<int>(rng() % 10) : -1;
      jobs.push_back(j);
    }
    std::vector<const JobView*> order;
    for (const auto& j : jobs) order.push_back(&j);
    std::shuffle(order.begin(), order.end(), rng);
    if (round % 4 == 0) std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->key < b->key; });
    std::vector<const JobView*> expected = order;
    auto own = [](const JobView* j) { return j->user_priority >= 0 ? j->user_priority : 5; };
    std::stable_sort(expected.begin(), expected.end(), [&](const JobView* a, const JobView* b) {
      int pa = policy->queues[a->queue].priority, pb = policy->queues[b->queue].priority;
      if (pa != pb) return pa > pb;
      if (a->queue != b->queue) return a->queue < b->queue;
      if (own(a) != own(b)) return own(a) > own(b);
      if (a->order != b->order) return a->order < b->order;
      return a->key < b->key;
    });
    make_schmod_fcfs()->order(ctx, order);
    ASSERT_EQ(order, expected) << "round " << round;
  }
}

TEST(Modules, DefaultRanksByPreferenceThenLoadAndCountsSlots) {
  ClusterView v = small_view(2);
  v.hosts[0].resources["r15s"] = 0.9;
  v.hosts[1].resources["r15s"] = 0.1;
  v.hosts[2].resources["r15s"] = 0.5;
  RunningJobView running;
  running.key = {9, 0};
  running.user = "bob";
  running.hosts = {"hostB", "hostB"};
  v.running.push_back(running);
  auto modules = make_pipeline({});
  PassContext ctx(v, 0, modules);
  auto def = make_schmod_default();
  def->prepare(ctx);
  JobView j = job(1);
  auto asked = std::make_shared<AskedHosts>();
  asked->preference = {{"hostA", 1}, {"hostB", 0}, {"hostC", 0}};
  j.asked_hosts = asked;
  Candidates c;
  c.hosts = {0, 1, 2};
  def->hosts(ctx, j, c);
  EXPECT_EQ(c.hosts, (std::vector<int>{0, 1, 2}));  // hostA preferred, then least r15s
  const char* why = nullptr;
  EXPECT_EQ(def->room(ctx, j, 1, &why), 0);  // hostB holds bob's two slots
  EXPECT_STREQ(why, reason::kHostFull);
  EXPECT_EQ(def->room(ctx, j, 2, &why), 2);
}

// order[]: a host without the index ranks after every host with it, whatever the
// direction; equal values keep the hosts' own order; a second index breaks ties.
TEST(Modules, DefaultRanksHostsWithoutTheOrderIndexLast) {
  ClusterView v = small_view(2);
  HostView d;
  d.name = "hostD";
  d.resources["r15s"] = 0.0;
  v.hosts.push_back(d);
  v.hosts[0].resources["mem"] = 2000.0;  // hostC and hostD report no mem
  v.hosts[1].resources["mem"] = 8000.0;
  v.hosts[2].resources["r15s"] = 0.5;
  auto modules = make_pipeline({});
  PassContext ctx(v, 0, modules);
  auto def = make_schmod_default();
  def->prepare(ctx);
  std::vector<std::shared_ptr<const config::ResourceRequirement>> reqs;  // live for the pass, as a view's
  auto ranked = [&](const char* req) {
    JobView j = job(1);
    j.res_req =
        reqs.emplace_back(std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse(req)));
    Candidates c;
    c.hosts = {0, 1, 2, 3};
    def->hosts(ctx, j, c);
    return c.hosts;
  };
  EXPECT_EQ(ranked("order[mem]"), (std::vector<int>{1, 0, 2, 3}));       // most memory first
  EXPECT_EQ(ranked("order[-mem]"), (std::vector<int>{0, 1, 2, 3}));      // least first; none still last
  EXPECT_EQ(ranked("order[mem:r15s]"), (std::vector<int>{1, 0, 3, 2}));  // r15s orders the two without mem
}

TEST(Modules, LimitCountsRunningAndPlacedSlots) {
  ClusterView v = small_view(8);
  auto policy = std::make_shared<SchedPolicy>(*v.policy);
  policy->user_limits["alice"] = UserSlotLimit{3, std::nullopt};
  policy->queues[0].hjob_limit = 2;
  v.policy = policy;
  RunningJobView running;
  running.key = {9, 0};
  running.user = "alice";
  running.hosts = {"hostA"};
  running.state = RunState::kUsusp;  // suspended jobs count
  v.running.push_back(running);
  std::vector<std::unique_ptr<Module>> none;
  PassContext ctx(v, 0, none);
  auto limit = make_schmod_limit();
  limit->prepare(ctx);
  EXPECT_FALSE(limit->admit(ctx, job(1, "alice", 2)));
  EXPECT_EQ(*limit->admit(ctx, job(2, "alice", 3)), "The user has reached his/her job slot limit (1 of 3 in use)");
  const char* why = nullptr;
  EXPECT_EQ(limit->room(ctx, job(3, "bob"), 0, &why), 1);  // HJOB_LIMIT 2, one used on hostA
  Placement p;
  p.hosts = {{0, 1}};
  limit->commit(ctx, job(3, "bob"), p);
  EXPECT_EQ(limit->room(ctx, job(4, "bob"), 0, &why), 0);
  EXPECT_STREQ(why, reason::kHostQueuePerHost);
}

TEST(Modules, ParallelHonoursPtileAndHostsOne) {
  ClusterView v = small_view(4);
  auto modules = make_pipeline({"schmod_parallel"});
  PassContext ctx(v, 0, modules);
  for (auto& m : modules) m->prepare(ctx);
  Module* parallel = nullptr;
  for (auto& m : modules)
    if (m->name() == "schmod_parallel") parallel = m.get();
  ASSERT_NE(parallel, nullptr);
  Candidates c;
  c.hosts = {0, 1, 2};
  JobView j = job(1, "alice", 5);
  auto ptile = std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse("span[ptile=2]"));
  j.res_req = ptile;
  Placement p;
  EXPECT_EQ(parallel->allocate(ctx, j, c, p), Allocation::kPlaced);
  EXPECT_EQ(p.hosts, (std::vector<std::pair<int, int>>{{0, 2}, {1, 2}, {2, 1}}));
  JobView one = job(2, "alice", 5);
  one.res_req = std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse("span[hosts=1]"));
  Placement q;
  EXPECT_EQ(parallel->allocate(ctx, one, c, q), Allocation::kNoRoom);
  EXPECT_EQ(q.reason, reason::kSpan);
}

TEST(Modules, ReserveHoldsRusageWithDecay) {
  ClusterView v = small_view(8);
  for (auto& h : v.hosts) h.resources["mem"] = 4000.0;
  RunningJobView running;
  running.key = {9, 0};
  running.hosts = {"hostA"};
  running.start_time = 0;
  running.res_req = std::make_shared<config::ResourceRequirement>(
      *config::ResourceRequirement::parse("rusage[mem=2000:duration=10:decay=1]"));
  v.running.push_back(running);
  std::vector<std::unique_ptr<Module>> none;
  PassContext ctx(v, 150, none);  // a quarter of the ten minutes
  make_schmod_reserve()->prepare(ctx);
  EXPECT_DOUBLE_EQ(ctx.numeric(0, "mem"), 4000.0 - 1500.0);
  EXPECT_DOUBLE_EQ(ctx.numeric(1, "mem"), 4000.0);
}

// Each pending reason names its job's place in the view, whatever order the pass
// considered the jobs in (mbatchd finds its own record of the job by it).
TEST(Modules, PendingReasonsNameTheirJobsPlaceInTheView) {
  ClusterView v = small_view(1);
  auto policy = std::make_shared<SchedPolicy>(*v.policy);
  policy->modules = {"schmod_default", "schmod_fcfs"};
  v.policy = policy;
  for (std::int64_t id = 1; id <= 6; ++id) v.pending.push_back(job(id));
  std::reverse(v.pending.begin(), v.pending.end());  // the pass goes by position, not view order
  v.pending[1].held = true;                          // refused before host matching
  PassResult r = schedule(v, 100);
  ASSERT_EQ(r.dispatches.size(), 3u);
  ASSERT_EQ(r.reasons.size(), 3u);
  for (const auto& reason : r.reasons) {
    ASSERT_GE(reason.view_index, 0);
    ASSERT_LT(static_cast<size_t>(reason.view_index), v.pending.size());
    EXPECT_EQ(v.pending[static_cast<size_t>(reason.view_index)].key, reason.job);
  }
}

// What select[], order[] and the thresholds read of each host: its own number for the
// name, whatever other resources it has and in whatever place; NaN where it has none
// or a string; less what started jobs reserve there.
TEST(Modules, ResourceColumnsHoldEachHostsOwnNumbers) {
  ClusterView v = small_view(4);
  v.hosts[0].resources = {{"a", 1.0}, {"b", 2.0}, {"c", 3.0}};
  v.hosts[1].resources = {{"b", 5.0}, {"c", 6.0}};               // b and c one place earlier
  v.hosts[2].resources = {{"a", std::string("x")}, {"c", 9.0}};  // a as a string
  std::vector<std::unique_ptr<Module>> none;
  PassContext ctx(v, 0, none);
  auto column = [&](const char* name) {
    std::string out;
    for (double x : ctx.column(name)) out += (std::isnan(x) ? std::string("-") : format_amount(x)) + " ";
    return out;
  };
  EXPECT_EQ(column("a"), "1 - - ");
  EXPECT_EQ(column("b"), "2 5 - ");
  EXPECT_EQ(column("c"), "3 6 9 ");
  EXPECT_EQ(column("d"), "- - - ");
  ctx.hosts[1].reserved["c"] = 2.0;
  EXPECT_EQ(ctx.numeric(1, "c"), 4.0);
  EXPECT_TRUE(std::isnan(ctx.numeric(0, "d")));
}
