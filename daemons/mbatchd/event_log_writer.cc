#include "daemons/mbatchd/event_log_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemons/mbatchd/event_log_format.h"

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
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

std::string write_snapshot_file(const fs::path& path, const std::string& payload) {
  fs::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + tmp.string() + ": " + std::strerror(errno);
  std::string bytes(kEventLogMagic);
  bytes += frame_record(payload);
  bool ok = write_fd(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return "cannot write " + tmp.string() + ": " + std::strerror(errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return "cannot rename " + tmp.string() + ": " + std::strerror(errno);
  if (!fsync_dir(path.parent_path())) return "cannot sync " + path.parent_path().string();
  return {};
}

EventLogWriter::EventLogWriter(fs::path logdir, std::uint64_t valid_bytes, Post post)
    : logdir_(std::move(logdir)), post_(std::move(post)) {
  std::error_code ec;
  fs::create_directories(logdir_, ec);
  fs::path events = logdir_ / "lsb.events";
  if (valid_bytes < kEventLogMagic.size()) {
    if (!open_events()) return;
  } else {
    events_fd_ = ::open(events.c_str(), O_WRONLY | O_CLOEXEC);
    if (events_fd_ < 0 || ::ftruncate(events_fd_, static_cast<off_t>(valid_bytes)) != 0 ||
        ::lseek(events_fd_, 0, SEEK_END) < 0) {
      open_error_ = "cannot open " + events.string() + ": " + std::strerror(errno);
      return;
    }
    stats_.bytes = valid_bytes;
  }
  fs::path acct = logdir_ / "lsb.acct";
  acct_fd_ = ::open(acct.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (acct_fd_ < 0) {
    open_error_ = "cannot open " + acct.string() + ": " + std::strerror(errno);
    return;
  }
  thread_ = std::thread([this] { run(); });
}

EventLogWriter::~EventLogWriter() {
  stop();
  if (events_fd_ >= 0) ::close(events_fd_);
  if (acct_fd_ >= 0) ::close(acct_fd_);
}

bool EventLogWriter::open_events() {
  fs::path events = logdir_ / "lsb.events";
  fs::path tmp = logdir_ / "lsb.events.new";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || !write_fd(fd, kEventLogMagic.data(), kEventLogMagic.size()) || ::fsync(fd) != 0 ||
      ::rename(tmp.c_str(), events.c_str()) != 0 || !fsync_dir(logdir_)) {
    open_error_ = "cannot create " + events.string() + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return false;
  }
  if (events_fd_ >= 0) ::close(events_fd_);
  events_fd_ = fd;
  std::lock_guard lock(mu_);
  stats_.bytes = kEventLogMagic.size();
  return true;
}

// A record nobody waits for (mbatchd's start, a decision of the pass) is written as
// soon as the writer is free, like the others: left queued until the next durable
// request, it was missing from the file (badmin hist) and lost with a crash meanwhile.
// Whatever is appended while a sync runs still goes in the next one.
void EventLogWriter::append(const wire::EventRecord& record) {
  std::string framed = frame_record(record.SerializeAsString());
  {
    std::lock_guard lock(mu_);
    if (queue_.empty() || queue_.back().rotate_after) queue_.emplace_back();
    queue_.back().events += framed;
    ++queue_.back().records;
  }
  cv_.notify_one();
}

void EventLogWriter::append_acct(std::string line) {
  {
    std::lock_guard lock(mu_);
    if (queue_.empty() || queue_.back().rotate_after) queue_.emplace_back();
    queue_.back().acct += line;
  }
  cv_.notify_one();
}

void EventLogWriter::when_durable(Durable done) {
  {
    std::lock_guard lock(mu_);
    if (queue_.empty() || queue_.back().rotate_after) queue_.emplace_back();
    queue_.back().callbacks.push_back(std::move(done));
  }
  cv_.notify_one();
}

void EventLogWriter::rotate(std::string snapshot_payload) {
  {
    std::lock_guard lock(mu_);
    if (queue_.empty() || queue_.back().rotate_after) queue_.emplace_back();
    queue_.back().rotate_after = true;
    queue_.back().snapshot = std::move(snapshot_payload);
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

bool EventLogWriter::do_rotate(const std::string& snapshot) {
  if (::fdatasync(events_fd_) != 0) return false;
  if (!write_snapshot_file(logdir_ / "lsb.snapshot", snapshot).empty()) return false;
  std::error_code ec;
  fs::rename(logdir_ / "lsb.events", logdir_ / "lsb.events.1", ec);
  if (ec) return false;
  return open_events();
}

void EventLogWriter::run() {
  for (;;) {
    std::deque<Batch> work;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      work.swap(queue_);
    }
    bool ok = true;
    std::uint64_t records = 0, written = 0;
    bool wrote_events = false, wrote_acct = false;
    std::vector<Durable> callbacks;
    for (auto& batch : work) {
      ok = write_fd(events_fd_, batch.events.data(), batch.events.size()) && ok;
      written += batch.events.size();
      wrote_events = wrote_events || !batch.events.empty();
      records += batch.records;
      if (!batch.acct.empty()) {
        ok = write_fd(acct_fd_, batch.acct.data(), batch.acct.size()) && ok;
        wrote_acct = true;
      }
      for (auto& cb : batch.callbacks) callbacks.push_back(std::move(cb));
      if (batch.rotate_after) {
        ok = do_rotate(batch.snapshot) && ok;
        written = 0;  // the new lsb.events starts empty
        wrote_events = true;
      }
    }
    // A batch of callbacks alone (appends wake the writer, so a request's records often
    // went out in the round before its when_durable) needs no sync: the last round's
    // covered everything appended before it. A rotation syncs its own files.
    if (wrote_events) ok = ::fdatasync(events_fd_) == 0 && ok;
    if (wrote_acct) ok = ::fdatasync(acct_fd_) == 0 && ok;
    if (wrote_events || wrote_acct)
      last_sync_ok_ = ok;
    else
      ok = last_sync_ok_;  // what those records' own round said
    {
      std::lock_guard lock(mu_);
      stats_.records += records;
      stats_.bytes += written;
      if (wrote_events || wrote_acct) ++stats_.syncs;
    }
    for (auto& cb : callbacks) post_([cb = std::move(cb), ok] { cb(ok); });
  }
}

}  // namespace lsf::mbd
