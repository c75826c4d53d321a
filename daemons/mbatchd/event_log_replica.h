// EventLogReplica: the second copy of the event log that LSB_LOCALDIR asks for (LSF's
// duplicate event logging). The primary lsb.events and lsb.acct are on the first master
// candidate's local disk; this class keeps their copy in LSB_SHAREDIR, where a master
// on another host recovers from.
//
// It copies what the primary holds, never what the writer meant to write: follow()
// brings the replica's files to the primary's sizes by copying the primary's bytes
// past the replica's last good offset, then fdatasync. In step, that is the round just
// written; after an outage, everything missed. A rotation is copied as the primary made
// it (lsb.events kept as lsb.events.1, then lsb.snapshot, then the new lsb.events); a
// rotation while behind, or a replica that does not match the primary at start, is
// made up by copying whole files (temp, fdatasync, rename), lsb.snapshot before
// lsb.events, so that a crash halfway leaves a replica that is older, never mixed.
//
// A failure (EROFS, EIO, ENOSPC, a directory gone with an unmounted share) leaves the
// replica behind with its cause; the writer goes on with the primary and calls
// follow() again every retry interval. The files are opened for each round, not held:
// nothing keeps the share busy (it can be remounted) and a file another master put in
// place is never written through an old descriptor; one whose inode is not the one
// this replica last wrote is not appended to either, but replaced whole once the
// writer's fence says no later master exists.
//
// Thread: the event log writer's thread; state() from any.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>

#include "daemons/common/status.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace lsf::mbd {

class EventLogReplica {
 public:
  // `primary` holds the files as the writer has them: lsb.events of `events_size`
  // bytes and lsb.acct of `acct_size` bytes.
  // `fence`: EventLogOptions::fence, asked again before each file is put in place.
  EventLogReplica(std::filesystem::path primary, std::filesystem::path replica, DiskOps ops,
                  std::function<std::string()> fence, std::chrono::milliseconds retry_interval,
                  std::uint64_t events_size, std::uint64_t acct_size);

  // Makes the replica hold what the primary holds up to these sizes. True when it does.
  bool follow(std::uint64_t events_size, std::uint64_t acct_size);
  // The primary has just rotated (its old lsb.events is lsb.events.1, a new lsb.snapshot
  // and lsb.events of `events_size` bytes are in place); follow() came first.
  void rotated(std::uint64_t events_size, std::uint64_t acct_size);
  // Behind, and the retry interval has passed since the last try.
  bool retry_due() const;
  bool behind() const;
  ReplicaState state() const;

 private:
  // A file of the replica appended to in place.
  struct Tail {
    const char* name;
    std::uint64_t size = 0;  // bytes known equal to the primary's and synced
    dev_t dev = 0;
    ino_t ino = 0;  // 0: not known; the file is copied whole
  };
  daemon::Status extend(Tail& t, std::uint64_t target);
  daemon::Status copy_whole(std::uint64_t events_size, std::uint64_t acct_size);
  // Copies the first `bytes` of the primary's `name` over the replica's (temp file,
  // fdatasync, rename; no directory sync). SIZE_MAX: all of it.
  daemon::Status copy_file(const char* name, std::uint64_t bytes);
  daemon::Status copy_jobid_if_changed();
  bool matches_primary(std::uint64_t events_size, std::uint64_t acct_size);
  // Up to date when `outcome` is ok, else behind with its cause.
  void set(const daemon::Status& outcome);

  std::filesystem::path primary_, dir_;
  DiskOps ops_;
  std::function<std::string()> fence_;
  std::chrono::milliseconds retry_interval_;
  Tail events_{"lsb.events"};
  Tail acct_{"lsb.acct"};
  bool whole_ = true;  // the next follow() copies whole files
  std::string jobid_stamp_;
  std::chrono::steady_clock::time_point next_try_{};

  mutable std::mutex mu_;
  ReplicaState state_;  // under mu_
};

}  // namespace lsf::mbd
