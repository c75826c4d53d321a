// EventLogCore: the event log every component records through, from recovery to the
// last sync at stop.
//
// Owns: the EventLogWriter (lsb.events, lsb.snapshot, lsb.acct) and attaching it to the
// LogEventSink the components hold; lsb.jobid's mark (JobIdMark); the snapshot policy
// and its timer. The state, the sink and the master's term are mbatchd's; what to do
// when a write fails or the term is lost (stop, restart, step down) is mbatchd's too
// (lifecycle.h): the core reports, mbatchd decides.
//
// Thread: the state thread. recover() and open() run on the thread that starts
// mbatchd, before run() hands the state to the io_context's thread; the writer's own
// thread stays behind EventLogWriter, whose callbacks come back through the io_context.
//
// Recovery: recover() reads the log directory by recovery.h's contract (snapshot, then
// the events after it; records of an older master term after a newer one skipped; a
// torn tail dropped; damage refused with a hint at `mbatchd --salvage`; the next job id
// raised to lsb.jobid's mark) and logs what it found; open() then opens lsb.events cut
// to the last whole record.
//
// Snapshots: after MAX_JOB_NUM finished jobs, or once lsb.events passes
// kMaxEventLogBytes, the state (stamped with the master's term) goes to lsb.snapshot and
// a new lsb.events starts. Past kSnapshotFloorJobs jobs held, a snapshot also waits for
// a quarter of them to have finished (snapshot_after()). A writer that must start with a
// fresh snapshot (after a failed write, after a takeover) refuses changes until one is
// made, tried each second.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "daemons/common/asio.h"
#include "daemons/common/status.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "daemons/mbatchd/event_sink.h"
#include "daemons/mbatchd/job_id_mark.h"
#include "daemons/mbatchd/master_role.h"
#include "libconfig/cluster_config.h"

namespace lsf::mbd {

// Where lsb.events, lsb.snapshot and lsb.acct live.
std::filesystem::path logdir_of(const config::ClusterConfig& config);

class EventLogCore {
 public:
  // Snapshots also start when lsb.events passes this size, whatever MAX_JOB_NUM says.
  static constexpr std::uint64_t kMaxEventLogBytes = 256u << 20;
  // A snapshot is built on the state thread, every request waiting, in time that grows
  // with the jobs held: 60-120 ms at 30,000 jobs on the 2-core machine, most of it
  // copying the jobs into the message. Taken every MAX_JOB_NUM (1,000) finished jobs, at
  // 100,000 jobs that was a quarter of a millisecond per finished job and stalls of
  // about 300 ms. Past this many jobs a snapshot waits for a quarter of the jobs held to
  // have finished: its cost per finished job stays bounded, and so does what recovery
  // replays after it (about as many events as the snapshot holds jobs). Below it, a
  // snapshot takes a few milliseconds and MAX_JOB_NUM rules alone, as in LSF.
  static constexpr std::size_t kSnapshotFloorJobs = 8192;
  // How many finished jobs a snapshot waits for with `max_job_num` and `jobs_held`.
  static std::int64_t snapshot_after(int max_job_num, std::size_t jobs_held);

  // `config` is mbatchd's pointer to the configuration in force (component_context.h);
  // `role` is the master's term, none without failover; `host` is this mbatchd's, which
  // decides whether it keeps the duplicate log (LSB_LOCALDIR, duplicate_log.h).
  EventLogCore(const std::shared_ptr<const config::ClusterConfig>& config, const ConfigIndex& index,
               ClusterState& state, LogEventSink& sink, std::shared_ptr<spdlog::logger> log, net::asio::io_context& io,
               std::shared_ptr<MasterRole> role, std::string host);
  EventLogCore(const EventLogCore&) = delete;
  EventLogCore& operator=(const EventLogCore&) = delete;

  // Replays the log directory into the state; else why mbatchd must not start.
  daemon::Status recover();
  // After recover(): opens lsb.events where recovery left it and attaches it to the
  // sink. With `fresh_snapshot` (after a failed write) or after a takeover, changes are
  // refused until the state is in a fresh lsb.snapshot and lsb.events.
  daemon::Status open(EventLogOptions options, bool fresh_snapshot);

  // After each finished job: a snapshot when the policy above says so.
  void maybe_snapshot();
  // The writer (after open()): durability callbacks, hold/release, its refusal.
  EventLogWriter& writer() { return *writer_; }
  // lsb.jobid: a submission covers its id before using it.
  JobIdMark& job_ids() { return job_ids_; }
  // Empty unless a write the state reflects failed; then why.
  std::string failure() const { return writer_ ? writer_->failure() : std::string(); }
  // Ends a refusal the sink still holds once the writer has room again (logged then):
  // a full disk that cleared with no request to notice it.
  void note_room();

  // Stopping: no more tries of a fresh snapshot; once what is queued is durable, the
  // job-id mark comes back down to the next id (unless `superseded` says a later master
  // has the log: its mark is ahead) and `then` runs.
  void close(std::function<bool()> superseded, std::function<void()> then);
  // Flushes what is queued and stops the writer's thread (mbatchd's destructor).
  void stop_writer();

  // For mbatchd's accessors (job_service_hooks.cc, routes.cc) and the fuzz harness.
  const std::unique_ptr<EventLogWriter>& writer_ptr() const { return writer_; }

 private:
  wire::Snapshot snapshot_now() const;  // the state, stamped with this master's term
  // Queues the rotation a fresh snapshot asks for, and again each second until made.
  void write_fresh_snapshot();

  const std::shared_ptr<const config::ClusterConfig>& config_;
  const ConfigIndex& index_;
  ClusterState& state_;
  LogEventSink& sink_;
  std::shared_ptr<spdlog::logger> log_;
  net::asio::io_context& io_;
  std::shared_ptr<MasterRole> role_;

  std::string host_;               // this mbatchd's: whether it keeps the duplicate log
  std::filesystem::path logdir_;   // chosen by recover(), opened by open()
  std::filesystem::path replica_;  // LSB_LOCALDIR: the copy in LSB_SHAREDIR (duplicate_log.h)
  std::uint64_t valid_log_bytes_ = 0;
  JobIdMark job_ids_{""};
  std::unique_ptr<EventLogWriter> writer_;
  net::asio::steady_timer snapshot_timer_;  // the next try of write_fresh_snapshot
  std::uint64_t snapshot_tries_ = 0;
};

}  // namespace lsf::mbd
