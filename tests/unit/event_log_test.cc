// lsb.events: what is written is read back; a torn tail is dropped; damage in the
// middle is reported with its offset; group commit calls back once durable.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "daemons/mbatchd/event_log_format.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace fs = std::filesystem;
using namespace lsf;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("lsfsched-evlog-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

wire::EventRecord job_new(std::int64_t id) {
  wire::EventRecord r;
  r.set_seq(id);
  r.mutable_job_new()->set_job_id(id);
  r.mutable_job_new()->mutable_spec()->set_command("sleep " + std::to_string(id));
  return r;
}

// Writes n records through the writer and waits for durability.
void write_records(const fs::path& dir, int n) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  mbd::EventLogWriter w(dir, 0, [](std::function<void()> f) { f(); });
  ASSERT_EQ(w.open_error(), "");
  for (int i = 1; i <= n; ++i) w.append(job_new(i));
  w.when_durable([&](bool ok) {
    EXPECT_TRUE(ok);
    std::lock_guard l(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock l(mu);
  cv.wait(l, [&] { return done; });
}

std::vector<std::int64_t> read_ids(const fs::path& file, mbd::ReadOutcome* outcome = nullptr) {
  std::vector<std::int64_t> ids;
  auto o = mbd::read_event_file(file, [&](std::string_view p, std::uint64_t) -> std::string {
    wire::EventRecord r;
    if (!r.ParseFromArray(p.data(), static_cast<int>(p.size()))) return "parse";
    ids.push_back(r.job_new().job_id());
    return {};
  });
  if (outcome) *outcome = o;
  return ids;
}

}  // namespace

TEST(EventLog, RecordsReadBackInOrder) {
  TempDir d;
  write_records(d.path, 100);
  mbd::ReadOutcome o;
  auto ids = read_ids(d.path / "lsb.events", &o);
  ASSERT_EQ(ids.size(), 100u);
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 100);
  EXPECT_FALSE(o.torn_tail);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.good_bytes, fs::file_size(d.path / "lsb.events"));
}

// No one waits for some records (mbatchd's start): they reach the file all the same,
// without a later request to carry them.
TEST(EventLog, ARecordNoOneWaitsForIsWritten) {
  TempDir d;
  mbd::EventLogWriter w(d.path, 0, [](std::function<void()> f) { f(); });
  ASSERT_EQ(w.open_error(), "");
  w.append(job_new(7));
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 500 && ids.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ids = read_ids(d.path / "lsb.events");
  }
  EXPECT_EQ(ids, std::vector<std::int64_t>{7});
}

TEST(EventLog, TornTailIsDroppedAndReported) {
  TempDir d;
  write_records(d.path, 10);
  auto file = d.path / "lsb.events";
  auto whole = fs::file_size(file);
  fs::resize_file(file, whole - 3);  // cut into the last record
  mbd::ReadOutcome o;
  auto ids = read_ids(file, &o);
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_TRUE(o.torn_tail);
  EXPECT_EQ(o.error, "");
  EXPECT_LT(o.good_bytes, whole - 3);
  // The writer reopens at the last whole record and appends after it.
  {
    mbd::EventLogWriter w(d.path, o.good_bytes, [](std::function<void()> f) { f(); });
    w.append(job_new(42));
    w.stop();
  }
  auto again = read_ids(file, &o);
  ASSERT_EQ(again.size(), 10u);
  EXPECT_EQ(again.back(), 42);
  EXPECT_FALSE(o.torn_tail);
}

TEST(EventLog, DamageInTheMiddleNamesTheOffset) {
  TempDir d;
  write_records(d.path, 10);
  auto file = d.path / "lsb.events";
  std::uint64_t third = 0;
  int n = 0;
  mbd::read_event_file(file, [&](std::string_view, std::uint64_t offset) -> std::string {
    if (++n == 3) third = offset;
    return {};
  });
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(third + mbd::kRecordHeaderSize + 2));
    f.put('\x7f');
  }
  mbd::ReadOutcome o;
  auto ids = read_ids(file, &o);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(o.error, file.string() + ": damaged record at offset " + std::to_string(third) + " (checksum mismatch)");
}

TEST(EventLog, RotateWritesSnapshotAndStartsNewLog) {
  TempDir d;
  {
    mbd::EventLogWriter w(d.path, 0, [](std::function<void()> f) { f(); });
    w.append(job_new(1));
    wire::Snapshot s;
    s.set_last_seq(1);
    s.set_next_job_id(2);
    w.rotate(s.SerializeAsString());
    w.append(job_new(2));
    w.stop();
  }
  auto ids = read_ids(d.path / "lsb.events");
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ids[0], 2);
  EXPECT_EQ(read_ids(d.path / "lsb.events.1").size(), 1u);
  wire::Snapshot back;
  auto o = mbd::read_event_file(d.path / "lsb.snapshot", [&](std::string_view p, std::uint64_t) -> std::string {
    back.ParseFromArray(p.data(), static_cast<int>(p.size()));
    return {};
  });
  EXPECT_EQ(o.records, 1u);
  EXPECT_EQ(back.next_job_id(), 2);
}

TEST(EventLog, GroupCommitSharesSyncs) {
  TempDir d;
  std::mutex mu;
  std::condition_variable cv;
  int acked = 0;
  mbd::EventLogWriter w(d.path, 0, [](std::function<void()> f) { f(); });
  for (int i = 1; i <= 1000; ++i) {
    w.append(job_new(i));
    w.when_durable([&](bool ok) {
      EXPECT_TRUE(ok);
      std::lock_guard l(mu);
      ++acked;
      cv.notify_all();
    });
  }
  std::unique_lock l(mu);
  cv.wait(l, [&] { return acked == 1000; });
  // 1000 acknowledgements; far fewer fsyncs, since appends made while one sync runs
  // share the next.
  EXPECT_LT(w.stats().syncs, 1000u);
  EXPECT_EQ(w.stats().records, 1000u);
}
