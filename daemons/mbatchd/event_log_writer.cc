#include "daemons/mbatchd/event_log_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "daemons/mbatchd/event_log_format.h"
#include "daemons/mbatchd/event_log_replica.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

namespace {

std::string frame_record(const std::string& payload) {
  std::string out(kRecordHeaderSize, '\0');
  put_u32(out.data(), static_cast<std::uint32_t>(payload.size()));
  put_u32(out.data() + 4, record_crc(payload));
  out += payload;
  return out;
}

bool write_fd(int fd, const char* p, std::size_t n) {
  static const DiskOps kSystem;
  return write_all(kSystem, fd, p, n);
}

bool fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

bool write_all(const DiskOps& ops, int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ops.write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

daemon::Status make_log_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return {};
  fs::create_directories(dir, ec);
  if (ec) return daemon::fail("cannot create " + dir.string() + ": " + ec.message());
  // Only the directory this call made is narrowed: LSB_SHAREDIR above it is the admin's.
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  return {};
}

daemon::Status write_snapshot_file(const fs::path& path, const std::string& payload,
                                   const std::function<std::string()>& before_rename) {
  fs::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kLogFileMode);
  if (fd < 0) return daemon::fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
  ::fchmod(fd, kLogFileMode);  // a temp file left by an older mbatchd may be wider
  std::string bytes(kEventLogMagic);
  bytes += frame_record(payload);
  bool ok = write_fd(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());  // a partial snapshot must not keep the space it took
    return daemon::fail("cannot write " + tmp.string() + ": " + std::strerror(err));
  }
  if (before_rename) {
    if (auto why = before_rename(); !why.empty()) {
      ::unlink(tmp.c_str());
      return daemon::fail(why);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return daemon::fail("cannot rename " + tmp.string() + ": " + std::strerror(errno));
  if (!fsync_dir(path.parent_path())) return daemon::fail("cannot sync " + path.parent_path().string());
  return {};
}

EventLogWriter::EventLogWriter(fs::path logdir, std::uint64_t valid_bytes, Post post, EventLogOptions options)
    : logdir_(std::move(logdir)),
      post_(std::move(post)),
      options_(std::move(options)),
      snapshot_needed_(options_.snapshot_first) {
  if (auto made = make_log_dir(logdir_); !made) {
    open_error_ = made.message();
    return;
  }
  fs::path events = logdir_ / "lsb.events";
  if (valid_bytes < kEventLogMagic.size()) {
    LogFile fresh;
    if (auto created = create_events(fresh); !created) {
      open_error_ = created.message();
      return;
    }
    if (::rename((logdir_ / "lsb.events.new").c_str(), events.c_str()) != 0 || !fsync_dir(logdir_)) {
      open_error_ = "cannot create " + events.string() + ": " + std::strerror(errno);
      ::close(fresh.fd);
      return;
    }
    events_ = fresh;
  } else {
    events_.fd = ::open(events.c_str(), O_WRONLY | O_CLOEXEC);
    if (events_.fd < 0 || ::fchmod(events_.fd, kLogFileMode) != 0 ||
        ::ftruncate(events_.fd, static_cast<off_t>(valid_bytes)) != 0 || ::lseek(events_.fd, 0, SEEK_END) < 0) {
      open_error_ = "cannot open " + events.string() + ": " + std::strerror(errno);
      return;
    }
    events_.size = events_.reserved_end = valid_bytes;
  }
  stats_.bytes = events_.size;
  fs::path acct = logdir_ / "lsb.acct";
  acct_.fd = ::open(acct.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, kLogFileMode);
  off_t acct_end = acct_.fd < 0 ? -1 : ::lseek(acct_.fd, 0, SEEK_END);
  if (acct_.fd < 0 || ::fchmod(acct_.fd, kLogFileMode) != 0 || acct_end < 0) {
    open_error_ = "cannot open " + acct.string() + ": " + std::strerror(errno);
    return;
  }
  acct_.size = acct_.reserved_end = static_cast<std::uint64_t>(acct_end);
  // A full disk at start is not an open error: mbatchd serves queries, refuses changes
  // and the writer tries again until there is room.
  refusal_ = reserve_all().message();
  if (!options_.replica.empty()) {
    // The replica's renames put files in place in LSB_SHAREDIR, which a new master reads.
    replica_ = std::make_unique<EventLogReplica>(
        logdir_, options_.replica, options_.replica_ops, [this] { return rotation_hold(); }, options_.retry_interval,
        events_.size, acct_.size);
    follow_replica();
  }
  thread_ = std::thread([this] { run(); });
}

EventLogWriter::~EventLogWriter() {
  stop();
  if (events_.fd >= 0) ::close(events_.fd);
  if (acct_.fd >= 0) ::close(acct_.fd);
}

daemon::Status EventLogWriter::create_events(LogFile& out) {
  fs::path tmp = logdir_ / "lsb.events.new";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kLogFileMode);
  if (fd < 0) return daemon::fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
  LogFile f;
  f.fd = fd;
  daemon::Status made;
  if (::fchmod(fd, kLogFileMode) != 0 || !write_fd(fd, kEventLogMagic.data(), kEventLogMagic.size())) {
    made = daemon::fail(std::strerror(errno));
  } else {
    f.size = f.reserved_end = kEventLogMagic.size();
    made = reserve(f, options_.events_reserve);
    if (made && ::fsync(fd) != 0) made = daemon::fail(std::strerror(errno));
  }
  if (!made) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return daemon::fail("cannot create " + tmp.string() + ": " + made.message());
  }
  out = f;
  return {};
}

std::string EventLogWriter::refusal() const {
  std::lock_guard lock(mu_);
  if (refusal_.empty() && snapshot_needed_) {
    // The cause alone ("No space left on device"), not the paths of the files.
    auto colon = rotate_error_.rfind(": ");
    return rotate_error_.empty() ? "a fresh snapshot is being written " + options_.snapshot_first_why
                                 : rotate_error_.substr(colon == std::string::npos ? 0 : colon + 2) +
                                       " (writing a fresh snapshot " + options_.snapshot_first_why + ")";
  }
  return refusal_;
}

bool EventLogWriter::snapshot_needed() const {
  std::lock_guard lock(mu_);
  return snapshot_needed_;
}

std::string EventLogWriter::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void EventLogWriter::set_refusal(std::string cause) {
  std::lock_guard lock(mu_);
  refusal_ = failure_.empty() ? std::move(cause) : failure_;
}

// A record nobody waits for (mbatchd's start, a decision of the pass) is written as
// soon as the writer is free, like the others: left queued until the next durable
// request, it was missing from the file (badmin hist) and lost with a crash meanwhile.
// Whatever is appended while a sync runs still goes in the next one.
void EventLogWriter::append(const wire::EventRecord& record) {
  std::string framed = frame_record(record.SerializeAsString());
  {
    std::lock_guard lock(mu_);
    Batch& b = tail();
    b.events += framed;
    ++b.records;
  }
  cv_.notify_one();
}

void EventLogWriter::append_acct(std::string line) {
  {
    std::lock_guard lock(mu_);
    tail().acct += line;
  }
  cv_.notify_one();
}

void EventLogWriter::when_durable(Durable done) {
  {
    std::lock_guard lock(mu_);
    tail().callbacks.push_back(std::move(done));
  }
  cv_.notify_one();
}

void EventLogWriter::rotate(std::string snapshot_payload) {
  rotate([payload = std::move(snapshot_payload)] { return payload; });
}

void EventLogWriter::rotate(std::function<std::string()> make_payload) {
  {
    std::lock_guard lock(mu_);
    Batch& b = tail();
    b.rotate_after = true;
    b.make_snapshot = std::move(make_payload);
  }
  cv_.notify_one();
}

EventLogWriter::Batch& EventLogWriter::tail() {
  auto& q = holding_ ? held_ : queue_;
  if (q.empty() || q.back().rotate_after) q.emplace_back();
  return q.back();
}

void EventLogWriter::hold() {
  std::lock_guard lock(mu_);
  holding_ = true;
}

void EventLogWriter::release() {
  {
    std::lock_guard lock(mu_);
    holding_ = false;
    for (auto& b : held_) queue_.push_back(std::move(b));
    held_.clear();
  }
  cv_.notify_one();
}

void EventLogWriter::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

EventLogStats EventLogWriter::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

ReplicaState EventLogWriter::replica_state() const { return replica_ ? replica_->state() : ReplicaState{}; }

void EventLogWriter::follow_replica() {
  if (!fence_reason().empty()) return;  // the share is the later master's now
  const bool was_behind = replica_->behind();
  replica_->follow(events_.size, acct_.size);
  report_replica(was_behind);
}

// Told when it starts, falls behind or catches up: mbatchd's log says so once.
void EventLogWriter::report_replica(bool was_behind) {
  if ((!replica_told_ || was_behind != replica_->behind()) && options_.on_replica)
    options_.on_replica(replica_->state());
  replica_told_ = true;
}

daemon::Status EventLogWriter::append_to(LogFile& f, const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n > 0) {
    ssize_t w = options_.ops.write(f.fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::string cause = std::strerror(errno);
      // What did reach the file is a partial record: gone, so that records written
      // once there is room follow the last whole one.
      if (::ftruncate(f.fd, static_cast<off_t>(f.size)) == 0) ::lseek(f.fd, static_cast<off_t>(f.size), SEEK_SET);
      f.reserved_end = f.size;  // truncation frees the blocks kept beyond the end
      return daemon::fail(cause);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  f.size += bytes.size();
  return {};
}

daemon::Status EventLogWriter::reserve(LogFile& f, std::uint64_t amount) {
  if (amount == 0 || f.reserved_end >= f.size + amount) return {};
  if (options_.ops.fallocate(f.fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(f.size), static_cast<off_t>(amount)) != 0) {
    // A file system without fallocate keeps no reserve: a full disk then shows as a
    // failed write, which cuts the record off and stops mbatchd (see the header).
    if (errno == EOPNOTSUPP || errno == ENOSYS) return {};
    return daemon::fail(std::strerror(errno));
  }
  f.reserved_end = f.size + amount;
  return {};
}

daemon::Status EventLogWriter::reserve_all() {
  if (auto reserved = reserve(events_, options_.events_reserve); !reserved) return reserved;
  return reserve(acct_, options_.acct_reserve);
}

// Steps that cannot be made leave the old lsb.events in use: the snapshot names the
// last record it holds, so recovery from it plus the old file replays nothing twice.
daemon::Status EventLogWriter::do_rotate(const std::string& snapshot) {
  // The old file's reserve is given up first: the new one takes as much, and a disk
  // with room for one reserve must still be able to rotate (lsb.events.1, a link to the
  // old file, would otherwise keep it until the next rotation). Should the rotation
  // fail, the end of the round tops the old file up again or refuses changes.
  if (events_.reserved_end > events_.size && ::ftruncate(events_.fd, static_cast<off_t>(events_.size)) == 0)
    events_.reserved_end = events_.size;
  LogFile fresh;
  if (auto created = create_events(fresh); !created) return created;
  const fs::path events = logdir_ / "lsb.events", next = logdir_ / "lsb.events.new";
  auto hold = [this] { return rotation_hold(); };
  if (auto written = write_snapshot_file(logdir_ / "lsb.snapshot", snapshot, hold); !written) {
    ::close(fresh.fd);
    ::unlink(next.c_str());
    return written;
  }
  // The snapshot in place names the old file's last record, so stopping here leaves a
  // log that recovers (the snapshot, then the old file's records after it).
  std::string held = hold();
  if (held.empty()) {
    // lsb.events.1 is only for bhist: a link made and renamed over the old one.
    const fs::path older = logdir_ / "lsb.events.1", older_tmp = logdir_ / "lsb.events.1.tmp";
    ::unlink(older_tmp.c_str());
    if (::link(events.c_str(), older_tmp.c_str()) == 0) ::rename(older_tmp.c_str(), older.c_str());
  }
  if (!held.empty() || ::rename(next.c_str(), events.c_str()) != 0) {
    auto failed = daemon::fail(!held.empty() ? held : "cannot rename " + next.string() + ": " + std::strerror(errno));
    ::close(fresh.fd);
    ::unlink(next.c_str());
    return failed;
  }
  fsync_dir(logdir_);
  ::close(events_.fd);
  events_ = fresh;
  return {};
}

bool EventLogWriter::failed_by_fence() const {
  std::lock_guard lock(mu_);
  return fenced_;
}

std::string EventLogWriter::fence_reason() const { return options_.fence ? options_.fence() : std::string(); }

std::string EventLogWriter::rotation_hold() const {
  if (auto err = fence_reason(); !err.empty()) return err;
  return options_.rotation_guard ? options_.rotation_guard() : std::string();
}

void EventLogWriter::run() {
  for (;;) {
    std::deque<Batch> work;
    bool failed = false;
    {
      std::unique_lock lock(mu_);
      auto ready = [&] { return stopping_ || !queue_.empty(); };
      const bool short_reserve = !refusal_.empty();
      if (failure_.empty() && (short_reserve || (replica_ && replica_->behind()))) {
        if (!cv_.wait_for(lock, options_.retry_interval, ready)) {
          lock.unlock();
          if (short_reserve) set_refusal(reserve_all().message());
          if (replica_ && replica_->retry_due()) follow_replica();
          continue;
        }
      } else {
        cv_.wait(lock, ready);
      }
      if (queue_.empty() && stopping_) return;
      work.swap(queue_);
      failed = !failure_.empty();
    }
    std::vector<Durable> callbacks;
    for (auto& batch : work)
      for (auto& cb : batch.callbacks) callbacks.push_back(std::move(cb));
    if (failed) {
      // Nothing more is written once a record was lost: the file must end where the
      // state that recovery will rebuild does.
      for (auto& cb : callbacks) post_([cb = std::move(cb)] { cb(false); });
      continue;
    }
    auto round = daemon::Status::from_message(fence_reason());
    bool fence_only = !round;
    std::uint64_t records = 0, written_this_round = 0;
    bool wrote_events = false, wrote_acct = false, rotated = false;
    std::uint64_t events_synced = events_.size, acct_synced = acct_.size;
    for (auto& batch : work) {
      if (round && !batch.events.empty()) {
        round = append_to(events_, batch.events);
        wrote_events = true;
        if (round) written_this_round += batch.events.size();
        records += batch.records;
      }
      if (round && !batch.acct.empty()) {
        round = append_to(acct_, batch.acct);
        wrote_acct = true;
      }
      if (round && batch.rotate_after) {
        // A superseded master must not put its snapshot in place of the new master's.
        if (round = daemon::Status::from_message(fence_reason()); !round) {
          fence_only = true;
          continue;
        }
        // The old file's records must be on disk before a snapshot names them.
        if (wrote_events && options_.ops.fdatasync(events_.fd) != 0) {
          round = daemon::fail(std::strerror(errno));
          continue;
        }
        events_synced = events_.size;
        wrote_events = false;
        // The replica's lsb.events becomes its lsb.events.1 whole. Only what is synced
        // of lsb.acct goes with it: the rest is synced at the end of the round.
        const bool replica_was_behind = replica_ && replica_->behind();
        if (replica_ && !replica_was_behind && fence_reason().empty()) replica_->follow(events_.size, acct_synced);
        // A rotation that fails leaves the old lsb.events in use; the next MAX_JOB_NUM
        // finished jobs (or, for snapshot_first, the state machine's next try) try again.
        const auto rotation = do_rotate(std::exchange(batch.make_snapshot, nullptr)());
        if (rotation) events_synced = events_.size;
        if (replica_) {
          if (rotation) replica_->rotated(events_.size, acct_synced);
          report_replica(replica_was_behind);
        }
        rotated = rotated || rotation.ok();
        std::lock_guard lock(mu_);
        if (rotation) snapshot_needed_ = false;
        rotate_error_ = rotation.message();
      }
    }
    // A batch of callbacks alone (appends wake the writer, so a request's records often
    // went out in the round before its when_durable) needs no sync: the last round's
    // covered everything appended before it.
    const auto sync_began = std::chrono::steady_clock::now();
    if (round && wrote_events && options_.ops.fdatasync(events_.fd) != 0) round = daemon::fail(std::strerror(errno));
    if (round && wrote_acct && options_.ops.fdatasync(acct_.fd) != 0) round = daemon::fail(std::strerror(errno));
    const auto sync_took = std::chrono::steady_clock::now() - sync_began;
    // The replica too, before anyone is told; one that cannot be written is left behind
    // (tried again each retry interval) and the round stands on the primary.
    if (round && replica_ && (wrote_events || wrote_acct || rotated) && (!replica_->behind() || replica_->retry_due()))
      follow_replica();
    // Durable, but told to no one if another master took over meanwhile: what this one
    // wrote is in a file the new master no longer appends to.
    if (round && (wrote_events || wrote_acct)) fence_only = !(round = daemon::Status::from_message(fence_reason()));
    if (!round && !fence_only) {
      // After a failed fdatasync the kernel may have dropped the pages it could not
      // write, and the next fdatasync reports nothing: only what an earlier sync covered
      // is known to be on disk, so the file ends there.
      for (auto [f, synced] : {std::pair{&events_, events_synced}, std::pair{&acct_, acct_synced}}) {
        if (f->size > synced && ::ftruncate(f->fd, static_cast<off_t>(synced)) == 0) {
          ::lseek(f->fd, static_cast<off_t>(synced), SEEK_SET);
          f->size = f->reserved_end = synced;
        }
      }
    }
    std::string short_reserve = round ? reserve_all().message() : std::string();
    {
      std::lock_guard lock(mu_);
      if (!round)
        failure_ = refusal_ = round.message();
      else
        refusal_ = short_reserve;
      if (fence_only) fenced_ = true;
      stats_.records += records;
      stats_.bytes = events_.size;
      stats_.bytes_written += written_this_round;
      if (wrote_events || wrote_acct) {
        ++stats_.syncs;
        stats_.sync_seconds.observe(sync_took);
      }
      if (rotated) {
        ++stats_.rotations;
        stats_.last_rotation = static_cast<std::int64_t>(std::time(nullptr));
      }
    }
    const bool ok = round.ok();
    for (auto& cb : callbacks) post_([cb = std::move(cb), ok] { cb(ok); });
  }
}

}  // namespace lsf::mbd
