// MasterRole: this mbatchd's term as master of its cluster (daemons/common/master_lease.h).
//
// acquire() comes before recovery, so that the previous master is fenced before its
// log is read: nothing it writes after that is ever acknowledged. It takes the next
// term at once when no master ever was, when the last one released its term by a clean
// stop, when the last term was this host's (the caller holds the host's mbatchd lock,
// so that mbatchd is gone: a restart after a crash), or when the caller (a candidate's
// sbatchd, `mbatchd --takeover`) has already seen the lease go still; otherwise it
// waits for the lease to stay still for the first candidate's takeover time and
// refuses to start if it beats (another mbatchd serves).
//
// While serving, renew() beats each EXINTERVAL. fenced() is what the event log's writer
// asks after each sync and before each rotation: once a later term exists, this
// mbatchd acknowledges nothing more and steps down.
//
// Owns: the term held. Thread: acquire, renew, release and set_port on the state
// thread; fenced() and epoch() from any (the writer's thread calls them).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <spdlog/logger.h>

#include "daemons/common/master_lease.h"
#include "daemons/common/status.h"
#include "libconfig/failover_params.h"

namespace lsf::mbd {

class MasterRole {
 public:
  MasterRole(std::filesystem::path logdir, std::string host, config::FailoverTiming timing)
      : lease_(std::move(logdir)), host_(std::move(host)), timing_(timing) {}

  // `address`: where this mbatchd listens (empty: every address). `takeover_from`:
  // the caller saw the lease of that term go still (or released, or none: 0), so the
  // next term is claimed at once, and only that one: if another candidate has taken it
  // meanwhile, this mbatchd is not wanted. Logs what it waits for.
  daemon::Status acquire(const std::string& address, std::uint16_t port, std::optional<std::int64_t> takeover_from,
                         spdlog::logger& log);
  // The term held; 0 before acquire.
  std::int64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  // Whether the term taken followed one that was not released (a crash or a takeover):
  // the new master then starts the log afresh, so that a late write of the old one
  // lands in the file it had open, not in the log the new one appends to.
  bool took_over() const { return took_over_; }
  const net::MasterTerm& term() const { return term_; }
  // The port bound, when the configured one was 0; written with the next beat.
  void set_port(std::uint16_t port) { term_.port = port; }

  // One beat; fails when a later term exists (fenced() then holds) or the file cannot
  // be written.
  daemon::Status renew();
  bool fenced() const;
  // Whether the last beat is recent enough that no candidate can have claimed the next
  // term yet, with half an EXINTERVAL to spare: a candidate claims only after
  // takeover_after(0) of silence from its first sight of that beat. What cannot be
  // undone by a later fence (putting a snapshot or a new lsb.events in place) is done
  // only while it holds.
  bool lease_fresh() const;
  // A clean stop: the next mbatchd claims at once.
  void release();
  // Who holds the term after this one, as "hostB (term 4)", for the log and for replies.
  std::string successor() const;
  const config::FailoverTiming& timing() const { return timing_; }

 private:
  net::MasterLease lease_;
  std::string host_;
  config::FailoverTiming timing_;
  net::MasterTerm term_;
  std::atomic<std::int64_t> epoch_{0};
  // steady_clock nanoseconds of the claim or the last beat written.
  std::atomic<std::int64_t> beat_written_ns_{0};
  bool took_over_ = false;
};

}  // namespace lsf::mbd
