// The first 2,000 jobs of every trace in ../shared/workloads, simulated with EASY
// backfill (SLOT_RESERVE, BACKFILL, RESERVATION_DEPTH=1) and with conservative backfill
// (RESERVATION_MODEL = PLAN, every job planning) on the trace's machine, with
// invariants checked after every pass: no host holds more jobs than its slots, no job
// starts before it is submitted, every job ends (or could never fit), and no job starts
// later than any start the pass promised it while it held a reservation (a backfilled
// job never delays it).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "cli/bsim/trace_jobs.h"
#include "config_tree.h"
#include "libsched/sim/cluster_model.h"
#include "libsched/sim/simulator.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

std::filesystem::path workloads() { return std::filesystem::path(LSFSCHED_SOURCE_DIR) / "../shared/workloads"; }

std::vector<std::string> traces() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(workloads(), ec))
    if (e.path().string().ends_with(".swf.gz")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct Run {
  std::string trace;
  bool conservative;
};

class TraceInvariants : public ::testing::TestWithParam<Run> {};

TEST_P(TraceInvariants, First2000Jobs) {
  auto trace = bsim::read_swf(GetParam().trace, 2000);
  ASSERT_TRUE(trace.max_procs || trace.max_nodes) << "no MaxProcs or MaxNodes in " << GetParam().trace;
  lsf::testing::ConfigTree tree;
  tree.lsb("lsb.queues",
           "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nSLOT_RESERVE = MAX_RESERVE_TIME[1000000]\n"
           "BACKFILL = Y\nEnd Queue\n");
  tree.lsb("lsb.params", std::string("Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\n") +
                             (GetParam().conservative ? "RESERVATION_MODEL = PLAN\n" : "RESERVATION_DEPTH = 1\n") +
                             "End Parameters\n");
  auto loaded = tree.load();
  ASSERT_TRUE(loaded.usable());
  const int slots = static_cast<int>(trace.max_procs ? *trace.max_procs : *trace.max_nodes);
  auto cluster = sim::model_cluster(*loaded.config, {slots, 1});

  // The jobs as bsim replays them; the model's trace has no estimates: exact ones there.
  auto jobs = bsim::trace_jobs(trace, [](const bsim::SwfJob& s, sim::Job& j) {
                j.run_limit = s.req_time > 0 ? s.req_time : s.run;
              }).jobs;

  std::map<std::int64_t, std::int64_t> promised;  // job -> earliest start a reservation gave
  int over = 0;
  auto observe = [&](std::int64_t, const ClusterView& view, const PassResult& pass) {
    std::map<std::string, int> used;
    for (const auto& r : view.running)
      for (const auto& h : r.hosts) ++used[h];
    for (const auto& [h, n] : used) over += n > 1;
    for (const auto& r : pass.reservations) {
      if (r.estimated_start <= 0) continue;
      auto [it, fresh] = promised.try_emplace(r.job.id, r.estimated_start);
      if (!fresh) it->second = std::min(it->second, r.estimated_start);
    }
  };
  auto result = sim::simulate(cluster, jobs, observe);

  EXPECT_EQ(over, 0) << "a host ran more jobs than its one slot";
  int started = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& o = result.jobs[i];
    if (o.start < 0) {
      EXPECT_GT(jobs[i].procs, slots) << "job " << o.id << " never started but fits the machine";
      continue;
    }
    ++started;
    EXPECT_GE(o.start, o.submit) << "job " << o.id;
    EXPECT_GE(o.end, o.start) << "job " << o.id;
    const std::int64_t ran = o.end - o.start;
    EXPECT_EQ(ran, jobs[i].run_limit > 0 ? std::min(jobs[i].runtime, jobs[i].run_limit) : jobs[i].runtime)
        << "job " << o.id;
    if (auto p = promised.find(o.id); p != promised.end()) {
      EXPECT_LE(o.start, p->second) << "job " << o.id << " started after the start its reservation promised";
    }
  }
  EXPECT_GT(started, 1000);
  EXPECT_FALSE(promised.empty()) << "no job ever held a reservation: the check above checked nothing";
}

std::vector<Run> runs() {
  std::vector<Run> out;
  for (const auto& t : traces())
    for (bool conservative : {false, true}) out.push_back({t, conservative});
  return out;
}

std::string run_name(const ::testing::TestParamInfo<Run>& info) {
  std::string name = std::filesystem::path(info.param.trace).stem().stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + (info.param.conservative ? "_conservative" : "_easy");
}

INSTANTIATE_TEST_SUITE_P(Workloads, TraceInvariants, ::testing::ValuesIn(runs()), run_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TraceInvariants);

}  // namespace
