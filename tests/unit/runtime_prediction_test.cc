// RUNTIME_ESTIMATE = PREDICT, BACKFILL_ORDER = SHORTEST and BACKFILL_MAX_WAIT: the
// estimate rules, and hand-worked traces where each changes a start, run through the
// simulator (the pass mbatchd runs). Four hosts of one slot, the literature's EASY
// (RESERVATION_MODEL = PLAN, RESERVATION_DEPTH = 1). Job (submit, -W, runtime, slots,
// user).
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "config_tree.h"
#include "libsched/runtime_estimate.h"
#include "libsched/sim/cluster_model.h"
#include "libsched/sim/simulator.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

TEST(RuntimeEstimate, MeanOfTheUsersLastTwoCappedByTheLimit) {
  RuntimeHistory h;
  EXPECT_FALSE(h.predicted("alice"));
  EXPECT_EQ(predicted_estimate(h, "alice", 600), 600);  // no history: the run limit
  EXPECT_EQ(predicted_estimate(h, "alice", 0), 0);      // nor a limit: unknown
  h.finished("alice", 100);
  EXPECT_EQ(predicted_estimate(h, "alice", 600), 100);
  h.finished("alice", 301);
  EXPECT_EQ(predicted_estimate(h, "alice", 600), 201);  // (100 + 301) / 2, rounded up
  h.finished("alice", 900);                             // the oldest drops out
  EXPECT_EQ(*h.predicted("alice"), 601);
  EXPECT_EQ(predicted_estimate(h, "alice", 600), 600);  // never past the limit
  EXPECT_EQ(predicted_estimate(h, "alice", 0), 601);
  h.finished("bob", 0);
  EXPECT_EQ(predicted_estimate(h, "bob", 600), 1);  // at least a second
  EXPECT_EQ(h.users(), 2u);
}

TEST(RuntimeEstimate, OutlivedEstimatesGrowToTheLimit) {
  EXPECT_EQ(extended_estimate(100, 99, 3600), 100);
  EXPECT_EQ(extended_estimate(100, 100, 3600), 3600);
  EXPECT_EQ(extended_estimate(100, 5000, 0), 0);  // no limit: its end is unknown
  EXPECT_EQ(extended_estimate(0, 5000, 3600), 0);
}

struct J {
  int id, submit, limit, run, slots;
  const char* user;
};

using Starts = std::map<std::int64_t, std::int64_t>;

struct Outcome {
  Starts starts;
  std::map<std::int64_t, bool> killed;
};

Outcome simulate(const std::string& queue_lines, const std::vector<J>& trace, int depth = 1) {
  lsf::testing::ConfigTree tree;
  tree.lsb("lsb.queues",
           "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nSLOT_RESERVE = MAX_RESERVE_TIME[1000]\n"
           "RESERVATION_MODEL = PLAN\n" +
               queue_lines + "End Queue\n");
  tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\nRESERVATION_DEPTH = " + std::to_string(depth) +
                             "\nEnd Parameters\n");
  auto loaded = tree.load();
  EXPECT_TRUE(loaded.usable());
  std::vector<sim::Job> jobs;
  for (const auto& t : trace) {
    sim::Job j;
    j.id = t.id;
    j.submit = t.submit;
    j.run_limit = t.limit;
    j.runtime = t.run;
    j.procs = t.slots;
    j.user = t.user;
    jobs.push_back(j);
  }
  auto result = sim::simulate(sim::model_cluster(*loaded.config, {4, 1}), jobs);
  Outcome out;
  for (const auto& o : result.jobs) {
    out.starts[o.id] = o.start;
    out.killed[o.id] = o.killed;
  }
  return out;
}

// 1 (0, 100, 10, 1, u) and 2 (0, 100, 40, 3, v) start at 0; 1 ends at 10, so u's
// prediction is 10. 3 (11, 100, 10, 4, w) needs all four slots: v has no history, so 2
// is planned to its limit and 3 books 100. 4 (12, 100, 30, 1, u):
//  - with run limits it would hold its slot to 112, past 3's booking: it waits, 3
//    starts at 40 when 2 ends, 4 at 50;
//  - predicted at 10 (ends 22, before 100) it backfills at 12. Once running it is
//    planned to its limit, so at 40 (2 ends) 3 books 112 for the slot 4 holds; 4
//    ends at 42, running three times its prediction, and 3 starts then.
// 5 (50, 5, 20, 1, u) is killed at its limit either way; u's prediction (10 + 30) / 2 = 20
// is capped at the limit, 5. With predictions it waits for 3 (42-52).
const std::vector<J> kTrace = {
    {1, 0, 100, 10, 1, "u"},  {2, 0, 100, 40, 3, "v"}, {3, 11, 100, 10, 4, "w"},
    {4, 12, 100, 30, 1, "u"}, {5, 50, 5, 20, 1, "u"},
};

TEST(RuntimePrediction, AShortPredictionBackfillsAndTheKillIsAtTheLimit) {
  auto limit = simulate("", kTrace);
  EXPECT_EQ(limit.starts, (Starts{{1, 0}, {2, 0}, {3, 40}, {4, 50}, {5, 50}}));
  auto predicted = simulate("RUNTIME_ESTIMATE = PREDICT\n", kTrace);
  EXPECT_EQ(predicted.starts, (Starts{{1, 0}, {2, 0}, {3, 42}, {4, 12}, {5, 52}}));
  EXPECT_TRUE(limit.killed[5]);
  EXPECT_TRUE(predicted.killed[5]);
  EXPECT_FALSE(predicted.killed[4]);
  // The same input, the same schedule.
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\n", kTrace).starts, predicted.starts);
}

// A running job's slots are planned free at its run limit, not its prediction. 1 (0,
// 100, 10, 1, u) gives u a prediction of 10. 2 (20, 120, 60, 1, u) and 3 (20, 100, 100,
// 2, v) start at 20. 4 (21, 100, 10, 2, w) needs two slots, one is free: it books 120,
// when 3 reaches its limit (2's is 140). 5 (22, 50, 50, 1, x) ends by 72: it backfills
// at 22. 2 ends at 80 and 4 starts. Had 2 been planned to end at its prediction (30),
// 4 would have booked 30 and 5 waited until 2 outlived it.
TEST(RuntimePrediction, RunningJobsArePlannedToTheirLimit) {
  const std::vector<J> trace = {{1, 0, 100, 10, 1, "u"},
                                {2, 20, 120, 60, 1, "u"},
                                {3, 20, 100, 100, 2, "v"},
                                {4, 21, 100, 10, 2, "w"},
                                {5, 22, 50, 50, 1, "x"}};
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\n", trace).starts,
            (Starts{{1, 0}, {2, 20}, {3, 20}, {4, 80}, {5, 22}}));
}

// 1 (0, 100, 100, 3) runs; 2 (1, 100, 10, 4) books 100; 3 (2, 50, 50, 1) and
// 4 (2, 10, 10, 1) both fit the free slot before 100. In queue order 3 takes it and 4
// waits for it (52); shortest first, 4 goes at 2 and 3 follows at 12 (ends 62 < 100).
TEST(RuntimePrediction, ShortestFirstBackfillsTheShortJobFirst) {
  const std::vector<J> trace = {
      {1, 0, 100, 100, 3, "a"}, {2, 1, 100, 10, 4, "a"}, {3, 2, 50, 50, 1, "a"}, {4, 2, 10, 10, 1, "a"}};
  EXPECT_EQ(simulate("", trace).starts, (Starts{{1, 0}, {2, 100}, {3, 2}, {4, 52}}));
  EXPECT_EQ(simulate("BACKFILL_ORDER = SHORTEST\n", trace).starts, (Starts{{1, 0}, {2, 100}, {3, 12}, {4, 2}}));
}

// 1 (0, 100, 10, 1, u) gives u a prediction of 10. 2 (0, 100, 95, 3, v) runs to 95;
// 3 (11, 100, 10, 4, w) books 100. 4 (80, 100, 30, 1, u), predicted 10, would end at
// 90: it backfills and, running 30, holds 3 off until 110. With BACKFILL_MAX_WAIT = 1
// (minute), 3 has waited 69 s at 80: plans count run limits, 4 (to 180) may not start,
// 3 starts at 95 and 4 after it, at 105.
TEST(RuntimePrediction, MaxWaitPlansWithRunLimitsOnceAJobHasWaitedThatLong) {
  const std::vector<J> trace = {
      {1, 0, 100, 10, 1, "u"}, {2, 0, 100, 95, 3, "v"}, {3, 11, 100, 10, 4, "w"}, {4, 80, 100, 30, 1, "u"}};
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\n", trace).starts, (Starts{{1, 0}, {2, 0}, {3, 110}, {4, 80}}));
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\nBACKFILL_MAX_WAIT = 1\n", trace).starts,
            (Starts{{1, 0}, {2, 0}, {3, 95}, {4, 105}}));
}

// Jobs past BACKFILL_MAX_WAIT are backfilled in queue order, before the others: by
// length among themselves, the longest would be passed for ever again. 1 (0, 200, 200,
// 1) and 2 (0, 1000, 1000, 3) start; 3 (0, 100, 10, 4) books 1000. At 200 one slot comes
// free and 4 (1, 600, 500, 1) and 5 (2, 100, 10, 1) have waited past the minute: 4
// takes the slot (to 800 at most, before 3's start) and 5 books 800 on its limit;
// 4 ends at 700 and 5 starts then. Shortest first among them, 5 would have gone at 200
// and 4 at 210.
TEST(RuntimePrediction, JobsPastMaxWaitGoInQueueOrder) {
  const std::vector<J> trace = {{1, 0, 200, 200, 1, "a"},
                                {2, 0, 1000, 1000, 3, "d"},
                                {3, 0, 100, 10, 4, "h"},
                                {4, 1, 600, 500, 1, "b"},
                                {5, 2, 100, 10, 1, "c"}};
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\nBACKFILL_ORDER = SHORTEST\nBACKFILL_MAX_WAIT = 1\n", trace).starts,
            (Starts{{1, 0}, {2, 0}, {3, 1000}, {4, 200}, {5, 700}}));
}

// Only the jobs past BACKFILL_MAX_WAIT are planned on run limits; the others go on
// with predictions. RESERVATION_DEPTH = 2. 1 (0, 100, 10, 1, u) gives u a prediction
// of 10; 2 (0, 1000, 1000, 2) and 3 (0, 300, 300, 1) run. 4 (1, 100, 100, 3) waits; at
// 150 it is past the minute and books 1000 on run limits. 5 (150, 100, 100, 2) books
// 300, when 3 ends. 6 (160, 200, 10, 1, u), predicted 10, ends before 300: it starts at
// 160 (and by its limit, 360, it is still before 4's start). Had every plan counted
// run limits while 4 waited, 6 would have held 5 off and waited for it, to 400.
TEST(RuntimePrediction, OnlyJobsPastMaxWaitArePlannedOnRunLimits) {
  const std::vector<J> trace = {{1, 0, 100, 10, 1, "u"},  {2, 0, 1000, 1000, 2, "a"}, {3, 0, 300, 300, 1, "b"},
                                {4, 1, 100, 100, 3, "o"}, {5, 150, 100, 100, 2, "n"}, {6, 160, 200, 10, 1, "u"}};
  EXPECT_EQ(simulate("RUNTIME_ESTIMATE = PREDICT\nBACKFILL_MAX_WAIT = 1\n", trace, 2).starts,
            (Starts{{1, 0}, {2, 0}, {3, 0}, {4, 1000}, {5, 300}, {6, 160}}));
}

}  // namespace
