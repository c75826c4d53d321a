// Job group limits (bgadd -L) in the pass: a group and every group above it bound how
// many of their jobs are started, counted in jobs, with what the pass itself starts.
#include <gtest/gtest.h>

#include <algorithm>

#include "libsched/pass.h"
#include "one_host_cluster.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

JobView pending(std::int64_t id, int group, int slots = 1) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = "alice";
  j.min_slots = j.max_slots = slots;
  j.job_group = group;
  return j;
}

std::vector<std::int64_t> started(const PassResult& r) {
  std::vector<std::int64_t> ids;
  for (const auto& d : r.dispatches) ids.push_back(d.job.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string reason_of(const PassResult& r, std::int64_t id) {
  for (const auto& why : r.reasons)
    if (why.job.id == id) return *why.text;
  return "";
}

}  // namespace

// /risk (limit 3) holds /risk/a (limit 2) and /risk/b (no limit of its own). One job of
// /risk/b already runs. Jobs 1-3 in /risk/a, 4-6 in /risk/b, on 16 free slots.
TEST(JobGroups, EachGroupAndTheGroupsAboveItBoundItsStartedJobs) {
  auto c = lsf::testing::one_host_cluster(16, {});
  auto& v = c->view;
  v.job_groups = {{"/risk", -1, 3, 0}, {"/risk/a", 0, 2, 0}, {"/risk/b", 0, -1, 1}};
  v.running.push_back(lsf::testing::running_on_host1(100, "alice", 1));
  for (std::int64_t id = 1; id <= 3; ++id) v.pending.push_back(pending(id, 1, id == 1 ? 4 : 1));
  for (std::int64_t id = 4; id <= 6; ++id) v.pending.push_back(pending(id, 2));
  auto r = schedule(v, 10);
  // /risk/a takes two (a job of 4 slots counts as one job); /risk is then at 3 of 3.
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(reason_of(r, 3), "The job group has reached its job limit: /risk/a (2 of 2 started)");
  EXPECT_EQ(reason_of(r, 4), "The job group has reached its job limit: /risk (3 of 3 started)");

  // Without the limit above, /risk/b has none of its own: all of its jobs start.
  v.job_groups[0].limit = -1;
  r = schedule(v, 10);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{1, 2, 4, 5, 6}));

  // A limit of 0 lets nothing start; jobs of no group are not held back.
  v.job_groups[1].limit = 0;
  v.pending.push_back(pending(7, -1));
  r = schedule(v, 10);
  EXPECT_EQ(started(r), (std::vector<std::int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(reason_of(r, 1), "The job group has reached its job limit: /risk/a (0 of 0 started)");
}
