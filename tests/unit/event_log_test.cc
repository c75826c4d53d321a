// lsb.events: what is written is read back; a torn tail is dropped; damage in the
// middle is reported with its offset; group commit calls back once durable.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
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
  auto o = mbd::read_event_file(file, [&](std::string_view p, std::uint64_t) -> daemon::Status {
    wire::EventRecord r;
    if (!r.ParseFromArray(p.data(), static_cast<int>(p.size()))) return daemon::fail("parse");
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
  mbd::read_event_file(file, [&](std::string_view, std::uint64_t offset) -> daemon::Status {
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
  // The old file's reserve went with the rotation: lsb.events.1 holds only its records.
  struct stat old_file {};
  ASSERT_EQ(::stat((d.path / "lsb.events.1").c_str(), &old_file), 0);
  EXPECT_LT(old_file.st_blocks * 512, old_file.st_size + 64 * 1024);
  wire::Snapshot back;
  auto o = mbd::read_event_file(d.path / "lsb.snapshot", [&](std::string_view p, std::uint64_t) -> daemon::Status {
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

// --- a full or failing disk

namespace {

// A disk that fails on demand. `no_space`: fallocate fails with ENOSPC (the file system
// is full; what was reserved before is still there to write into). `write_cut`: a write
// puts half its bytes down and the next fails with ENOSPC, as a write that runs into
// the end of a file system does. `sync_error`: fdatasync fails with that errno.
struct FailingDisk {
  std::atomic<bool> no_space{false};
  std::atomic<bool> write_cut{false};
  std::atomic<bool> cut_made{false};
  std::atomic<int> sync_error{0};
  mbd::EventLogOptions options() {
    mbd::EventLogOptions o;
    o.events_reserve = 64 << 10;
    o.acct_reserve = 16 << 10;
    o.retry_interval = std::chrono::milliseconds(10);
    o.ops.write = [this](int fd, const void* p, std::size_t n) -> ssize_t {
      if (!write_cut) return ::write(fd, p, n);
      if (!cut_made.exchange(true)) return ::write(fd, p, (n + 1) / 2);
      errno = ENOSPC;
      return -1;
    };
    o.ops.fallocate = [this](int fd, int mode, off_t off, off_t len) {
      if (no_space) {
        errno = ENOSPC;
        return -1;
      }
      return ::fallocate(fd, mode, off, len);
    };
    o.ops.fdatasync = [this](int fd) {
      if (int e = sync_error.load()) {
        errno = e;
        return -1;
      }
      return ::fdatasync(fd);
    };
    return o;
  }
};

// Appends `record` (and an lsb.acct line when given), waits for its callback, returns ok.
bool append_and_wait(mbd::EventLogWriter& w, const wire::EventRecord& record, const std::string& acct = {}) {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<bool> result;
  w.append(record);
  if (!acct.empty()) w.append_acct(acct);
  w.when_durable([&](bool ok) {
    std::lock_guard l(mu);
    result = ok;
    cv.notify_all();
  });
  std::unique_lock l(mu);
  cv.wait(l, [&] { return result.has_value(); });
  return *result;
}

// Polls for up to 10 s: the writer retries on its own thread.
bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 1000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

void run_inline(std::function<void()> f) { f(); }

}  // namespace

// While the writer cannot keep space ahead of the log, changes are refused up front
// (refusal() names the cause) and what is appended meanwhile still goes into the space
// kept before; once space returns, the writer takes changes again by itself.
TEST(EventLog, FullDiskRefusesChangesUntilSpaceReturns) {
  TempDir d;
  FailingDisk disk;
  mbd::EventLogWriter w(d.path, 0, run_inline, disk.options());
  ASSERT_EQ(w.open_error(), "");
  EXPECT_EQ(w.refusal(), "");
  ASSERT_TRUE(append_and_wait(w, job_new(1)));

  disk.no_space = true;
  EXPECT_TRUE(append_and_wait(w, job_new(2), "\"JOB_FINISH\" 2\n"));
  EXPECT_EQ(w.refusal(), "No space left on device");
  EXPECT_EQ(w.failure(), "");
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2}));

  disk.no_space = false;
  EXPECT_TRUE(eventually([&] { return w.refusal().empty(); }));
  EXPECT_TRUE(append_and_wait(w, job_new(3)));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2, 3}));
}

// A write that fails half-way leaves nothing of its record behind, fails the callback
// with the cause, and the writer takes nothing more (the state machine applied a
// change the log does not hold).
TEST(EventLog, FailedWriteLeavesNoPartialRecord) {
  TempDir d;
  FailingDisk disk;
  mbd::EventLogWriter w(d.path, 0, run_inline, disk.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1), "\"JOB_FINISH\" 1\n"));
  const auto events_size = fs::file_size(d.path / "lsb.events");
  const auto acct_size = fs::file_size(d.path / "lsb.acct");

  disk.write_cut = true;
  EXPECT_FALSE(append_and_wait(w, job_new(2), "\"JOB_FINISH\" 2\n"));
  EXPECT_EQ(w.failure(), "No space left on device");
  EXPECT_EQ(w.refusal(), "No space left on device");
  EXPECT_EQ(fs::file_size(d.path / "lsb.events"), events_size);
  EXPECT_EQ(fs::file_size(d.path / "lsb.acct"), acct_size);

  disk.write_cut = false;
  EXPECT_FALSE(append_and_wait(w, job_new(3)));
  mbd::ReadOutcome o;
  EXPECT_EQ(read_ids(d.path / "lsb.events", &o), std::vector<std::int64_t>{1});
  EXPECT_FALSE(o.torn_tail);
  EXPECT_EQ(o.error, "");
}

// After fdatasync fails, what it was to cover may be gone from the disk while still in
// the page cache: the file is cut back to what the last good sync covered.
TEST(EventLog, FailedSyncCutsTheLogBackToTheLastGoodSync) {
  TempDir d;
  FailingDisk disk;
  mbd::EventLogWriter w(d.path, 0, run_inline, disk.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  disk.sync_error = EIO;
  EXPECT_FALSE(append_and_wait(w, job_new(2)));
  EXPECT_EQ(w.failure(), "Input/output error");
  disk.sync_error = 0;
  EXPECT_FALSE(append_and_wait(w, job_new(3)));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{1});
}

// A writer opened after a failed write refuses changes until the recovered state is in
// a fresh lsb.snapshot and lsb.events; a rotation that fails on a full disk keeps the
// refusal (naming the full disk), and the next one once there is room ends it.
TEST(EventLog, SnapshotFirstRefusesChangesUntilARotationIsMade) {
  TempDir d;
  write_records(d.path, 2);
  const auto valid = fs::file_size(d.path / "lsb.events");
  FailingDisk disk;
  auto options = disk.options();
  options.snapshot_first = true;
  disk.no_space = true;
  mbd::EventLogWriter w(d.path, valid, run_inline, options);
  ASSERT_EQ(w.open_error(), "");
  EXPECT_TRUE(w.snapshot_needed());
  EXPECT_EQ(w.refusal(), "No space left on device");

  wire::Snapshot s;
  s.set_last_seq(2);
  s.set_next_job_id(3);
  w.rotate(s.SerializeAsString());
  EXPECT_TRUE(append_and_wait(w, job_new(3)));  // mbatchd's own record, into the reserve
  EXPECT_TRUE(w.snapshot_needed());
  EXPECT_EQ(w.refusal(), "No space left on device");
  EXPECT_FALSE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2, 3}));

  disk.no_space = false;
  EXPECT_TRUE(eventually(
      [&] { return w.refusal() == "No space left on device (writing a fresh snapshot after a failed write)"; }));
  s.set_last_seq(3);
  s.set_next_job_id(4);
  w.rotate(s.SerializeAsString());
  EXPECT_TRUE(append_and_wait(w, job_new(4)));
  EXPECT_FALSE(w.snapshot_needed());
  EXPECT_EQ(w.refusal(), "");
  EXPECT_TRUE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{4});
}

// A writer made as usual needs no snapshot first.
TEST(EventLog, AWriterTakesChangesAtOnceUnlessToldOtherwise) {
  TempDir d;
  mbd::EventLogWriter w(d.path, 0, run_inline);
  EXPECT_FALSE(w.snapshot_needed());
  EXPECT_EQ(w.refusal(), "");
}

// A snapshot that cannot be written on a full disk leaves the old lsb.events in use:
// records appended after it are in the file recovery reads.
TEST(EventLog, RotationOnAFullDiskKeepsTheOldLog) {
  TempDir d;
  FailingDisk disk;
  mbd::EventLogWriter w(d.path, 0, run_inline, disk.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  disk.no_space = true;
  wire::Snapshot s;
  s.set_last_seq(1);
  w.rotate(s.SerializeAsString());
  EXPECT_TRUE(append_and_wait(w, job_new(2)));
  EXPECT_FALSE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_FALSE(fs::exists(d.path / "lsb.events.new"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2}));
}

// Jobs' environments are in these files: only their owner reads them.
TEST(EventLog, FilesAreOwnerOnly) {
  TempDir d;
  const auto dir = d.path / "cluster" / "logdir";
  {
    mbd::EventLogWriter w(dir, 0, run_inline);
    ASSERT_TRUE(append_and_wait(w, job_new(1), "\"JOB_FINISH\" 1\n"));
    w.rotate(wire::Snapshot().SerializeAsString());
    ASSERT_TRUE(append_and_wait(w, job_new(2)));
  }
  for (const char* name : {"lsb.events", "lsb.events.1", "lsb.snapshot", "lsb.acct"})
    EXPECT_EQ(fs::status(dir / name).permissions(), fs::perms::owner_read | fs::perms::owner_write) << name;
  EXPECT_EQ(fs::status(dir).permissions(), fs::perms::owner_all);
}

// A crash tears only the last record; a length damaged to run past the end, with
// whole records after it, is damage, not a tail to drop with everything after it.
TEST(EventLog, DamagedLengthWithRecordsAfterItIsDamage) {
  TempDir d;
  write_records(d.path, 10);
  auto file = d.path / "lsb.events";
  std::uint64_t third = 0;
  int n = 0;
  mbd::read_event_file(file, [&](std::string_view, std::uint64_t offset) -> daemon::Status {
    if (++n == 3) third = offset;
    return {};
  });
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(third + 2));
    f.put('\x10');  // length + 1 MiB
  }
  mbd::ReadOutcome o;
  auto ids = read_ids(file, &o);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_FALSE(o.torn_tail);
  ASSERT_TRUE(o.damage_offset.has_value());
  EXPECT_EQ(*o.damage_offset, third);
}

// What is appended between hold() and release() is written together: a request's
// records are not split over two rounds, one synced and one failed.
TEST(EventLog, HeldRecordsGoToTheWriterTogether) {
  TempDir d;
  FailingDisk disk;
  mbd::EventLogWriter w(d.path, 0, run_inline, disk.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  w.hold();
  w.append(job_new(2));
  // Unheld, the writer takes a record as soon as it is appended.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{1});
  disk.write_cut = true;
  w.append(job_new(3));
  std::mutex mu;
  std::condition_variable cv;
  std::optional<bool> result;
  w.when_durable([&](bool ok) {
    std::lock_guard l(mu);
    result = ok;
    cv.notify_all();
  });
  w.release();
  std::unique_lock l(mu);
  cv.wait(l, [&] { return result.has_value(); });
  EXPECT_FALSE(*result);
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{1});
}

// A master whose term another took (master failover) acknowledges nothing more, not
// even what it had written, and does not replace the new master's snapshot.
TEST(EventLog, AFencedWriterAcknowledgesNothingAndRotatesNothing) {
  TempDir d;
  std::atomic<bool> superseded{false};
  mbd::EventLogOptions options;
  options.fence = [&]() -> std::string { return superseded ? "term 2 was taken by hostB" : ""; };
  mbd::EventLogWriter w(d.path, 0, run_inline, options);
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  EXPECT_FALSE(w.failed_by_fence());

  superseded = true;
  EXPECT_FALSE(append_and_wait(w, job_new(2)));
  EXPECT_TRUE(w.failed_by_fence());
  EXPECT_EQ(w.failure(), "term 2 was taken by hostB");
  EXPECT_EQ(w.refusal(), "term 2 was taken by hostB");
  wire::Snapshot s;
  s.set_last_seq(2);
  w.rotate(s.SerializeAsString());
  EXPECT_FALSE(append_and_wait(w, job_new(3)));
  EXPECT_FALSE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{1});
}

// A rotation puts its files in place only while the master's lease is fresh (master
// failover: a master paused in the middle of one must not replace the files of a master
// that took over meanwhile). One that waits changes nothing and is made later.
TEST(EventLog, ARotationWaitsWhileTheLeaseIsNotFresh) {
  TempDir d;
  std::atomic<bool> fresh{false};
  mbd::EventLogOptions options;
  options.rotation_guard = [&]() -> std::string { return fresh ? "" : "the lease was not renewed lately"; };
  mbd::EventLogWriter w(d.path, 0, run_inline, options);
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  wire::Snapshot s;
  s.set_last_seq(1);
  w.rotate(s.SerializeAsString());
  ASSERT_TRUE(append_and_wait(w, job_new(2)));  // waiting is not a failure
  EXPECT_FALSE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_FALSE(fs::exists(d.path / "lsb.snapshot.tmp"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2}));

  fresh = true;
  s.set_last_seq(2);
  w.rotate(s.SerializeAsString());
  ASSERT_TRUE(append_and_wait(w, job_new(3)));
  EXPECT_TRUE(fs::exists(d.path / "lsb.snapshot"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), std::vector<std::int64_t>{3});
}

// The guard is asked again between the snapshot and lsb.events: a lease that lapses
// there leaves the old lsb.events in place, which the snapshot just written recovers
// with (it names the old file's last record).
TEST(EventLog, ALeaseThatLapsesMidRotationLeavesTheOldLogInPlace) {
  TempDir d;
  std::atomic<int> asked{0};
  mbd::EventLogOptions options;
  options.rotation_guard = [&]() -> std::string { return ++asked == 1 ? "" : "the lease was not renewed lately"; };
  mbd::EventLogWriter w(d.path, 0, run_inline, options);
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  struct stat before {};
  ASSERT_EQ(::stat((d.path / "lsb.events").c_str(), &before), 0);
  wire::Snapshot s;
  s.set_last_seq(1);
  w.rotate(s.SerializeAsString());
  ASSERT_TRUE(append_and_wait(w, job_new(2)));
  EXPECT_EQ(asked.load(), 2);
  EXPECT_TRUE(fs::exists(d.path / "lsb.snapshot"));
  struct stat after {};
  ASSERT_EQ(::stat((d.path / "lsb.events").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_FALSE(fs::exists(d.path / "lsb.events.new"));
  EXPECT_EQ(read_ids(d.path / "lsb.events"), (std::vector<std::int64_t>{1, 2}));
}
