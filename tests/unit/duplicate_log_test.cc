// LSB_LOCALDIR: the event log written to a local primary and a shared replica. A
// replica that fails does not fail the round, catches up once it can be written, and
// after a rotation while behind is replaced whole; recovery on the duplicating host
// starts from whichever copy is newer.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace fs = std::filesystem;
using namespace lsf;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("lsfsched-duplog-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

wire::EventRecord job_new(std::int64_t id, std::int64_t epoch = 0) {
  wire::EventRecord r;
  r.set_seq(id);
  r.set_epoch(epoch);
  r.mutable_job_new()->set_job_id(id);
  r.mutable_job_new()->mutable_spec()->set_command("sleep " + std::to_string(id));
  return r;
}

std::vector<std::int64_t> read_ids(const fs::path& file) {
  std::vector<std::int64_t> ids;
  mbd::read_event_file(file, [&](std::string_view p, std::uint64_t) -> daemon::Status {
    wire::EventRecord r;
    if (!r.ParseFromArray(p.data(), static_cast<int>(p.size()))) return daemon::fail("parse");
    ids.push_back(r.job_new().job_id());
    return {};
  });
  return ids;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 1000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

void run_inline(std::function<void()> f) { f(); }

// A local primary and a shared replica whose disk fails while `fail` holds a cause.
struct Duplicated {
  TempDir root;
  fs::path local = root.path / "local", shared = root.path / "share" / "logdir";
  std::atomic<int> fail{0};
  std::mutex mu;
  std::vector<std::string> told;  // what on_replica said, in order

  mbd::EventLogOptions options() {
    mbd::EventLogOptions o;
    o.events_reserve = 64 << 10;
    o.acct_reserve = 16 << 10;
    o.retry_interval = std::chrono::milliseconds(10);
    o.replica = shared;
    o.replica_ops.write = [this](int fd, const void* p, std::size_t n) -> ssize_t {
      if (int e = fail.load()) {
        errno = e;
        return -1;
      }
      return ::write(fd, p, n);
    };
    o.replica_ops.fdatasync = [this](int fd) {
      if (int e = fail.load()) {
        errno = e;
        return -1;
      }
      return ::fdatasync(fd);
    };
    o.on_replica = [this](const mbd::ReplicaState& s) {
      std::lock_guard l(mu);
      told.push_back(s.behind_since == 0 ? "up to date" : "behind: " + s.cause);
    };
    return o;
  }
  std::vector<std::string> said() {
    std::lock_guard l(mu);
    return told;
  }
};

}  // namespace

TEST(DuplicateLog, EveryRoundIsInBothCopiesBeforeItIsAcknowledged) {
  Duplicated d;
  mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
  ASSERT_EQ(w.open_error(), "");
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(append_and_wait(w, job_new(i), "acct " + std::to_string(i) + "\n"));
    // Checked inside the acknowledgement's wait: nothing is told before the replica has it.
    EXPECT_EQ(read_ids(d.shared / "lsb.events").size(), static_cast<std::size_t>(i));
  }
  EXPECT_EQ(slurp(d.shared / "lsb.events"), slurp(d.local / "lsb.events"));
  EXPECT_EQ(slurp(d.shared / "lsb.acct"), "acct 1\nacct 2\nacct 3\n");
  EXPECT_EQ(w.replica_state().behind_since, 0);
  EXPECT_EQ(w.replica_state().dir, d.shared);
  EXPECT_EQ(d.said(), std::vector<std::string>{"up to date"});
}

TEST(DuplicateLog, AFailingReplicaFallsBehindAndCatchesUpWhenItCanBeWritten) {
  Duplicated d;
  mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  d.fail = EROFS;
  // Acknowledged on the primary alone; the replica says why it is behind.
  ASSERT_TRUE(append_and_wait(w, job_new(2), "acct 2\n"));
  ASSERT_TRUE(append_and_wait(w, job_new(3)));
  EXPECT_EQ(w.refusal(), "");
  EXPECT_EQ(read_ids(d.local / "lsb.events"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(read_ids(d.shared / "lsb.events"), (std::vector<std::int64_t>{1}));
  auto s = w.replica_state();
  EXPECT_NE(s.behind_since, 0);
  EXPECT_NE(s.cause.find("Read-only file system"), std::string::npos) << s.cause;
  // The fault clears: the writer brings the replica up to date by itself, no round needed.
  d.fail = 0;
  ASSERT_TRUE(eventually([&] { return w.replica_state().behind_since == 0; }));
  EXPECT_EQ(slurp(d.shared / "lsb.events"), slurp(d.local / "lsb.events"));
  EXPECT_EQ(slurp(d.shared / "lsb.acct"), "acct 2\n");
  auto said = d.said();
  ASSERT_EQ(said.size(), 3u);  // told once of each change, not at every retry
  EXPECT_EQ(said[1].rfind("behind: ", 0), 0u);
  EXPECT_EQ(said[2], "up to date");
  // And it follows again round by round.
  ASSERT_TRUE(append_and_wait(w, job_new(4)));
  EXPECT_EQ(read_ids(d.shared / "lsb.events"), (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST(DuplicateLog, ARotationIsCopiedAndOneMadeWhileBehindIsMadeUpWhole) {
  Duplicated d;
  mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  wire::Snapshot s;
  s.set_last_seq(1);
  w.rotate(s.SerializeAsString());
  ASSERT_TRUE(append_and_wait(w, job_new(2)));
  EXPECT_EQ(slurp(d.shared / "lsb.snapshot"), slurp(d.local / "lsb.snapshot"));
  EXPECT_EQ(read_ids(d.shared / "lsb.events.1"), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(read_ids(d.shared / "lsb.events"), (std::vector<std::int64_t>{2}));

  ASSERT_TRUE(append_and_wait(w, job_new(20), "acct 20\n"));
  struct stat acct_before {};
  ASSERT_EQ(::stat((d.shared / "lsb.acct").c_str(), &acct_before), 0);
  d.fail = EIO;
  ASSERT_TRUE(append_and_wait(w, job_new(3), "acct 3\n"));
  s.set_last_seq(3);
  w.rotate(s.SerializeAsString());
  ASSERT_TRUE(append_and_wait(w, job_new(4)));
  EXPECT_NE(w.replica_state().behind_since, 0);
  EXPECT_NE(slurp(d.shared / "lsb.snapshot"), slurp(d.local / "lsb.snapshot"));
  d.fail = 0;
  ASSERT_TRUE(eventually([&] { return w.replica_state().behind_since == 0; }));
  for (const char* f : {"lsb.snapshot", "lsb.events", "lsb.events.1", "lsb.acct"})
    EXPECT_EQ(slurp(d.shared / f), slurp(d.local / f)) << f;
  // lsb.acct, never rotated, was extended in place, not copied again.
  struct stat acct_after {};
  ASSERT_EQ(::stat((d.shared / "lsb.acct").c_str(), &acct_after), 0);
  EXPECT_EQ(acct_after.st_ino, acct_before.st_ino);
  ASSERT_TRUE(append_and_wait(w, job_new(5)));
  EXPECT_EQ(read_ids(d.shared / "lsb.events"), (std::vector<std::int64_t>{4, 5}));
}

TEST(DuplicateLog, AShareThatComesBackEmptyGetsEveryFileAgain) {
  Duplicated d;
  mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1), "acct 1\n"));
  fs::remove_all(d.shared);  // a new, empty file system mounted there
  ASSERT_TRUE(append_and_wait(w, job_new(2)));
  ASSERT_TRUE(eventually([&] { return w.replica_state().behind_since == 0; }));
  EXPECT_EQ(slurp(d.shared / "lsb.events"), slurp(d.local / "lsb.events"));
  EXPECT_EQ(slurp(d.shared / "lsb.acct"), "acct 1\n");
}

TEST(DuplicateLog, AReplicaAnotherProcessReplacedIsNotAppendedTo) {
  Duplicated d;
  mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
  ASSERT_TRUE(append_and_wait(w, job_new(1)));
  // Another master's file in its place: appended to, this writer would write into the
  // middle of it. It is replaced whole instead (the fence says no later master exists).
  fs::remove(d.shared / "lsb.events");
  std::ofstream(d.shared / "lsb.events") << "someone else's";
  ASSERT_TRUE(append_and_wait(w, job_new(2)));
  ASSERT_TRUE(eventually([&] { return w.replica_state().behind_since == 0; }));
  EXPECT_EQ(slurp(d.shared / "lsb.events"), slurp(d.local / "lsb.events"));
}

TEST(DuplicateLog, AWriterStartedAgainGoesOnInPlaceWhenTheReplicaMatches) {
  Duplicated d;
  {
    mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
    ASSERT_TRUE(append_and_wait(w, job_new(1)));
  }
  struct stat st1 {};
  ::stat((d.shared / "lsb.events").c_str(), &st1);
  mbd::EventLogWriter w(d.local, fs::file_size(d.local / "lsb.events"), run_inline, d.options());
  ASSERT_TRUE(append_and_wait(w, job_new(2)));
  struct stat st2 {};
  ::stat((d.shared / "lsb.events").c_str(), &st2);
  EXPECT_EQ(st1.st_ino, st2.st_ino);  // appended, not copied again
  EXPECT_EQ(read_ids(d.shared / "lsb.events"), (std::vector<std::int64_t>{1, 2}));
}

TEST(DuplicateLog, TheFirstCandidateAloneDuplicates) {
  config::ClusterConfig c;
  c.cluster_name = "c1";
  c.lsf_conf.lsb_sharedir = "/share";
  c.lsf_conf.master_list = {"hostA", "hostB"};
  EXPECT_EQ(mbd::event_log_dirs(c, "hostA").primary, fs::path("/share/c1/logdir"));
  EXPECT_TRUE(mbd::event_log_dirs(c, "hostA").replica.empty());
  c.lsf_conf.values["LSB_LOCALDIR"] = "/local/lsf";
  auto a = mbd::event_log_dirs(c, "hostA");
  EXPECT_EQ(a.primary, fs::path("/local/lsf"));
  EXPECT_EQ(a.replica, fs::path("/share/c1/logdir"));
  auto b = mbd::event_log_dirs(c, "hostB");
  EXPECT_EQ(b.primary, fs::path("/share/c1/logdir"));
  EXPECT_TRUE(b.replica.empty());
}

TEST(DuplicateLog, RecoveryStartsFromTheNewerCopy) {
  Duplicated d;
  auto log = std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_mt>());
  {
    mbd::EventLogWriter w(d.local, 0, run_inline, d.options());
    ASSERT_TRUE(append_and_wait(w, job_new(1, 1), "acct 1\n"));
  }
  const mbd::LogDirs dirs{d.local, d.shared};
  // Equal: nothing copied.
  EXPECT_FALSE(mbd::log_position(d.local) < mbd::log_position(d.shared));
  EXPECT_EQ(mbd::reconcile_log_copies(dirs, *log).message(), "");
  // A master on another host (term 2) rotated and appended to the shared copy alone.
  {
    mbd::EventLogWriter other(d.shared, fs::file_size(d.shared / "lsb.events"), run_inline);
    wire::Snapshot s;
    s.set_last_seq(1);
    s.set_epoch(2);
    other.rotate(s.SerializeAsString());
    ASSERT_TRUE(append_and_wait(other, job_new(2, 2), "acct 2\n"));
  }
  // This host had written a record the replica never got, in the older term.
  {
    mbd::EventLogOptions o;
    mbd::EventLogWriter w(d.local, fs::file_size(d.local / "lsb.events"), run_inline, o);
    ASSERT_TRUE(append_and_wait(w, job_new(7, 1)));
  }
  auto local = mbd::log_position(d.local), shared = mbd::log_position(d.shared);
  EXPECT_EQ(local.epoch, 1);
  EXPECT_EQ(local.seq, 7);
  EXPECT_EQ(shared.epoch, 2);
  EXPECT_EQ(shared.seq, 2);
  ASSERT_EQ(mbd::reconcile_log_copies(dirs, *log).message(), "");
  for (const char* f : {"lsb.snapshot", "lsb.events", "lsb.events.1", "lsb.acct"})
    EXPECT_EQ(slurp(d.local / f), slurp(d.shared / f)) << f;
  // The local copy newer (the share was down when this host stopped): kept as it is.
  {
    mbd::EventLogWriter w(d.local, fs::file_size(d.local / "lsb.events"), run_inline);
    ASSERT_TRUE(append_and_wait(w, job_new(3, 3)));
  }
  const std::string newer = slurp(d.local / "lsb.events");
  ASSERT_EQ(mbd::reconcile_log_copies(dirs, *log).message(), "");
  EXPECT_EQ(slurp(d.local / "lsb.events"), newer);
  // An unreadable share: recovery goes on from the local copy.
  EXPECT_EQ(mbd::reconcile_log_copies({d.local, d.root.path / "gone"}, *log).message(), "");
}
