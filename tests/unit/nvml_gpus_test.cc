// sbatchd's reading of NVML (daemons/sbatchd/nvml_gpus.h) against a stand-in library
// with two devices (tests/unit/fake/fake_nvml.cc): what each NVML answer becomes, and no
// GPUs, with the reason, where the library is missing.
#include <gtest/gtest.h>

#include "daemons/sbatchd/nvml_gpus.h"

using lsf::sbd::NvmlGpus;

TEST(NvmlGpus, DevicesAsNvmlReportsThem) {
  NvmlGpus nvml(FAKE_NVML_PATH);
  ASSERT_EQ(nvml.unavailable(), "");
  auto gpus = nvml.sample();
  ASSERT_EQ(gpus.size(), 2u);
  const auto& a = gpus[0];
  EXPECT_EQ(a.id(), 0);
  EXPECT_EQ(a.model(), "TeslaV100_SXM2_32GB");  // LSF's spelling: no blanks, '_' for '-'
  EXPECT_EQ(a.uuid(), "GPU-fake-0");
  EXPECT_EQ(a.mem_total_mb(), 32510);
  EXPECT_EQ(a.mem_used_mb(), 512);
  EXPECT_EQ(a.mode(), "shared");
  EXPECT_EQ(a.driver(), "580.65.06");
  EXPECT_DOUBLE_EQ(a.ut(), 0.35);
  EXPECT_DOUBLE_EQ(a.mut(), 0.10);
  EXPECT_DOUBLE_EQ(a.temp_c(), 41);
  EXPECT_DOUBLE_EQ(a.factor(), 7.0);
  EXPECT_EQ(a.pstate(), 2);
  EXPECT_EQ(a.ecc_errors(), 4);
  EXPECT_EQ(std::vector<int>(a.pids().begin(), a.pids().end()), (std::vector<int>{4242, 4343}));
  EXPECT_EQ(a.status(), "ok");
  const auto& b = gpus[1];
  EXPECT_EQ(b.model(), "NVIDIAH200");
  EXPECT_EQ(b.mode(), "exclusive_process");
  EXPECT_EQ(b.mem_total_mb(), 143771);
  EXPECT_DOUBLE_EQ(b.factor(), 9.0);
  EXPECT_EQ(b.ecc_errors(), 0);  // not supported there: left at 0
  EXPECT_TRUE(b.pids().empty());
}

TEST(NvmlGpus, WithoutTheLibraryThereAreNoGpus) {
  NvmlGpus nvml("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(nvml.unavailable(), "/nonexistent/libnvidia-ml.so.1 is not installed (no NVIDIA driver)");
  EXPECT_TRUE(nvml.sample().empty());
}
