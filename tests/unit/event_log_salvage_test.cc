// mbatchd --salvage: the records before damage in lsb.events are kept, the rest is moved
// aside and what could not be recovered is listed.
#include "daemons/mbatchd/event_log_salvage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "daemons/mbatchd/event_log_format.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "daemons/mbatchd/job_id_mark.h"

namespace fs = std::filesystem;
using namespace lsf;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("lsfsched-salvage-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// Jobs 1..n: a JOB_NEW each, and a JOB_START for job 7.
void write_log(const fs::path& dir, int n) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  mbd::EventLogWriter w(dir, 0, [](std::function<void()> f) { f(); });
  std::int64_t seq = 0;
  for (int i = 1; i <= n; ++i) {
    wire::EventRecord r;
    r.set_seq(++seq);
    r.mutable_job_new()->set_job_id(i);
    w.append(r);
    if (i == 7) {
      wire::EventRecord s;
      s.set_seq(++seq);
      s.mutable_job_start()->set_job_id(7);
      s.mutable_job_start()->add_exec_hosts("hostA");
      w.append(s);
    }
  }
  w.when_durable([&](bool) {
    std::lock_guard l(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock l(mu);
  cv.wait(l, [&] { return done; });
}

std::vector<std::uint64_t> offsets(const fs::path& file) {
  std::vector<std::uint64_t> out;
  mbd::read_event_file(file, [&](std::string_view, std::uint64_t offset) -> daemon::Status {
    out.push_back(offset);
    return {};
  });
  return out;
}

}  // namespace

TEST(Salvage, KeepsRecordsBeforeTheDamageAndListsWhatIsLost) {
  TempDir d;
  write_log(d.path, 10);
  const auto file = d.path / "lsb.events";
  const auto at = offsets(file);
  ASSERT_EQ(at.size(), 11u);
  const auto size = fs::file_size(file);
  {
    // Damage job 4's JOB_NEW.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at[3] + mbd::kRecordHeaderSize + 1));
    f.put('\x55');
  }
  ASSERT_TRUE(mbd::read_event_file(file, [](auto, auto) { return daemon::Status(); }).damage_offset);

  auto r = mbd::salvage_event_log(d.path, 1700000000);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.damaged);
  EXPECT_EQ(r.kept_records, 3u);
  EXPECT_EQ(r.kept_bytes, at[3]);
  // The file now reads clean, up to the damage.
  auto after = mbd::read_event_file(file, [](auto, auto) { return daemon::Status(); });
  EXPECT_EQ(after.error, "");
  EXPECT_EQ(after.records, 3u);
  EXPECT_EQ(fs::file_size(file), at[3]);
  // The rest is kept aside, byte for byte.
  EXPECT_EQ(r.moved_to, d.path / "lsb.events.damaged.1700000000");
  EXPECT_EQ(fs::file_size(r.moved_to), size - at[3]);
  // Every whole record after the damage is listed; the damaged one is unreadable.
  std::vector<std::pair<std::string, std::int64_t>> lost;
  for (const auto& l : r.lost) lost.emplace_back(l.kind, l.job_id);
  EXPECT_EQ(lost, (std::vector<std::pair<std::string, std::int64_t>>{{"JOB_NEW", 5},
                                                                     {"JOB_NEW", 6},
                                                                     {"JOB_NEW", 7},
                                                                     {"JOB_START", 7},
                                                                     {"JOB_NEW", 8},
                                                                     {"JOB_NEW", 9},
                                                                     {"JOB_NEW", 10}}));
  EXPECT_EQ(r.unreadable_bytes, at[4] - at[3]);
  // Their ids are not given again.
  mbd::JobIdMark mark(d.path / "lsb.jobid");
  auto loaded = mark.load();
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_GT(*loaded, 10);

  auto lines = mbd::describe(r);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "jobs whose events were not recovered: 5 6 7 8 9 10"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "not recovered: event 8 JOB_START of job 7"), lines.end());
}

TEST(Salvage, ALogWithoutDamageIsLeftAlone) {
  TempDir d;
  write_log(d.path, 3);
  const auto size = fs::file_size(d.path / "lsb.events");
  auto r = mbd::salvage_event_log(d.path, 1700000000);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.damaged);
  EXPECT_EQ(fs::file_size(d.path / "lsb.events"), size);
  EXPECT_FALSE(fs::exists(d.path / "lsb.events.damaged.1700000000"));
}
