// GPU requirements as bsub -gpu, GPU_REQ and LSB_GPU_REQ write them
// (libconfig/gpu_request.h): every option, LSF's defaults, the merge of levels option by
// option, and a clear error naming the option for each malformed one.
#include <gtest/gtest.h>

#include "libconfig/gpu_request.h"

using lsf::config::GpuMode;
using lsf::config::GpuMps;
using lsf::config::GpuRequest;
using lsf::config::MemoryUnit;

namespace {

GpuRequest parsed(const std::string& text) {
  auto r = GpuRequest::parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error();
  return r.ok() ? *r : GpuRequest{};
}

std::string error_of(const std::string& text) {
  auto r = GpuRequest::parse(text);
  EXPECT_FALSE(r.ok()) << text << " was taken";
  return r.ok() ? "" : r.error();
}

TEST(GpuRequest, DashAndNothingAreTheEmptyRequestWhichTakesLsfsDefaults) {
  EXPECT_TRUE(parsed("-").empty());
  EXPECT_TRUE(parsed("").empty());
  EXPECT_EQ(parsed("-").with_defaults().to_string(), "num=1:mode=shared:mps=no:j_exclusive=no");
}

TEST(GpuRequest, EveryOptionIsRead) {
  auto r = parsed(
      "num=2/task:mode=exclusive_process:mps=per_socket,shared,nocvd:j_exclusive=yes:aff=no:block=yes:"
      "gpack=yes:gvendor=nvidia:gmodel=TeslaV100-16G:gtile=2:gmem=4G:glink=yes:mig=3/1");
  EXPECT_EQ(r.num, 2);
  EXPECT_EQ(r.per_task, true);
  EXPECT_EQ(r.mode, GpuMode::kExclusiveProcess);
  EXPECT_EQ(r.mps, (GpuMps{GpuMps::Kind::kPerSocket, true, true}));
  EXPECT_EQ(r.j_exclusive, true);
  EXPECT_EQ(r.aff, false);
  EXPECT_EQ(r.block, true);
  EXPECT_EQ(r.gpack, true);
  EXPECT_EQ(r.gvendor, "nvidia");
  EXPECT_EQ(r.gmodel, "TeslaV100");
  EXPECT_EQ(r.gmodel_mem_mb, 16 * 1024);
  EXPECT_EQ(r.gtile, 2);
  EXPECT_EQ(r.gmem_mb, 4096);
  EXPECT_EQ(r.glink, true);
  EXPECT_EQ(r.mig, "3/1");
  // What to_string writes reads back as the same request.
  EXPECT_EQ(parsed(r.to_string()), r);
}

TEST(GpuRequest, ModelsKeepTheirDashesAndConfigurationWritesMemoryAfterAHash) {
  EXPECT_EQ(parsed("gmodel=Tesla-V100").gmodel, "Tesla-V100");
  EXPECT_FALSE(parsed("gmodel=Tesla-V100").gmodel_mem_mb);
  auto c = parsed("gmodel=K80#12G");  // lsb.queues / lsb.applications
  EXPECT_EQ(c.gmodel, "K80");
  EXPECT_EQ(c.gmodel_mem_mb, 12 * 1024);
  EXPECT_EQ(parsed("gtile='!'").gtile, GpuRequest::kGtileAny);
  EXPECT_EQ(parsed("gtile=!").gtile, GpuRequest::kGtileAny);
  // A bare amount is in LSF_UNIT_FOR_LIMITS.
  EXPECT_EQ(parsed("gmem=512").gmem_mb, 512);
  EXPECT_EQ(GpuRequest::parse("gmem=2", MemoryUnit::kGB)->gmem_mb, 2048);
  // LSF's examples write mps=yes,share.
  EXPECT_EQ(parsed("mps=yes,share").mps, (GpuMps{GpuMps::Kind::kYes, true, false}));
}

TEST(GpuRequest, LevelsMergeOptionByOptionTheJobsOverTheApplicationsOverTheQueuesOverTheClusters) {
  const auto cluster = parsed("num=1:mode=shared:mps=no:j_exclusive=no:gmem=1G");
  const auto queue = parsed("mode=exclusive_process:mps=yes");
  const auto application = parsed("num=4/task");
  const auto job = parsed("mps=no:gmodel=A100");
  const auto effective = job.over(application.over(queue.over(cluster))).with_defaults();
  EXPECT_EQ(effective.to_string(), "num=4/task:mode=exclusive_process:mps=no:j_exclusive=no:gmodel=A100:gmem=1024M");
  // A level that names a count names its unit: num=2 over num=4/task is per host.
  EXPECT_EQ(parsed("num=2").over(application).with_defaults().per_task, false);
}

TEST(GpuRequest, EachMalformedOptionIsNamedWithWhatItTakes) {
  EXPECT_EQ(error_of("num=0"), "num=0: the number of GPUs must be a whole number from 1 to 1024");
  EXPECT_EQ(error_of("num=two"), "num=two: the number of GPUs must be a whole number from 1 to 1024");
  EXPECT_EQ(error_of("num=2/node"), "num=2/node: the count is per task or per host (N/task, N/host)");
  EXPECT_EQ(error_of("mode=exclusive"), "mode=exclusive: must be shared or exclusive_process");
  EXPECT_EQ(error_of("mps=maybe"), "mps=maybe: must be yes, per_socket, per_gpu or no");
  EXPECT_EQ(error_of("mps=yes,fast"), "mps=yes,fast: unknown modifier \"fast\" (shared or nocvd)");
  EXPECT_EQ(error_of("j_exclusive=Y"), "j_exclusive=Y: must be yes or no");
  EXPECT_EQ(error_of("gvendor=intel"), "gvendor=intel: must be nvidia or amd");
  EXPECT_EQ(error_of("gtile=0"), "gtile=0: must be a whole number of GPUs per socket, or '!'");
  EXPECT_NE(error_of("gmem=lots").find("gmem=lots: "), std::string::npos);
  EXPECT_EQ(error_of("gmem=0"), "gmem=0: must be more than 0");
  EXPECT_EQ(error_of("mig=9"), "mig=9: must be GI_size[/CI_size], each from 1 to 7");
  EXPECT_EQ(error_of("num=1:num=2"), "GPU option \"num\" is given twice");
  EXPECT_EQ(error_of("num"), "GPU option \"num\" needs a value (name=value)");
  EXPECT_EQ(error_of("num=1::mode=shared"), "empty GPU option in \"num=1::mode=shared\"");
  EXPECT_EQ(error_of("mode="), "mode: a value is missing");
  EXPECT_NE(error_of("ngpus=2").find("unknown GPU option \"ngpus\""), std::string::npos);
}

}  // namespace

// Which jobs are GPU jobs, and with what: -gpu (even "-"), or GPU_REQ in the job's
// application profile or queue; LSB_GPU_REQ alone only fills options in.
TEST(GpuRequest, EffectiveRequirementComesFromTheJobProfileQueueAndCluster) {
  using lsf::config::effective_gpu_request;
  const GpuRequest none;
  const GpuRequest cluster = parsed("num=2:mode=exclusive_process:gmem=1G");
  EXPECT_FALSE(effective_gpu_request(nullptr, nullptr, nullptr, &cluster));
  auto dash = effective_gpu_request(&none, nullptr, nullptr, &cluster);
  ASSERT_TRUE(dash);
  EXPECT_EQ(dash->to_string(), "num=2:mode=exclusive_process:mps=no:j_exclusive=no:gmem=1024M");
  const GpuRequest queue = parsed("num=4:j_exclusive=yes");
  const GpuRequest app = parsed("mode=shared");
  auto from_queue = effective_gpu_request(nullptr, nullptr, &queue, &cluster);
  ASSERT_TRUE(from_queue);
  EXPECT_EQ(from_queue->to_string(), "num=4:mode=exclusive_process:mps=no:j_exclusive=yes:gmem=1024M");
  const GpuRequest job = parsed("num=1/task");
  auto all = effective_gpu_request(&job, &app, &queue, &cluster);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->to_string(), "num=1/task:mode=shared:mps=no:j_exclusive=yes:gmem=1024M");
  auto defaults = effective_gpu_request(&none, nullptr, nullptr, nullptr);
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->to_string(), "num=1:mode=shared:mps=no:j_exclusive=no");
}
