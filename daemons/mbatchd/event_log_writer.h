// Appends records to lsb.events with group commit, and lines to lsb.acct.
//
// The state machine appends records and asks to be told when they are durable; a
// writer thread takes everything appended so far, writes it, calls fdatasync once and
// then posts every waiting callback back to the state machine's thread. Concurrent
// submissions thus share one fsync, and nothing is acknowledged before it is on disk.
//
// rotate() writes a snapshot (temp file, fsync, rename, fsync of the directory) and
// starts a new lsb.events, keeping the old one as lsb.events.1; it is ordered with the
// appends around it.
#pragma once

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

#include "lsf.pb.h"

namespace lsf::mbd {

struct EventLogStats {
  std::uint64_t records = 0;
  std::uint64_t syncs = 0;
  std::uint64_t bytes = 0;  // of the current lsb.events
};

class EventLogWriter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  using Durable = std::function<void(bool ok)>;

  // Opens logdir/lsb.events for appending, first cutting it to `valid_bytes` (what
  // recovery read as whole records; 0 creates a new file). `post` runs a callback on
  // the state machine's thread.
  EventLogWriter(std::filesystem::path logdir, std::uint64_t valid_bytes, Post post);
  ~EventLogWriter();
  EventLogWriter(const EventLogWriter&) = delete;
  EventLogWriter& operator=(const EventLogWriter&) = delete;

  // Empty when the log opened; else why not.
  const std::string& open_error() const { return open_error_; }

  void append(const wire::EventRecord& record);
  void append_acct(std::string line);
  // `done` runs once everything appended before this call is durable.
  void when_durable(Durable done);
  void rotate(std::string snapshot_payload);
  // Flushes what is queued and stops the thread.
  void stop();

  EventLogStats stats() const;

 private:
  struct Batch {
    std::string events;
    std::string acct;
    std::uint64_t records = 0;
    std::vector<Durable> callbacks;
    bool rotate_after = false;
    std::string snapshot;
  };

  void run();
  bool open_events();
  bool do_rotate(const std::string& snapshot);

  std::filesystem::path logdir_;
  Post post_;
  std::string open_error_;
  int events_fd_ = -1;
  int acct_fd_ = -1;
  bool last_sync_ok_ = true;  // the writer thread's own: how its last sync went

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;
  bool stopping_ = false;
  EventLogStats stats_;
  std::thread thread_;
};

// Writes `payload` as the only record of `path` atomically: temp file, fsync, rename,
// fsync of the directory. Empty on success.
std::string write_snapshot_file(const std::filesystem::path& path, const std::string& payload);

}  // namespace lsf::mbd
