// lsb.jobid: job ids are never given twice, whatever happens to lsb.events.
#include "daemons/mbatchd/job_id_mark.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using lsf::mbd::JobIdMark;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("lsfsched-jobid-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// The mark `m` reads; -1 (and a failure) when it cannot.
std::int64_t loaded(JobIdMark& m) {
  auto mark = m.load();
  EXPECT_TRUE(mark.ok()) << mark.error();
  return mark.ok() ? *mark : -1;
}

}  // namespace

// The mark is written a block ahead before an id is used, and read back by the next
// mbatchd: ids handed out before a crash (whose records the log may have lost) are
// below it.
TEST(JobIdMark, MovesAheadInBlocksAndSurvivesARestart) {
  TempDir d;
  const auto file = d.path / "lsb.jobid";
  {
    JobIdMark m(file);
    EXPECT_EQ(loaded(m), 0);
    ASSERT_EQ(m.cover(1).message(), "");
    EXPECT_EQ(m.mark(), 1 + JobIdMark::kBlock);
  }
  JobIdMark again(file);
  EXPECT_EQ(loaded(again), 1 + JobIdMark::kBlock);
  EXPECT_EQ(fs::status(file).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

// Ids inside the block need no write: the disk is touched once per block, not per job.
TEST(JobIdMark, IdsInsideTheBlockNeedNoWrite) {
  TempDir d;
  const auto file = d.path / "lsb.jobid";
  JobIdMark m(file);
  ASSERT_EQ(m.cover(5).message(), "");
  fs::remove(file);
  EXPECT_EQ(m.cover(5 + JobIdMark::kBlock - 1).message(), "");
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(m.cover(5 + JobIdMark::kBlock).message(), "");
  EXPECT_TRUE(fs::exists(file));
}

// When the mark cannot be moved, the id must not be used: cover says why and the mark
// stays where it was.
TEST(JobIdMark, AMarkThatCannotBeWrittenRefusesTheId) {
  TempDir d;
  JobIdMark m(d.path / "gone" / "lsb.jobid");
  EXPECT_EQ(m.cover(1).message(), "No such file or directory");
  EXPECT_EQ(m.mark(), 0);
}

TEST(JobIdMark, AnUnreadableMarkIsAnError) {
  TempDir d;
  std::ofstream(d.path / "lsb.jobid") << "garbage\n";
  JobIdMark m(d.path / "lsb.jobid");
  EXPECT_NE(m.load().error(), "");
}

// A clean stop leaves no gap: the next mbatchd goes on from the next id, not the block's end.
TEST(JobIdMark, SettleBringsTheMarkDownToTheNextId) {
  TempDir d;
  const auto file = d.path / "lsb.jobid";
  JobIdMark m(file);
  ASSERT_EQ(m.cover(40).message(), "");
  ASSERT_EQ(m.settle(43).message(), "");
  JobIdMark again(file);
  EXPECT_EQ(loaded(again), 43);
  // settle only lowers the mark: ids below it may be in use.
  EXPECT_EQ(again.settle(50).message(), "");
  EXPECT_EQ(again.mark(), 43);
}
