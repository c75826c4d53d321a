// Queue-based fairshare (schmod_slotpool): every worked example of policies.md §2 and
// the rounding examples of lsf.md §7.2, on the configured hosts of ConfigTree (hostA,
// hostB, hostC).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "config_tree.h"
#include "libsched/pass.h"
#include "libsched/pass_apply.h"
#include "libsched/sim/cluster_model.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

struct Cluster {
  lsf::testing::ConfigTree tree;
  ClusterView view;
  std::int64_t next_id = 1;

  Cluster(const std::string& queues, int mxj, const std::string& params = "") {
    tree.lsb("lsb.queues", queues);
    tree.lsb("lsb.hosts", "Begin Host\nHOST_NAME MXJ\ndefault " + std::to_string(mxj) + "\nEnd Host\n");
    tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\n" + params + "End Parameters\n");
    auto loaded = tree.load();
    EXPECT_TRUE(loaded.usable());
    view = sim::model_cluster(*loaded.config, {0, 1});
  }
  int queue(const std::string& name) const { return view.policy->queue_index(name); }
  void submit(const std::string& q, int jobs) {
    for (int i = 0; i < jobs; ++i) {
      JobView j;
      j.key = {next_id, 0};
      j.order = next_id++;
      j.queue = queue(q);
      view.pending.push_back(j);
    }
  }
  // One pass; what started starts. Returns slots started per queue name.
  std::map<std::string, int> pass(std::int64_t now = 100, PassResult* out = nullptr) {
    PassResult r = schedule(view, now);
    std::map<std::string, int> per_queue;
    for (const auto& d : r.dispatches) {
      auto it = std::find_if(view.pending.begin(), view.pending.end(), [&](auto& j) { return j.key == d.job; });
      per_queue[view.policy->queues[static_cast<size_t>(it->queue)].name] += static_cast<int>(d.hosts.size());
    }
    apply(view, r, now);
    if (out) *out = std::move(r);
    return per_queue;
  }
  void finish(const std::string& q, int jobs) {
    for (auto it = view.running.begin(); it != view.running.end() && jobs > 0;)
      if (it->queue == queue(q)) {
        it = view.running.erase(it);
        --jobs;
      } else {
        ++it;
      }
  }
};

std::string queue_text(const std::string& name, int prio, const std::string& extra) {
  return "Begin Queue\nQUEUE_NAME = " + name + "\nPRIORITY = " + std::to_string(prio) + "\n" + extra + "End Queue\n";
}
std::string pooled(const std::string& name, int prio, int share, const std::string& pool = "poolA",
                   const std::string& hosts = "hostA hostB", const std::string& extra = "") {
  return queue_text(
      name, prio,
      "SLOT_POOL = " + pool + "\nSLOT_SHARE = " + std::to_string(share) + "\nHOSTS = " + hosts + "\n" + extra);
}
using Counts = std::map<std::string, int>;

// 2 hosts x MXJ 6 = 12 slots; 50 % -> 6, 30 % (3.6) -> 4, 20 % (2.4) -> 3 would pass 12,
// so 2.
TEST(SlotPool, TwelveSlotsAtFiftyThirtyTwenty) {
  Cluster c(pooled("queue1", 50, 50) + pooled("queue2", 40, 30) + pooled("queue3", 30, 20), 6);
  for (const char* q : {"queue1", "queue2", "queue3"}) c.submit(q, 20);
  PassResult r;
  EXPECT_EQ(c.pass(100, &r), (Counts{{"queue1", 6}, {"queue2", 4}, {"queue3", 2}}));
  bool said = false;
  for (const auto& p : r.reasons)
    if (c.view.pending[0].key == p.job)
      said = *p.text == "The queue's share of its slot pool has been reached (6 of 6 slots in use)";
  EXPECT_TRUE(said);
}

// 15 slots at 50/30/20 -> 8/5/2 (the lowest share loses the remainder); with queue2
// idle -> 11/0/4; a queue alone with pending jobs takes all 15.
TEST(SlotPool, RoundingAndIdleQueuesAndALoneQueue) {
  const std::string three = "hostA hostB hostC";
  auto queues = pooled("queue1", 50, 50, "p", three) + pooled("queue2", 40, 30, "p", three) +
                pooled("queue3", 30, 20, "p", three);
  {
    Cluster c(queues, 5);
    for (const char* q : {"queue1", "queue2", "queue3"}) c.submit(q, 20);
    EXPECT_EQ(c.pass(), (Counts{{"queue1", 8}, {"queue2", 5}, {"queue3", 2}}));
  }
  {
    Cluster c(queues, 5);
    for (const char* q : {"queue1", "queue3"}) c.submit(q, 20);
    EXPECT_EQ(c.pass(), (Counts{{"queue1", 11}, {"queue3", 4}}));
  }
  {
    Cluster c(queues, 5);
    c.submit("queue2", 20);
    EXPECT_EQ(c.pass(), (Counts{{"queue2", 15}}));
  }
}

// queue4 is in no pool but runs on the pool's hosts with a higher priority: it takes
// what it can first. The pool's total stays 12, so its queues' parts (6/4/2) no longer
// fit: queue1 takes the six slots left and queue2 and queue3 wait for hosts although
// their shares add up.
TEST(SlotPool, QueueOutsideThePoolTakesSlotsFirst) {
  Cluster c(queue_text("queue4", 60, "HOSTS = hostA hostB\n") + pooled("queue1", 50, 50) + pooled("queue2", 40, 30) +
                pooled("queue3", 30, 20),
            6);
  c.submit("queue4", 6);
  for (const char* q : {"queue1", "queue2", "queue3"}) c.submit(q, 20);
  PassResult r;
  EXPECT_EQ(c.pass(100, &r), (Counts{{"queue4", 6}, {"queue1", 6}}));
  for (const auto& p : r.reasons)
    for (const auto& j : c.view.pending)
      if (j.key == p.job && j.queue == c.queue("queue3")) {
        EXPECT_EQ(*p.text, "Not enough job slot(s): 2 hosts; Not usable to the queue: 1 host");
      }
}

// Two pools (queue1-3 on hostA, queue6-8 on hostB) and queue4, queue5 in none, on both:
// jobs are dispatched queue1, queue2, ..., queue8, by priority; pool queues up to their
// parts, the others as many as they can.
TEST(SlotPool, TwoPoolsDispatchInPriorityOrder) {
  std::string q = pooled("queue1", 80, 50, "A", "hostA") + pooled("queue2", 70, 30, "A", "hostA") +
                  pooled("queue3", 60, 20, "A", "hostA") + queue_text("queue4", 55, "") + queue_text("queue5", 50, "") +
                  pooled("queue6", 40, 50, "B", "hostB") + pooled("queue7", 30, 30, "B", "hostB") +
                  pooled("queue8", 20, 20, "B", "hostB");
  Cluster c(q, 10);
  for (const char* name : {"queue1", "queue2", "queue3", "queue6", "queue7", "queue8"}) c.submit(name, 10);
  c.submit("queue4", 3);
  c.submit("queue5", 3);
  PassResult r;
  auto counts = c.pass(100, &r);
  // Pool A: 10 slots at 50/30/20 -> 5/3/2 fill hostA. queue4 and queue5 come next and
  // take six slots of hostB (the first host with room). Pool B's parts are still 5/3/2
  // of 10, but only 4 slots are left: queue6, first by priority, takes them.
  EXPECT_EQ(counts, (Counts{{"queue1", 5}, {"queue2", 3}, {"queue3", 2}, {"queue4", 3}, {"queue5", 3}, {"queue6", 4}}));
  std::vector<int> order;
  for (const auto& d : r.dispatches)
    for (const auto& j : c.view.running)
      if (j.key == d.job) order.push_back(j.queue);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << "dispatched out of priority order";
}

// 100 slots at 50/30/20 with QJOB_LIMIT = 40 on queue1: it runs 40, and the other 10
// of its 50 go to queue2 and queue3 (60 at 30/20: 36/24).
TEST(SlotPool, QueueLimitBelowItsPartGivesTheRestToTheOthers) {
  std::string three = "hostA hostB hostC";
  Cluster c(pooled("queue1", 50, 50, "p", three, "QJOB_LIMIT = 40\nMAX_SLOTS_IN_POOL = 100\n") +
                pooled("queue2", 40, 30, "p", three) + pooled("queue3", 30, 20, "p", three),
            40);
  for (const char* q : {"queue1", "queue2", "queue3"}) c.submit(q, 60);
  EXPECT_EQ(c.pass(), (Counts{{"queue1", 40}, {"queue2", 36}, {"queue3", 24}}));
}

// queue1 idle: queue2 and queue3 split 12 (30/20 -> 8/4). Then queue1 gets jobs: nothing
// is preempted, and as slots free up they go to queue1, not back to queue2.
TEST(SlotPool, IdleQueuesSlotsComeBackThroughDispatchNotPreemption) {
  Cluster c(pooled("queue1", 50, 50) + pooled("queue2", 40, 30) + pooled("queue3", 30, 20), 6);
  c.submit("queue2", 20);
  c.submit("queue3", 20);
  EXPECT_EQ(c.pass(100), (Counts{{"queue2", 8}, {"queue3", 4}}));
  c.submit("queue1", 20);
  PassResult r;
  EXPECT_EQ(c.pass(200, &r), Counts{});
  EXPECT_TRUE(r.suspends.empty());
  c.finish("queue2", 2);
  EXPECT_EQ(c.pass(300), (Counts{{"queue1", 2}}));
  c.finish("queue2", 3);
  c.finish("queue3", 1);
  EXPECT_EQ(c.pass(400), (Counts{{"queue1", 4}}));  // queue1 at its 6; queue2 holds 3 of 4
}

// Two pool queues of one priority, 50/50 of 2 slots, and a queue outside the pool that
// took one: the last slot goes to the queue that used less per share. queue1 used 100
// slot-hours two days ago, queue2 10 slot-hours an hour ago: with HIST_HOURS = 5
// queue1's use has decayed below queue2's and queue1 goes first; without decay queue2.
TEST(SlotPool, AccumulatedUseDecays) {
  auto first = [](const std::string& params) {
    Cluster c(queue_text("other", 60, "HOSTS = hostA\n") + pooled("queue1", 40, 50, "p", "hostA") +
                  pooled("queue2", 40, 50, "p", "hostA"),
              2, params);
    auto history = std::make_shared<ShareHistory>();
    const std::int64_t now = 100 * 3600;
    double hist = c.view.policy->queues[static_cast<size_t>(c.queue("queue1"))].hist_hours;
    history->charge("queue1", "", {0, 100 * 3600.0}, now - 48 * 3600, hist);
    history->charge("queue2", "", {0, 10 * 3600.0}, now - 3600, hist);
    c.view.share_history = history;
    c.submit("other", 1);
    c.submit("queue2", 1);
    c.submit("queue1", 1);
    auto counts = c.pass(now);
    EXPECT_EQ(counts["other"], 1);
    return counts["queue1"] == 1 ? std::string("queue1") : counts["queue2"] == 1 ? "queue2" : "none";
  };
  EXPECT_EQ(first("HIST_HOURS = 5\n"), "queue1");
  EXPECT_EQ(first("HIST_HOURS = 0\n"), "queue2");
}

// 12 slots at 50/50, and each queue's first job asks for 10: bigger than either part.
// With nothing running in the pool the first of them starts (the pool would otherwise
// stay idle for good); the other waits until the pool is empty again.
TEST(SlotPool, AJobBiggerThanItsPartStartsWhenThePoolIsEmpty) {
  Cluster c(pooled("queue1", 50, 50) + pooled("queue2", 40, 50), 6);
  for (const char* q : {"queue1", "queue2"}) {
    JobView j;
    j.key = {c.next_id, 0};
    j.order = c.next_id++;
    j.queue = c.queue(q);
    j.min_slots = j.max_slots = 10;
    c.view.pending.push_back(j);
  }
  EXPECT_EQ(c.pass(100), (Counts{{"queue1", 10}}));
  EXPECT_EQ(c.pass(200), Counts{});
  c.finish("queue1", 1);
  EXPECT_EQ(c.pass(300), (Counts{{"queue2", 10}}));
}

// queue1 is entitled to 6 of 12 but has only two jobs: without USE_PRIORITY_IN_POOL
// its four other slots stay free (2/4/2); with it, once every job has had its turn the
// held-back jobs take them in dispatch order: queue2 first (2/8/2).
TEST(SlotPool, UsePriorityInPoolGivesUnusedSlotsToHeldBackJobs) {
  for (bool flag : {false, true}) {
    Cluster c(pooled("queue1", 50, 50, "poolA", "hostA hostB", flag ? "USE_PRIORITY_IN_POOL = Y\n" : "") +
                  pooled("queue2", 40, 30) + pooled("queue3", 30, 20),
              6);
    c.submit("queue1", 2);
    c.submit("queue2", 20);
    c.submit("queue3", 20);
    PassResult r;
    EXPECT_EQ(c.pass(100, &r), flag ? (Counts{{"queue1", 2}, {"queue2", 8}, {"queue3", 2}})
                                    : (Counts{{"queue1", 2}, {"queue2", 4}, {"queue3", 2}}))
        << "USE_PRIORITY_IN_POOL " << flag;
    // Every job left pending has exactly one reason.
    EXPECT_EQ(r.reasons.size(), c.view.pending.size());
  }
}

}  // namespace
