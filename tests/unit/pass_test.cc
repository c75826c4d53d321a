// The minimal scheduling pass: queue priority, FCFS, slots, -m, select[], span,
// exclusive, array limits, and a reason for every job left pending. Deterministic.
#include <gtest/gtest.h>

#include "libsched/pass.h"
#include "libsched/pending_reason.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

ClusterView three_hosts(int slots) {
  ClusterView v;
  for (const char* h : {"hostA", "hostB", "hostC"}) {
    HostView hv;
    hv.name = h;
    hv.max_slots = slots;
    hv.resources["type"] = std::string("LINUX64");
    v.hosts.push_back(hv);
  }
  v.hosts[2].resources["bigmem"] = 1.0;
  QueueView low{"normal", 30, true, "", {}, true, -1, 0};
  QueueView high{"short", 40, true, "", {}, true, -1, 0};
  v.queues = {low, high};
  return v;
}

JobView job(std::int64_t id, int queue, int slots = 1) {
  JobView j;
  j.key = {id, 0};
  j.queue = queue;
  j.order = id;
  j.slots = slots;
  return j;
}

const Dispatch* find(const PassResult& r, std::int64_t id) {
  for (const auto& d : r.dispatches)
    if (d.job.id == id) return &d;
  return nullptr;
}
std::string reason_of(const PassResult& r, std::int64_t id) {
  for (const auto& p : r.reasons)
    if (p.job.id == id) return p.text;
  return "";
}

}  // namespace

TEST(Pass, HigherPriorityQueueFirstThenFcfs) {
  auto v = three_hosts(1);
  v.pending = {job(1, 0), job(2, 0), job(3, 1), job(4, 1)};
  auto r = schedule(v, 0);
  ASSERT_EQ(r.dispatches.size(), 3u);
  EXPECT_EQ(r.dispatches[0].job.id, 3);  // short (40) before normal (30)
  EXPECT_EQ(r.dispatches[1].job.id, 4);
  EXPECT_EQ(r.dispatches[2].job.id, 1);  // then FCFS in normal
  EXPECT_EQ(reason_of(r, 2), "Not enough job slot(s): 3 hosts");
}

TEST(Pass, ParallelJobsTakeSlotsAcrossHostsAndSpan) {
  auto v = three_hosts(4);
  auto a = job(1, 0, 9);
  auto b = job(2, 0, 4);
  b.res_req = std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse("span[hosts=1]"));
  v.pending = {a, b};
  auto r = schedule(v, 0);
  ASSERT_NE(find(r, 1), nullptr);
  EXPECT_EQ(find(r, 1)->hosts.size(), 9u);
  // Nine slots on three hosts of four leave no host with four free.
  EXPECT_EQ(find(r, 2), nullptr);
  EXPECT_EQ(reason_of(r, 2), reason::kSpan);
}

TEST(Pass, AskedHostsAndSelect) {
  auto v = three_hosts(2);
  auto a = job(1, 0);
  a.asked_hosts = {"hostB"};
  auto b = job(2, 0);
  b.res_req = std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse("select[bigmem]"));
  auto c = job(3, 0);
  c.res_req = std::make_shared<config::ResourceRequirement>(*config::ResourceRequirement::parse("select[type==SUN]"));
  v.pending = {a, b, c};
  auto r = schedule(v, 0);
  EXPECT_EQ(find(r, 1)->hosts, std::vector<std::string>{"hostB"});
  EXPECT_EQ(find(r, 2)->hosts, std::vector<std::string>{"hostC"});
  EXPECT_EQ(reason_of(r, 3), "Job's resource requirements not satisfied: 3 hosts");
}

TEST(Pass, HostStatusExclusiveAndWaits) {
  auto v = three_hosts(4);
  v.hosts[0].status = "closed_Adm";
  v.hosts[1].status = "unreach";
  v.hosts[2].used_slots = 1;
  auto x = job(1, 0);
  x.exclusive = true;
  auto held = job(2, 0);
  held.held = true;
  auto later = job(3, 0);
  later.begin_time = 100;
  auto dep = job(4, 0);
  dep.dependency = DependencyState::kWaiting;
  v.pending = {x, held, later, dep};
  auto r = schedule(v, 50);
  EXPECT_TRUE(r.dispatches.empty());
  EXPECT_EQ(reason_of(r, 1), "Closed by LSF administrator: 1 host; Not enough job slot(s): 1 host; "
                          "Unable to reach slave batch server: 1 host");
  EXPECT_EQ(reason_of(r, 2), reason::kHeld);
  EXPECT_EQ(reason_of(r, 3), reason::kBeginTime);
  EXPECT_EQ(reason_of(r, 4), reason::kDependency);
}

TEST(Pass, ArrayLimitAndInactiveQueue) {
  auto v = three_hosts(4);
  v.queues[1].dispatching = false;
  v.queues[1].inactive_reason = reason::kQueueInactive;
  std::vector<JobView> jobs;
  for (int i = 1; i <= 4; ++i) {
    JobView e = job(9, 0);
    e.key.index = i;
    e.array_limit = 2;
    jobs.push_back(e);
  }
  jobs.push_back(job(10, 1));
  v.pending = jobs;
  v.array_running[9] = 1;
  auto r = schedule(v, 0);
  ASSERT_EQ(r.dispatches.size(), 1u);  // one running already, limit 2
  EXPECT_EQ(r.dispatches[0].job.index, 1);
  EXPECT_EQ(reason_of(r, 10), reason::kQueueInactive);
}

TEST(Pass, SameViewSameDecisions) {
  auto v = three_hosts(3);
  for (int i = 1; i <= 20; ++i) v.pending.push_back(job(i, i % 2, 1 + i % 3));
  auto copy = v;
  auto a = schedule(v, 0), b = schedule(v, 0), c = schedule(copy, 0);
  auto flat = [](const PassResult& r) {
    std::string s;
    for (const auto& d : r.dispatches) {
      s += std::to_string(d.job.id) + ":";
      for (const auto& h : d.hosts) s += h + ",";
    }
    for (const auto& p : r.reasons) s += std::to_string(p.job.id) + "=" + p.text + ";";
    return s;
  };
  EXPECT_EQ(flat(a), flat(b));
  EXPECT_EQ(flat(a), flat(c));
}
