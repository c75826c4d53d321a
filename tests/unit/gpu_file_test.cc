// The GPU description file sbatchd reads instead of NVML (daemons/sbatchd/gpu_file.h):
// what each word sets, its defaults, and an error naming the line and the word.
#include <gtest/gtest.h>

#include "daemons/sbatchd/gpu_file.h"

using lsf::sbd::parse_gpu_file;

TEST(GpuFile, DevicesWithTheirLoad) {
  auto r = parse_gpu_file(
      "# two V100s\n"
      "id=0 model=TeslaV100_SXM2_32GB mem=32G socket=0 factor=7.0 driver=535.104 ut=35% mused=4G temp=41\n"
      "\n"
      "id=1 model=TeslaV100_SXM2_32GB mem=32768 mode=exclusive_process uuid=GPU-1 ut=0.5 mut=0.25 ecc=2 pstate=2 "
      "status=error error=XID79  # fell off the bus\n");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 2u);
  const auto& a = (*r)[0];
  EXPECT_EQ(a.id(), 0);
  EXPECT_EQ(a.model(), "TeslaV100_SXM2_32GB");
  EXPECT_EQ(a.mem_total_mb(), 32768);
  EXPECT_EQ(a.mode(), "shared");
  EXPECT_EQ(a.vendor(), "nvidia");
  EXPECT_EQ(a.socket(), 0);
  EXPECT_DOUBLE_EQ(a.factor(), 7.0);
  EXPECT_DOUBLE_EQ(a.ut(), 0.35);
  EXPECT_EQ(a.mem_used_mb(), 4096);
  EXPECT_DOUBLE_EQ(a.temp_c(), 41);
  EXPECT_EQ(a.pstate(), -1);
  EXPECT_EQ(a.status(), "ok");
  const auto& b = (*r)[1];
  EXPECT_EQ(b.mem_total_mb(), 32768);  // a bare amount is in MB
  EXPECT_EQ(b.mode(), "exclusive_process");
  EXPECT_EQ(b.socket(), -1);
  EXPECT_DOUBLE_EQ(b.mut(), 0.25);
  EXPECT_EQ(b.ecc_errors(), 2);
  EXPECT_EQ(b.pstate(), 2);
  EXPECT_EQ(b.status(), "error");
  EXPECT_EQ(b.error(), "XID79");
  auto empty = parse_gpu_file("# none\n\n");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(GpuFile, ErrorsNameTheLineAndTheWord) {
  auto error = [](const char* text) {
    auto r = parse_gpu_file(text);
    EXPECT_FALSE(r) << text;
    return r ? std::string() : r.error();
  };
  EXPECT_EQ(error("id=0 model=X\n"), "line 1: mem= is missing");
  EXPECT_EQ(error("id=0 model=X mem=1G\nid=0 model=Y mem=1G\n"), "line 2: GPU 0 is described twice");
  EXPECT_EQ(error("\nid=0 model=X mem=1G mode=default\n"),
            "line 2: mode=default: must be shared, exclusive_process or prohibited");
  EXPECT_EQ(error("id=0 model=X mem=12Q\n"), "line 1: mem=12Q: not an amount of memory");
  EXPECT_EQ(error("id=300 model=X mem=1G\n"), "line 1: id=300: the index must be a whole number from 0 to 255");
  EXPECT_EQ(error("id=0 model=X mem=1G ut=150%\n"), "line 1: ut=150%: must be from 0 to 1, or a percentage");
  EXPECT_EQ(error("id=0 model=X mem=1G mused=2G\n"), "line 1: mused is more than mem");
  EXPECT_EQ(error("id=0 model=X mem=1G id=1\n"), "line 1: id is given twice");
  EXPECT_EQ(error("id=0 model=X mem=1G colour=green\n").substr(0, 30), "line 1: unknown name \"colour\" ");
  EXPECT_EQ(error("id=0 model=X mem=1G bare\n"), "line 1: \"bare\" is not name=value");
}
