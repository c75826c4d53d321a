// schmod_gpu through whole passes: which devices a GPU job gets, when it waits and why,
// and what started jobs hold in the next pass (through pass_apply, as the simulator and
// mbatchd see it).
#include <gtest/gtest.h>

#include "libsched/pass.h"
#include "libsched/pass_apply.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

GpuView gpu(int id, const std::string& model = "TeslaV100_SXM2_32GB", std::int64_t mem_mb = 32510) {
  GpuView g;
  g.id = id;
  g.model = model;
  g.mem_mb = mem_mb;
  return g;
}

// hostA with two V100s and hostB with one A100 (8 slots each), hostC without GPUs.
ClusterView gpu_view() {
  auto policy = std::make_shared<SchedPolicy>();
  policy->default_host.mxj = 8;
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
  v.hosts[0].gpus = {gpu(0), gpu(1)};
  v.hosts[1].gpus = {gpu(0, "NVIDIAA100_SXM4_80GB", 81920)};
  return v;
}

JobView gpu_job(std::int64_t id, const std::string& request, int slots = 1) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = "alice";
  j.min_slots = j.max_slots = slots;
  auto r = config::GpuRequest::parse(request);
  EXPECT_TRUE(r) << r.error();
  if (r) j.gpu = std::make_shared<const config::GpuRequest>(r->with_defaults());
  return j;
}

const Dispatch* dispatch_of(const PassResult& r, std::int64_t id) {
  for (const auto& d : r.dispatches)
    if (d.job.id == id) return &d;
  return nullptr;
}

std::string reason_of(const PassResult& r, std::int64_t id) {
  for (const auto& p : r.reasons) {
    if (p.job.id != id) continue;
    std::string text = *p.text;
    if (p.hosts)
      for (const auto& h : *p.hosts) {
        text += " |" + h.reason + ":";
        for (int host : h.hosts) text += " " + h.name(host);
      }
    return text;
  }
  return "";
}

std::vector<std::pair<std::string, int>> devices(const Dispatch& d) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& u : d.gpus) out.emplace_back(u.host, u.gpu);
  return out;
}

}  // namespace

// Two exclusive jobs never share a device: the third waits with the figures.
TEST(GpuScheduling, ExclusiveJobsTakeSeparateDevicesAndTheNextOneWaits) {
  auto v = gpu_view();
  v.hosts.resize(1);  // hostA alone: two devices
  v.pending = {gpu_job(1, "num=1:mode=exclusive_process"), gpu_job(2, "num=1:mode=exclusive_process"),
               gpu_job(3, "num=1:mode=exclusive_process")};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 1), nullptr);
  ASSERT_NE(dispatch_of(r, 2), nullptr);
  EXPECT_EQ(devices(*dispatch_of(r, 1)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}}));
  EXPECT_EQ(devices(*dispatch_of(r, 2)), (std::vector<std::pair<std::string, int>>{{"hostA", 1}}));
  EXPECT_TRUE(dispatch_of(r, 1)->gpus[0].exclusive);
  EXPECT_EQ(dispatch_of(r, 3), nullptr);
  EXPECT_NE(reason_of(r, 3).find("Not enough GPUs on the host: 0 free, 1 requested: hostA"), std::string::npos)
      << reason_of(r, 3);

  // The next pass sees the running jobs' devices: still no room, and none once one ends.
  apply(v, r, 1000);
  ASSERT_EQ(v.running.size(), 2u);
  ASSERT_TRUE(v.running[0].gpus);
  auto again = schedule(v, 1001);
  EXPECT_EQ(dispatch_of(again, 3), nullptr);
  v.running.erase(v.running.begin());  // job 1 ends: device 0 is free
  auto after = schedule(v, 1002);
  ASSERT_NE(dispatch_of(after, 3), nullptr);
  EXPECT_EQ(devices(*dispatch_of(after, 3)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}}));
}

// Shared jobs share devices, spread over the least used; an exclusive job then finds
// none free.
TEST(GpuScheduling, SharedJobsShareDevicesAndKeepExclusiveJobsOff) {
  auto v = gpu_view();
  v.hosts.resize(1);
  v.pending = {gpu_job(1, "num=1"), gpu_job(2, "num=1"), gpu_job(3, "num=1"), gpu_job(4, "num=1:j_exclusive=yes")};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 3), nullptr);
  EXPECT_EQ(devices(*dispatch_of(r, 1)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}}));
  EXPECT_EQ(devices(*dispatch_of(r, 2)), (std::vector<std::pair<std::string, int>>{{"hostA", 1}}));
  EXPECT_EQ(devices(*dispatch_of(r, 3)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}}));
  EXPECT_FALSE(dispatch_of(r, 1)->gpus[0].exclusive);
  EXPECT_EQ(dispatch_of(r, 4), nullptr);
}

// gpack=yes puts a shared job on the busiest device instead.
TEST(GpuScheduling, GpackPacksSharedJobs) {
  auto v = gpu_view();
  v.hosts.resize(1);
  v.pending = {gpu_job(1, "num=1:gpack=yes"), gpu_job(2, "num=1:gpack=yes")};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 2), nullptr);
  EXPECT_EQ(devices(*dispatch_of(r, 2)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}}));
}

// gmodel picks the host with the model; a model no host has waits.
TEST(GpuScheduling, ModelNamesAndMemoryChooseTheDevices) {
  auto v = gpu_view();
  v.pending = {gpu_job(1, "num=1:gmodel=NVIDIAA100"), gpu_job(2, "num=1:gmodel=TeslaV100-32G"),
               gpu_job(3, "num=1:gmodel=TeslaV100-16G"), gpu_job(4, "num=1:gmodel=H200")};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 1), nullptr);
  EXPECT_EQ(devices(*dispatch_of(r, 1)), (std::vector<std::pair<std::string, int>>{{"hostB", 0}}));
  ASSERT_NE(dispatch_of(r, 2), nullptr);
  EXPECT_EQ(dispatch_of(r, 2)->gpus[0].host, "hostA");
  EXPECT_EQ(dispatch_of(r, 3), nullptr);  // a 16 GB V100 is not a 32 GB one
  EXPECT_EQ(dispatch_of(r, 4), nullptr);
  EXPECT_NE(reason_of(r, 4).find("Not enough GPUs on the host: 0 free, 1 requested"), std::string::npos);
}

// num counts per host, or per slot with /task; a job that would need more devices than
// a host has waits with the figures.
TEST(GpuScheduling, PerTaskCountsLimitTheSlotsOnAHost) {
  auto v = gpu_view();
  v.hosts.resize(1);
  v.pending = {gpu_job(1, "num=1/task", 2)};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 1), nullptr);
  EXPECT_EQ(devices(*dispatch_of(r, 1)), (std::vector<std::pair<std::string, int>>{{"hostA", 0}, {"hostA", 1}}));

  auto w = gpu_view();
  w.hosts.resize(1);
  w.pending = {gpu_job(2, "num=2/task", 2), gpu_job(3, "num=2", 4), gpu_job(4, "num=3")};
  auto s = schedule(w, 1000);
  EXPECT_EQ(dispatch_of(s, 2), nullptr);  // 4 devices for 2 slots: hostA has 2
  ASSERT_NE(dispatch_of(s, 3), nullptr);  // 2 devices for the host, whatever its slots
  EXPECT_EQ(dispatch_of(s, 3)->gpus.size(), 2u);
  EXPECT_EQ(dispatch_of(s, 4), nullptr);
  EXPECT_NE(reason_of(s, 4).find("2 free, 3 requested"), std::string::npos) << reason_of(s, 4);
}

// gmem reserves memory on each device: two 20 GB jobs do not fit one 32 GB V100.
TEST(GpuScheduling, GmemReservesDeviceMemory) {
  auto v = gpu_view();
  v.hosts.resize(1);
  v.hosts[0].gpus.resize(1);
  v.pending = {gpu_job(1, "num=1:gmem=20G"), gpu_job(2, "num=1:gmem=20G"), gpu_job(3, "num=1:gmem=10G")};
  auto r = schedule(v, 1000);
  ASSERT_NE(dispatch_of(r, 1), nullptr);
  EXPECT_EQ(dispatch_of(r, 1)->gpus[0].mem_mb, 20480);
  EXPECT_EQ(dispatch_of(r, 2), nullptr);
  EXPECT_NE(dispatch_of(r, 3), nullptr);
}

// A device another job holds exclusively, one the admin set to EXCLUSIVE_PROCESS with a
// job on it, and one in error serve no one; jobs without a GPU request ignore GPUs.
TEST(GpuScheduling, BusyDevicesAndJobsWithoutGpus) {
  auto v = gpu_view();
  v.hosts.resize(1);
  v.hosts[0].gpus.push_back(gpu(2));
  v.hosts[0].gpus[1].exclusive_mode = true;
  v.hosts[0].gpus[2].usable = false;
  RunningJobView held;
  held.key = {10, 0};
  held.hosts = {"hostA"};
  held.user = "bob";
  held.gpus = std::make_shared<const GpuAllocation>(GpuAllocation{{"hostA", 0, true, 0}});
  RunningJobView shared = held;
  shared.key = {11, 0};
  shared.gpus = std::make_shared<const GpuAllocation>(GpuAllocation{{"hostA", 1, false, 0}});
  v.running = {held, shared};
  JobView plain;
  plain.key = {2, 0};
  plain.order = 2;
  plain.user = "alice";
  v.pending = {gpu_job(1, "num=1"), plain};
  auto r = schedule(v, 1000);
  EXPECT_EQ(dispatch_of(r, 1), nullptr);
  EXPECT_NE(reason_of(r, 1).find("0 free, 1 requested"), std::string::npos) << reason_of(r, 1);
  ASSERT_NE(dispatch_of(r, 2), nullptr);
  EXPECT_TRUE(dispatch_of(r, 2)->gpus.empty());
}

// A GPU job on a cluster without GPUs waits rather than starting without them.
TEST(GpuScheduling, NoGpusAnywhere) {
  auto v = gpu_view();
  for (auto& h : v.hosts) h.gpus.clear();
  v.pending = {gpu_job(1, "num=1")};
  auto r = schedule(v, 1000);
  EXPECT_EQ(dispatch_of(r, 1), nullptr);
  EXPECT_NE(reason_of(r, 1).find("Not enough GPUs on the host: 0 free, 1 requested"), std::string::npos);
}
