// The master's term (its epoch) and the lease that keeps it, as files beside the event
// log (LSB_SHAREDIR/<cluster>/logdir), so that whoever can write the log sees them.
//
//   lsb.master.<N>   "<N> <host> <address> <port> <beat>\n"
//
// Term N belongs to the mbatchd that created lsb.master.<N> (O_CREAT|O_EXCL, which is
// atomic on local file systems and NFSv3+): two candidates racing for the same term
// cannot both win. The holder renews its lease by raising <beat> (the file is replaced
// by rename, so a reader sees one whole line); a master that stops cleanly writes beat
// 0 (released), so that the next mbatchd claims at once. A candidate that has seen the beat stay
// still for the lease time, on its own monotonic clock, may claim N+1; no two hosts'
// clocks are ever compared.
//
// Fencing: once lsb.master.<N+1> exists, the holder of N is superseded. It checks that
// (one stat) after each fdatasync of the event log and before it acknowledges anything
// or sends a StartJob, so a master that was paused while another took over makes
// nothing durable that anyone is told of, and steps down. What it may still append
// while paused carries its epoch, which replay refuses after a newer one.
//
// Thread: any; nothing here is shared between calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "daemons/common/status.h"

namespace lsf::net {

struct MasterTerm {
  std::int64_t epoch = 0;  // 0: no master has claimed a term in this directory yet
  std::string host;
  std::string address;  // where its mbatchd listens; its host name when on every address
  std::uint16_t port = 0;
  std::uint64_t beat = 0;  // 0: released by a clean stop

  bool released() const { return epoch > 0 && beat == 0; }

  bool operator==(const MasterTerm&) const = default;
};

class MasterLease {
 public:
  explicit MasterLease(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The highest term claimed, as its file reads now; epoch 0 when there is none.
  daemon::Result<MasterTerm> current() const;
  // Claims the term after `after_epoch` for this host and port, in a directory that
  // exists (the caller makes it, with the event log's permissions). Fails when another
  // claimed it first (the caller is then not master) or the file cannot be made
  // durable. Removes the files of terms two or more behind the new one.
  daemon::Result<MasterTerm> claim(std::int64_t after_epoch, const std::string& host, const std::string& address,
                                   std::uint16_t port) const;
  // Raises the beat of `term`, which the caller holds; fails without writing when a
  // later term exists (the caller is superseded) or the file cannot be written.
  daemon::Status renew(MasterTerm& term) const;
  // Writes beat 0 for `term` unless a later term exists: the holder stopped cleanly.
  daemon::Status release(MasterTerm& term) const;
  // Whether a term after `epoch` has been claimed.
  bool superseded(std::int64_t epoch) const;

  std::filesystem::path path_of(std::int64_t epoch) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  daemon::Status rewrite(MasterTerm& term, const MasterTerm& next) const;

  std::filesystem::path dir_;
};

// "<N> <host> <address> <port> <beat>" back to a term; nullopt when it is not one.
std::optional<MasterTerm> parse_master_term(const std::string& line);

// What a master candidate concludes from the lease it reads, on its own clock: the
// master is gone once its beat has not moved for `silence`.
class LeaseWatch {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LeaseWatch(std::chrono::milliseconds silence) : silence_(silence) {}

  // Each reading of MasterLease::current(), with when it was made.
  void observe(const MasterTerm& term, Clock::time_point now);
  // The lease read has not changed for `silence` (no term at all counts as unchanged
  // since the first reading).
  bool expired(Clock::time_point now) const;
  const MasterTerm& last() const { return last_; }
  std::chrono::milliseconds silence() const { return silence_; }

 private:
  std::chrono::milliseconds silence_;
  MasterTerm last_;
  bool seen_ = false;
  Clock::time_point changed_at_{};
};

}  // namespace lsf::net
