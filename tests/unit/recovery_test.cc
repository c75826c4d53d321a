// Recovery (daemons/mbatchd/recovery.h) without a daemon: a log directory written by
// hand, read into a ClusterState; and EventLogCore (event_log_core.h) recovering,
// recording and snapshotting by MAX_JOB_NUM.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "component_world.h"
#include "daemons/common/asio.h"
#include "daemons/mbatchd/acct_record.h"
#include "daemons/mbatchd/event_log_core.h"
#include "daemons/mbatchd/event_log_format.h"
#include "daemons/mbatchd/recovery.h"
#include "event_records.h"

using namespace lsf;
using lsf::testing::job_new;
using lsf::testing::job_start;
using lsf::testing::job_status;
namespace fs = std::filesystem;

namespace {

// `r` as the sink would have stamped it.
wire::EventRecord stamped(wire::EventRecord r, std::int64_t seq, std::int64_t epoch = 0) {
  r.set_seq(seq);
  r.set_time(1'700'000'000 + seq);
  r.set_epoch(epoch);
  return r;
}

// lsb.events as the writer leaves it (event_log_format.h).
std::string log_bytes(const std::vector<wire::EventRecord>& records) {
  std::string out(mbd::kEventLogMagic);
  for (const auto& r : records) {
    const std::string payload = r.SerializeAsString();
    char header[mbd::kRecordHeaderSize];
    mbd::put_u32(header, static_cast<std::uint32_t>(payload.size()));
    mbd::put_u32(header + 4, mbd::record_crc(payload));
    out.append(header, sizeof header);
    out += payload;
  }
  return out;
}

struct LogDir : lsf::testing::ComponentWorld {
  fs::path dir;

  LogDir() {
    load();
    dir = mbd::logdir_of(*config);
    fs::create_directories(dir);
  }
  void write_events(const std::string& bytes) const { std::ofstream(dir / "lsb.events", std::ios::binary) << bytes; }
  // Recovers into a fresh state, as a new mbatchd would.
  daemon::Result<mbd::RecoveryResult> recover(mbd::ClusterState& into) const {
    into.sync_config(*config, index.policy);
    return mbd::recover_state(dir, into, *config, index);
  }
};

// lsb.acct's line for a job of `user` that ran from `start` to `end` (start 0: never ran).
std::string acct_line(std::int64_t id, const std::string& user, std::int64_t start, std::int64_t end) {
  auto sub = std::make_shared<mbd::Submission>();
  sub->user = user;
  sub->submit_time = 1'700'000'000;
  mbd::Job job;
  job.key = {id, 0};
  job.submission = sub;
  job.queue = "normal";
  job.state = wire::JOB_DONE;
  job.start_time = start;
  return mbd::job_finish_record(job, end) + "\n";
}

}  // namespace

// A snapshot without runtime history (none, or one written before RUNTIME_ESTIMATE =
// PREDICT existed) leaves the history to lsb.acct: each user's last two runtimes, in
// the order jobs ended; lines that are not a job that ran count for nothing.
TEST(Recovery, RuntimeHistoryFromLsbAcct) {
  LogDir w;
  std::ofstream(w.dir / "lsb.acct") << acct_line(1, "alice", 1000, 1600)  // pushed out by the next two
                                    << acct_line(2, "alice", 2000, 2100) << "\"JOB_FINISH\" torn\n"
                                    << acct_line(3, "bob", 0, 2200)  // killed while pending
                                    << acct_line(4, "alice", 2000, 2300) << acct_line(5, "bob", 3000, 3050);
  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->acct_runtimes, 4u);
  EXPECT_EQ(state.runtimes().predicted("alice"), 200);
  EXPECT_EQ(state.runtimes().predicted("bob"), 50);

  // A snapshot that carries the history is the newer word: lsb.acct is not read.
  mbd::ClusterState before;
  before.sync_config(*w.config, w.index.policy);
  sched::RuntimeHistory kept;
  kept.finished("alice", 7);
  before.set_runtimes(kept);
  ASSERT_EQ(
      mbd::write_snapshot_file(w.dir / "lsb.snapshot", before.snapshot(w.sink.clock).SerializeAsString()).message(),
      "");
  mbd::ClusterState again;
  auto r2 = w.recover(again);
  ASSERT_TRUE(r2.ok()) << r2.error();
  EXPECT_EQ(r2->acct_runtimes, 0u);
  EXPECT_EQ(again.runtimes().predicted("alice"), 7);
  EXPECT_FALSE(again.runtimes().predicted("bob").has_value());
}

// The snapshot holds the state up to its sequence number; lsb.events replays what came
// after it, and nothing twice.
TEST(Recovery, SnapshotThenTheEventsAfterIt) {
  LogDir w;
  auto j1 = job_new(1), j2 = job_new(2);
  w.sink.record(j1);
  w.sink.record(j2);
  ASSERT_EQ(
      mbd::write_snapshot_file(w.dir / "lsb.snapshot", w.state.snapshot(w.sink.clock).SerializeAsString()).message(),
      "");
  auto s1 = job_start(1, "hostA"), j3 = job_new(3);
  w.sink.record(s1);
  w.sink.record(j3);
  // The log still holds the records the snapshot covers (a crash before the rotation
  // renamed the new lsb.events over it): they are not applied again.
  w.write_events(log_bytes(w.sink.records));

  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->snapshot_jobs, 2u);
  EXPECT_EQ(r->replayed, 2u);
  EXPECT_EQ(r->superseded, 0u);
  EXPECT_FALSE(r->torn_tail);
  EXPECT_EQ(r->valid_bytes, fs::file_size(w.dir / "lsb.events"));
  EXPECT_TRUE(r->warnings.empty());
  ASSERT_NE(state.find_job({1, 0}), nullptr);
  EXPECT_EQ(state.find_job({1, 0})->state, wire::JOB_RUN);
  EXPECT_NE(state.find_job({3, 0}), nullptr);
  EXPECT_EQ(state.last_seq(), 4);
  EXPECT_EQ(state.next_job_id(), 4);
}

// A partial last record is a write torn by a crash: dropped with a warning, and the
// writer is told to cut the file where the whole records end.
TEST(Recovery, TornTailIsDropped) {
  LogDir w;
  const std::string whole = log_bytes({stamped(job_new(1), 1), stamped(job_new(2), 2)});
  const std::string torn = log_bytes({stamped(job_new(1), 1), stamped(job_new(2), 2), stamped(job_new(3), 3)});
  w.write_events(torn.substr(0, torn.size() - 3));

  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->torn_tail);
  EXPECT_EQ(r->valid_bytes, whole.size());
  EXPECT_EQ(r->replayed, 2u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("dropped a partial record after offset " + std::to_string(whole.size())),
            std::string::npos)
      << r->warnings[0];
  EXPECT_EQ(state.find_job({3, 0}), nullptr);
}

// Damage with whole records after it is not a torn write: recovery refuses, naming the
// salvage.
TEST(Recovery, DamageInTheMiddleRefusesAndNamesTheSalvage) {
  LogDir w;
  const std::string two = log_bytes({stamped(job_new(1), 1), stamped(job_new(2), 2)});
  std::string bytes = log_bytes({stamped(job_new(1), 1), stamped(job_new(2), 2), stamped(job_new(3), 3)});
  const std::string one = log_bytes({stamped(job_new(1), 1)});
  bytes[one.size() + mbd::kRecordHeaderSize + 2] ^= 0x7f;  // inside the second record
  ASSERT_LT(one.size() + mbd::kRecordHeaderSize + 2, two.size());
  w.write_events(bytes);

  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("damaged record at offset " + std::to_string(one.size())), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("mbatchd --salvage"), std::string::npos) << r.error();
}

// A record of an older master term after one of a newer term is a late write of the
// superseded master, never acknowledged: skipped and counted.
TEST(Recovery, OlderTermAfterANewerOneIsSkipped) {
  LogDir w;
  w.write_events(log_bytes(
      {stamped(job_new(1), 1, 1), stamped(job_new(2), 2, 2), stamped(job_new(3), 3, 1), stamped(job_new(4), 4, 2)}));

  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->replayed, 3u);
  EXPECT_EQ(r->superseded, 1u);
  EXPECT_EQ(r->newest_epoch, 2);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], "skipped 1 records written by a master after its term had been taken over");
  EXPECT_NE(state.find_job({2, 0}), nullptr);
  EXPECT_EQ(state.find_job({3, 0}), nullptr);
  EXPECT_NE(state.find_job({4, 0}), nullptr);
}

// lsb.jobid is above every id handed out, whatever the log lost: the next id starts
// there, not after the last job replayed.
TEST(Recovery, JobIdMarkRaisesTheNextJobId) {
  LogDir w;
  w.write_events(log_bytes({stamped(job_new(1), 1)}));
  std::ofstream(w.dir / "lsb.jobid") << "1001\n";

  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->job_ids.mark(), 1001);
  EXPECT_EQ(state.next_job_id(), 1001);
}

// An empty directory (a new cluster) recovers to nothing; lsb.jobid that is not a mark
// stops mbatchd rather than risk giving ids twice.
TEST(Recovery, NewClusterAndUnreadableMark) {
  LogDir w;
  mbd::ClusterState state;
  auto r = w.recover(state);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->replayed, 0u);
  EXPECT_EQ(r->valid_bytes, 0u);
  EXPECT_EQ(state.next_job_id(), 1);

  std::ofstream(w.dir / "lsb.jobid") << "not a number\n";
  mbd::ClusterState again;
  auto bad = w.recover(again);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("not a job id mark"), std::string::npos) << bad.error();
}

// MAX_JOB_NUM rules while the state is small; past kSnapshotFloorJobs jobs held a
// snapshot waits for a quarter of them to finish, so that its cost (the whole state,
// built on the state thread) stays bounded per finished job.
TEST(EventLogCore, SnapshotsOfALargeStateWaitForAQuarterOfItsJobs) {
  using mbd::EventLogCore;
  EXPECT_EQ(EventLogCore::snapshot_after(1000, 100), 1000);
  EXPECT_EQ(EventLogCore::snapshot_after(1000, EventLogCore::kSnapshotFloorJobs), 1000);
  EXPECT_EQ(EventLogCore::snapshot_after(1000, 100000), 25000);
  EXPECT_EQ(EventLogCore::snapshot_after(2, EventLogCore::kSnapshotFloorJobs + 4), 2049);
  EXPECT_EQ(EventLogCore::snapshot_after(50000, 100000), 50000);
  EXPECT_EQ(EventLogCore::snapshot_after(0, 10), 1);

  LogDir w;
  w.tree.lsb("lsb.params", "Begin Parameters\nMAX_JOB_NUM = 2\nEnd Parameters\n");
  w.load();
  net::asio::io_context io;
  auto log = std::make_shared<spdlog::logger>("recovery_test");
  mbd::ClusterState state;
  state.sync_config(*w.config, w.index.policy);
  mbd::LogEventSink sink(state, log, [] {});
  mbd::EventLogCore core(w.config, w.index, state, sink, log, io, nullptr, "hostA");
  ASSERT_TRUE(core.recover().ok());
  ASSERT_TRUE(core.open({}, false).ok());
  const std::int64_t jobs = EventLogCore::kSnapshotFloorJobs + 800;  // a quarter: 2,248
  ASSERT_EQ(core.job_ids().cover(jobs).message(), "");
  for (std::int64_t id = 1; id <= jobs; ++id) {
    auto n = job_new(id);
    sink.record(n);
  }
  auto finish = [&](std::int64_t id) {
    auto s = job_start(id, "hostA"), d = job_status(id, wire::JOB_DONE);
    sink.record(s);
    sink.record(d);
    core.maybe_snapshot();
  };
  for (std::int64_t id = 1; id < jobs / 4; ++id) finish(id);
  EXPECT_EQ(state.finished_since_snapshot(), jobs / 4 - 1) << "no snapshot before a quarter of the jobs finished";
  finish(jobs / 4);
  EXPECT_EQ(state.finished_since_snapshot(), 0) << "the snapshot once a quarter finished";
  core.stop_writer();
}

// The core as mbatchd runs it: recover, open, record through the sink; after
// MAX_JOB_NUM finished jobs the state goes to lsb.snapshot, which the next recovery
// starts from; a clean close settles lsb.jobid.
TEST(EventLogCore, SnapshotsAfterMaxJobNumAndRecoversFromIt) {
  LogDir w;
  w.tree.lsb("lsb.params", "Begin Parameters\nMAX_JOB_NUM = 2\nEnd Parameters\n");
  w.load();
  net::asio::io_context io;
  auto log = std::make_shared<spdlog::logger>("recovery_test");
  bool failed = false;
  mbd::ClusterState state;
  state.sync_config(*w.config, w.index.policy);
  mbd::LogEventSink sink(state, log, [&] { failed = true; });
  {
    mbd::EventLogCore core(w.config, w.index, state, sink, log, io, nullptr, "hostA");
    ASSERT_TRUE(core.recover().ok());
    ASSERT_TRUE(core.open({}, false).ok());
    ASSERT_EQ(core.job_ids().cover(1).message(), "");
    for (std::int64_t id : {1, 2}) {
      auto n = job_new(id), s = job_start(id, "hostA"), d = job_status(id, wire::JOB_DONE);
      sink.record(n);
      sink.record(s);
      sink.record(d);
    }
    core.maybe_snapshot();
    auto guard = net::asio::make_work_guard(io);
    bool closed = false;
    core.close([] { return false; },
               [&] {
                 closed = true;
                 guard.reset();
               });
    io.run();
    EXPECT_TRUE(closed);
    EXPECT_FALSE(failed);
    EXPECT_EQ(core.failure(), "");
    core.stop_writer();
  }
  EXPECT_TRUE(fs::exists(w.dir / "lsb.snapshot"));
  mbd::ClusterState again;
  auto r = w.recover(again);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->snapshot_jobs, 2u);
  EXPECT_EQ(again.jobs().size(), 2u);
  // The clean close brought the mark back down from a block ahead to the next id.
  EXPECT_EQ(r->job_ids.mark(), 3);
  EXPECT_EQ(again.next_job_id(), 3);
}
