#include "daemons/mbatchd/event_log_core.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/recovery.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

fs::path logdir_of(const config::ClusterConfig& c) {
  return fs::path(c.lsf_conf.lsb_sharedir) / c.cluster_name / "logdir";
}

EventLogCore::EventLogCore(const std::shared_ptr<const config::ClusterConfig>& config, const ConfigIndex& index,
                           ClusterState& state, LogEventSink& sink, std::shared_ptr<spdlog::logger> log,
                           net::asio::io_context& io, std::shared_ptr<MasterRole> role, std::string host)
    : config_(config),
      index_(index),
      state_(state),
      sink_(sink),
      log_(std::move(log)),
      io_(io),
      role_(std::move(role)),
      host_(std::move(host)),
      snapshot_timer_(io) {}

daemon::Status EventLogCore::recover() {
  // With LSB_LOCALDIR the first candidate's log is local and duplicated to the shared
  // directory; whichever copy is newer is brought over the other first.
  const LogDirs dirs = event_log_dirs(*config_, host_);
  if (auto reconciled = reconcile_log_copies(dirs, *log_); !reconciled) return reconciled;
  replica_ = dirs.replica;
  fs::path dir = dirs.primary;
  auto recovered = recover_state(dir, state_, *config_, index_);
  if (!recovered.ok()) return recovered.status();
  logdir_ = dir;
  valid_log_bytes_ = recovered->valid_bytes;
  job_ids_ = recovered->job_ids;
  for (const auto& warning : recovered->warnings) log_->warn("{}", warning);
  log_->info("recovered {} jobs ({} from lsb.snapshot, {} events replayed) in {} ms", state_.jobs().size(),
             recovered->snapshot_jobs, recovered->replayed, recovered->took.count());
  if (recovered->acct_runtimes > 0)
    log_->info("users' runtime history rebuilt from {} finished jobs in lsb.acct", recovered->acct_runtimes);
  return {};
}

daemon::Status EventLogCore::open(EventLogOptions options, bool fresh_snapshot) {
  // After a takeover the log starts afresh too: the old master may still hold
  // lsb.events open, and its late writes must land in a file no one appends to.
  options.snapshot_first = fresh_snapshot || (role_ && role_->took_over());
  if (!fresh_snapshot && options.snapshot_first) options.snapshot_first_why = "after a takeover";
  if (auto role = role_) {
    options.fence = [role]() -> std::string {
      if (!role->fenced()) return {};
      return "this mbatchd's term " + std::to_string(role->epoch()) + " was taken over by " + role->successor();
    };
    options.rotation_guard = [role]() -> std::string {
      if (role->lease_fresh()) return {};
      return "the master lease of term " + std::to_string(role->epoch()) + " was not renewed lately";
    };
    // Recovery may have taken a while since the claim: a fresh beat lets the first
    // snapshot of a takeover go in place at once.
    if (options.snapshot_first) (void)role->renew();
    sink_.set_epoch(role->epoch());
  }
  options.replica = replica_;
  options.on_replica = replica_logger(log_, logdir_);
  const bool snapshot_first = options.snapshot_first;
  writer_ = std::make_unique<EventLogWriter>(
      logdir_, valid_log_bytes_, [this](std::function<void()> f) { net::asio::post(io_, std::move(f)); },
      std::move(options));
  if (!writer_->open_error().empty()) return daemon::fail(writer_->open_error());
  sink_.attach(writer_.get());
  if (snapshot_first) {
    write_fresh_snapshot();
    // mbatchd listens next: a command that came in before the snapshot is in place
    // would be refused. It takes milliseconds, so it is waited for, up to a bound (a
    // full disk: then queries are served and changes refused until there is room).
    for (int i = 0; i < 300 && writer_->refusal().rfind("a fresh snapshot is being written", 0) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

void EventLogCore::note_room() {
  if (sink_.refusing() && writer_->refusal().empty()) sink_.refusal();
}

void EventLogCore::close(std::function<bool()> superseded, std::function<void()> then) {
  snapshot_timer_.cancel();
  if (!writer_) return then();
  // Let what is already queued for durability finish first.
  writer_->when_durable([this, superseded = std::move(superseded), then = std::move(then)](bool) {
    // A superseded master's mark is behind the new master's: it must not write it back.
    if (!superseded()) {
      if (auto settled = job_ids_.settle(state_.next_job_id()); !settled)
        log_->warn("cannot write lsb.jobid: {}; the next ids start after a gap", settled.message());
    }
    then();
  });
}

void EventLogCore::stop_writer() {
  if (writer_) writer_->stop();
}

// Until the rotation is made, every change is refused (the writer's refusal says so);
// on a full disk it fails, and is tried again with the state as it is then.
void EventLogCore::write_fresh_snapshot() {
  writer_->rotate(snapshot_now().SerializeAsString());
  writer_->when_durable([this](bool) {
    if (!writer_->snapshot_needed()) {
      log_->info("lsb.snapshot and a new lsb.events hold the recovered state; changes are accepted");
      sink_.refusal();  // ends and logs a refusal under way
      return;
    }
    // Once a minute on a disk that stays full, not every second.
    if (snapshot_tries_++ % 60 == 0)
      log_->warn("cannot write a fresh snapshot yet ({}); trying again each second", writer_->refusal());
    snapshot_timer_.expires_after(std::chrono::seconds(1));
    snapshot_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) write_fresh_snapshot();
    });
  });
}

wire::Snapshot EventLogCore::snapshot_now() const {
  wire::Snapshot s = state_.snapshot(sink_.now());
  if (role_) s.set_epoch(role_->epoch());
  return s;
}

std::int64_t EventLogCore::snapshot_after(int max_job_num, std::size_t jobs_held) {
  const std::int64_t least = std::max(1, max_job_num);
  if (jobs_held <= kSnapshotFloorJobs) return least;
  return std::max(least, static_cast<std::int64_t>(jobs_held / 4));
}

void EventLogCore::maybe_snapshot() {
  // Not on a full disk: the rotation would fail, and with lsb.events past its size limit
  // every finished job would serialize the whole state again for nothing.
  if (!writer_->refusal().empty()) return;
  const std::int64_t after = snapshot_after(config_->params.max_job_num, state_.jobs().size());
  if (state_.finished_since_snapshot() < after && writer_->stats().bytes < kMaxEventLogBytes) return;
  int cleaned = state_.clean_finished(sink_.now() - config_->params.clean_period);
  state_.reset_finished_since_snapshot();
  auto started = std::chrono::steady_clock::now();
  // The state is copied here; the copy is serialized on the writer's thread (a third of
  // the time the state thread spent on a snapshot).
  auto snapshot = std::make_shared<const wire::Snapshot>(snapshot_now());
  writer_->rotate([snapshot] { return snapshot->SerializeAsString(); });
  log_->info("snapshot of {} jobs queued ({} finished jobs cleaned) in {} us", state_.jobs().size(), cleaned,
             std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
}

}  // namespace lsf::mbd
