// Appends records to lsb.events with group commit, and lines to lsb.acct.
//
// The state machine appends records and asks to be told when they are durable; a
// writer thread takes everything appended so far, writes it, calls fdatasync once and
// then posts every waiting callback back to the state machine's thread. Concurrent
// submissions thus share one fsync, and nothing is acknowledged before it is on disk.
//
// A full or failing disk: the writer keeps space allocated ahead of the end of both
// files (fallocate, FALLOC_FL_KEEP_SIZE) and tops it up after every round. While it
// cannot, refusal() names the cause and the state machine must refuse state changes
// before applying them; what it still appends (mbatchd's own records) goes into what is
// left of the reserve. It tries again every retry interval, so service returns by
// itself once space does. A write or fdatasync that fails anyway cuts the file back to
// the last whole synced record, fails every waiting callback and leaves the writer
// failed for good (failure() names why): the state machine applied changes the log
// does not hold, so only a restart (recovery from the log) makes them agree again.
// After a failed fdatasync the file itself is not trusted either (what the kernel could
// not write may still read back from its cache), so the restarted writer is made with
// `snapshot_first`: it refuses changes until a rotation has put the recovered state in a
// fresh lsb.snapshot and lsb.events.
//
// Duplicate logging (LSB_LOCALDIR): with a `replica` directory, each round is copied
// there and synced after the primary's sync and before its callbacks run
// (event_log_replica.h). The replica failing does not fail the round: it falls behind,
// and the writer tries to bring it up to date every retry interval.
//
// Fencing: with a `fence` (master failover), a round is neither written nor
// acknowledged once the fence names a reason; the writer then fails with it.
//
// rotate() writes a snapshot (temp file, fsync, rename, fsync of the directory) and
// starts a new lsb.events, keeping the old one as lsb.events.1; it is ordered with the
// appends around it. A rotation that cannot be made leaves the old lsb.events in use.
//
// Every file is created 0600 (jobs' environments are in it), the log directory 0700.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemons/common/histogram.h"
#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::mbd {

struct EventLogStats {
  std::uint64_t records = 0;
  std::uint64_t syncs = 0;
  std::uint64_t bytes = 0;          // of the current lsb.events
  std::uint64_t bytes_written = 0;  // to lsb.events since the writer started
  std::uint64_t rotations = 0;      // snapshots made (lsb.events started afresh)
  std::int64_t last_rotation = 0;   // wall-clock seconds; 0: none yet
  net::Histogram sync_seconds;      // each round's fdatasync of lsb.events and lsb.acct
};

// The system calls through which the writer changes its files; tests replace them to
// make a disk fail. Each returns what the system call does (-1 and errno on failure).
struct DiskOps {
  std::function<ssize_t(int fd, const void* data, std::size_t n)> write = ::write;
  std::function<int(int fd)> fdatasync = ::fdatasync;
  std::function<int(int fd, int mode, off_t offset, off_t len)> fallocate = ::fallocate;
};

// Where the duplicate of the log (LSB_LOCALDIR) stands: event_log_replica.h.
struct ReplicaState {
  std::filesystem::path dir;      // empty: the log is not duplicated
  std::int64_t behind_since = 0;  // wall-clock seconds since the replica missed a round; 0: up to date
  std::string cause;              // why, while behind
};

struct EventLogOptions {
  // Space kept allocated past the end of lsb.events and of lsb.acct. Records mbatchd
  // makes on its own while changes are refused (a pass under way, host status) use it.
  std::uint64_t events_reserve = 4u << 20;
  std::uint64_t acct_reserve = 1u << 20;
  // How often a writer whose reserve is short tries again.
  std::chrono::milliseconds retry_interval{1000};
  // Changes are refused until a rotation succeeds (see the header comment).
  bool snapshot_first = false;
  // Why, for the refusal's message: "after a failed write", "after a takeover".
  std::string snapshot_first_why = "after a failed write";
  // Empty while this mbatchd is master; else why not (a later term was claimed: see
  // master_role.h). Asked before each round is written and again after its sync: a
  // fenced writer acknowledges nothing, rotates nothing, and fails for good.
  std::function<std::string()> fence;
  // Empty when a rotation may put its files in place now; else why it waits (the
  // master's lease has not been renewed lately: master_role.h's lease_fresh). Asked,
  // with the fence, just before lsb.snapshot and then lsb.events are renamed into
  // place, so that a master paused in the middle of a rotation does not replace the
  // files of one that took over meanwhile. A rotation that waits is tried again later.
  std::function<std::string()> rotation_guard;
  DiskOps ops;
  // LSB_LOCALDIR: the directory in LSB_SHAREDIR that gets a copy of every round before
  // it is acknowledged (event_log_replica.h); empty: none. A replica that cannot be
  // written falls behind without failing the round, and is brought up to date every
  // retry_interval; on_replica is told each time it falls behind or catches up (on the
  // writer's thread).
  std::filesystem::path replica;
  DiskOps replica_ops;
  std::function<void(const ReplicaState&)> on_replica;
};

class EventLogReplica;

class EventLogWriter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  using Durable = std::function<void(bool ok)>;

  // Opens logdir/lsb.events for appending, first cutting it to `valid_bytes` (what
  // recovery read as whole records; 0 creates a new file). `post` runs a callback on
  // the state machine's thread.
  EventLogWriter(std::filesystem::path logdir, std::uint64_t valid_bytes, Post post, EventLogOptions options = {});
  ~EventLogWriter();
  EventLogWriter(const EventLogWriter&) = delete;
  EventLogWriter& operator=(const EventLogWriter&) = delete;

  // Empty when the log opened; else why not.
  const std::string& open_error() const { return open_error_; }
  // Empty while state changes may be made; else why not ("No space left on device"):
  // the reserve is short or the writer failed. Any thread.
  std::string refusal() const;
  // Empty unless a write or sync failed after changes were applied; then the cause.
  std::string failure() const;
  // The failure is the fence's: another master took a later term.
  bool failed_by_fence() const;
  // True until a rotation has succeeded, for a writer made with snapshot_first.
  bool snapshot_needed() const;

  void append(const wire::EventRecord& record);
  void append_acct(std::string line);
  // `done` runs once everything appended before this call is durable; false when it
  // never will be (failure() says why).
  void when_durable(Durable done);
  void rotate(std::string snapshot_payload);
  // The same, with the payload made on the writer's thread when the rotation comes, so
  // that serializing a large state does not hold up the caller's (the state thread).
  // `make_payload` must own what it reads.
  void rotate(std::function<std::string()> make_payload);
  // Between hold() and release() what is appended (records, lines, callbacks, a
  // rotation) waits and then goes to the writer at once, so it is written and synced in
  // one round: a request's records are all durable or, when that round fails, none.
  void hold();
  void release();
  // Flushes what is queued and stops the thread.
  void stop();

  EventLogStats stats() const;
  // The duplicate's state; its dir is empty without one. Any thread.
  ReplicaState replica_state() const;

 private:
  struct Batch {
    std::string events;
    std::string acct;
    std::uint64_t records = 0;
    std::vector<Durable> callbacks;
    bool rotate_after = false;
    std::function<std::string()> make_snapshot;  // with rotate_after: the payload, made by the writer
  };
  // An append-only file and how far it is known good and reserved.
  struct LogFile {
    int fd = -1;
    std::uint64_t size = 0;          // the end of its last whole, written record
    std::uint64_t reserved_end = 0;  // allocated up to here
  };

  void run();
  Batch& tail();  // the batch to add to; under mu_
  // Writes `bytes` at the end of `f`; on failure cuts it back and returns the cause.
  daemon::Status append_to(LogFile& f, const std::string& bytes);
  // Tops up `f`'s reserve; ok too where the file system cannot reserve.
  daemon::Status reserve(LogFile& f, std::uint64_t amount);
  daemon::Status reserve_all();
  // A new lsb.events, magic and reserve in place, synced, named lsb.events.new.
  daemon::Status create_events(LogFile& out);
  daemon::Status do_rotate(const std::string& snapshot);
  void set_refusal(std::string cause);
  // Brings the replica to the primary's files, unless a later master exists.
  void follow_replica();
  void report_replica(bool was_behind);
  std::string fence_reason() const;   // options_.fence's answer, empty without one
  std::string rotation_hold() const;  // the fence's, else options_.rotation_guard's

  std::filesystem::path logdir_;
  Post post_;
  EventLogOptions options_;
  std::string open_error_;
  LogFile events_;
  LogFile acct_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;
  std::deque<Batch> held_;  // appended since hold()
  bool holding_ = false;
  bool stopping_ = false;
  std::string refusal_;       // under mu_
  std::string failure_;       // under mu_
  bool fenced_ = false;       // under mu_: failure_ is the fence's
  bool snapshot_needed_;      // under mu_
  std::string rotate_error_;  // under mu_: why the last rotation failed
  EventLogStats stats_;
  std::unique_ptr<EventLogReplica> replica_;  // used on the writer's thread
  bool replica_told_ = false;                 // on_replica has been called once
  std::thread thread_;
};

// Writes all `n` bytes through `ops` (a short write continues, EINTR is retried);
// false on an error, with errno set.
bool write_all(const DiskOps& ops, int fd, const char* p, std::size_t n);
// Writes `payload` as the only record of `path` atomically: temp file, fsync, rename,
// fsync of the directory. `before_rename`, if given, is asked just before the rename:
// a reason (a non-empty answer) stops it there (the temp file is removed).
daemon::Status write_snapshot_file(const std::filesystem::path& path, const std::string& payload,
                                   const std::function<std::string()>& before_rename = {});
// Creates `dir` (and its parents) if missing; the last one created is 0700.
daemon::Status make_log_dir(const std::filesystem::path& dir);

}  // namespace lsf::mbd
