#include "daemons/mbatchd/event_log_replica.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <optional>
#include <vector>

#include "daemons/mbatchd/event_log_format.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = 1u << 20;
constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();

daemon::Status errno_failure(const std::string& what, const fs::path& path) {
  return daemon::fail(what + " " + path.string() + ": " + std::strerror(errno));
}

// Copies [from, to) of `in` to `out`'s current offset; false with errno set.
bool copy_range(const DiskOps& ops, int in, int out, std::uint64_t from, std::uint64_t to) {
  std::vector<char> buf(static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, to - from)));
  while (from < to) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), to - from));
    ssize_t r = ::pread(in, buf.data(), want, static_cast<off_t>(from));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = ENODATA;  // the primary is shorter than the writer says
      return false;
    }
    if (!write_all(ops, out, buf.data(), static_cast<std::size_t>(r))) return false;
    from += static_cast<std::uint64_t>(r);
  }
  return true;
}

// The last `n` bytes before `end` of a file, or nullopt when it is shorter or unreadable.
std::optional<std::string> read_before(const fs::path& path, std::uint64_t end, std::size_t n) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, end));
  std::string out(n, '\0');
  ssize_t r = ::pread(fd, out.data(), n, static_cast<off_t>(end - n));
  ::close(fd);
  if (r != static_cast<ssize_t>(n)) return std::nullopt;
  return out;
}

std::optional<std::uint64_t> size_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace

EventLogReplica::EventLogReplica(fs::path primary, fs::path replica, DiskOps ops, std::function<std::string()> fence,
                                 std::chrono::milliseconds retry_interval, std::uint64_t events_size,
                                 std::uint64_t acct_size)
    : primary_(std::move(primary)),
      dir_(std::move(replica)),
      ops_(std::move(ops)),
      fence_(std::move(fence)),
      retry_interval_(retry_interval) {
  state_.dir = dir_;
  whole_ = !matches_primary(events_size, acct_size);
}

// The replica goes on in place when it holds what the primary does: the same
// lsb.snapshot and, at the primary's sizes, the same last bytes of lsb.events and
// lsb.acct (records carry sequence numbers and CRCs, so equal tails mean equal files).
// Anything else (a replica older than the primary, or one a master elsewhere wrote) is
// replaced whole by the first follow().
bool EventLogReplica::matches_primary(std::uint64_t events_size, std::uint64_t acct_size) {
  constexpr std::size_t kTail = 4096;
  auto same_file = [&](const char* name) {
    auto a = size_of(primary_ / name), b = size_of(dir_ / name);
    if (!a || !b) return !a && !b;
    return *a == *b && read_before(primary_ / name, *a, static_cast<std::size_t>(*a)) ==
                           read_before(dir_ / name, *b, static_cast<std::size_t>(*b));
  };
  auto same_prefix = [&](Tail& t, std::uint64_t size) {
    auto theirs = size_of(dir_ / t.name);
    if (!theirs || *theirs < size) return false;
    if (read_before(primary_ / t.name, size, kTail) != read_before(dir_ / t.name, size, kTail)) return false;
    struct stat st {};
    if (::stat((dir_ / t.name).c_str(), &st) != 0) return false;
    t.size = size;
    t.dev = st.st_dev;
    t.ino = st.st_ino;
    return true;
  };
  // lsb.acct is never rotated and can be large: one that matches is extended even when
  // the event files are copied whole.
  const bool acct_matches = same_prefix(acct_, acct_size);
  return same_file("lsb.snapshot") && same_prefix(events_, events_size) && acct_matches;
}

bool EventLogReplica::follow(std::uint64_t events_size, std::uint64_t acct_size) {
  daemon::Status followed;
  if (whole_) followed = copy_whole(events_size, acct_size);
  if (followed) followed = extend(events_, events_size);
  if (followed) followed = extend(acct_, acct_size);
  if (followed) followed = copy_jobid_if_changed();
  set(followed);
  return followed.ok();
}

void EventLogReplica::rotated(std::uint64_t events_size, std::uint64_t acct_size) {
  if (behind() || whole_) {
    whole_ = true;  // made up by the next follow() that succeeds
    return;
  }
  // As the primary did it: the old lsb.events stays for bhist as lsb.events.1.
  const fs::path events = dir_ / "lsb.events", older = dir_ / "lsb.events.1", tmp = dir_ / "lsb.events.1.tmp";
  ::unlink(tmp.c_str());
  daemon::Status copied;
  if (::link(events.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), older.c_str()) != 0)
    copied = errno_failure("cannot keep", events);
  if (copied) copied = copy_file("lsb.snapshot", kAll);
  if (copied) copied = copy_file("lsb.events", events_size);
  if (copied) {
    struct stat st {};
    if (::stat(events.c_str(), &st) != 0) copied = errno_failure("cannot stat", events);
    events_.size = events_size;
    events_.dev = st.st_dev;
    events_.ino = st.st_ino;
  }
  if (!copied) whole_ = true;
  (void)acct_size;
  set(copied);
}

daemon::Status EventLogReplica::extend(Tail& t, std::uint64_t target) {
  if (t.size == target && t.ino != 0) return {};
  const fs::path path = dir_ / t.name;
  int out = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (out < 0) {
    const int e = errno;
    auto failed = errno_failure("cannot open", path);
    if (e == ENOENT) {  // a share that came back empty
      whole_ = true;
      t.ino = 0;
    }
    return failed;
  }
  struct stat st {};
  daemon::Status extended;
  if (::fstat(out, &st) != 0) {
    extended = errno_failure("cannot stat", path);
  } else if (st.st_dev != t.dev || st.st_ino != t.ino) {
    // Not the file this replica wrote: another mbatchd's. Never appended to.
    whole_ = true;
    t.ino = 0;
    extended = daemon::fail(path.string() + " was replaced by another process");
  } else if (static_cast<std::uint64_t>(st.st_size) < t.size) {
    whole_ = true;  // shorter than what was synced to it: not trusted
    t.ino = 0;
    extended = daemon::fail(path.string() + " is shorter than what was written to it");
  } else if (static_cast<std::uint64_t>(st.st_size) != t.size &&
             ::ftruncate(out, static_cast<off_t>(t.size)) != 0) {  // what a failed round left
    extended = errno_failure("cannot truncate", path);
  } else if (t.size < target) {
    int in = ::open((primary_ / t.name).c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) {
      extended = errno_failure("cannot open", primary_ / t.name);
    } else {
      if (::lseek(out, static_cast<off_t>(t.size), SEEK_SET) < 0 || !copy_range(ops_, in, out, t.size, target) ||
          ops_.fdatasync(out) != 0)
        extended = errno_failure("cannot write", path);
      ::close(in);
    }
  }
  ::close(out);
  if (extended) t.size = target;
  return extended;
}

daemon::Status EventLogReplica::copy_file(const char* name, std::uint64_t bytes) {
  const fs::path from = primary_ / name, to = dir_ / name;
  fs::path tmp = to;
  tmp += ".tmp";
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    if (errno != ENOENT) return errno_failure("cannot open", from);
    // Not in the primary: not in the replica either (an lsb.snapshot from an older
    // log would hide the records of the new one).
    if (auto fenced = fence_ ? fence_() : std::string(); !fenced.empty()) return daemon::fail(fenced);
    if (::unlink(to.c_str()) != 0 && errno != ENOENT) return errno_failure("cannot remove", to);
    return {};
  }
  daemon::Status copied;
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, kLogFileMode);
  if (out < 0) {
    copied = errno_failure("cannot create", tmp);
  } else {
    struct stat st {};
    if (::fstat(in, &st) != 0) {
      copied = errno_failure("cannot stat", from);
    } else {
      const std::uint64_t n = std::min<std::uint64_t>(bytes, static_cast<std::uint64_t>(st.st_size));
      if (::fchmod(out, kLogFileMode) != 0 || !copy_range(ops_, in, out, 0, n) || ops_.fdatasync(out) != 0)
        copied = errno_failure("cannot write", tmp);
    }
    ::close(out);
    // A copy takes a while: a master that took over meanwhile owns these files now.
    if (copied && fence_) copied = daemon::Status::from_message(fence_());
    if (copied && ::rename(tmp.c_str(), to.c_str()) != 0) copied = errno_failure("cannot rename", tmp);
    if (!copied) ::unlink(tmp.c_str());
  }
  ::close(in);
  return copied;
}

daemon::Status EventLogReplica::copy_whole(std::uint64_t events_size, std::uint64_t acct_size) {
  if (auto made = make_log_dir(dir_); !made) return made;
  // lsb.snapshot before lsb.events: a snapshot newer than the replica's lsb.events
  // replays as that snapshot (its records are all in it); the other way round it would
  // replay records over a state that lacks what they follow.
  for (const char* name : {"lsb.events.1", "lsb.snapshot"})
    if (auto copied = copy_file(name, kAll); !copied) return copied;
  if (auto copied = copy_file("lsb.events", events_size); !copied) return copied;
  // Else extend() brings it on: still the file this replica wrote.
  struct stat acct_st {};
  const bool acct_whole = acct_.ino == 0 || ::stat((dir_ / acct_.name).c_str(), &acct_st) != 0 ||
                          acct_st.st_dev != acct_.dev || acct_st.st_ino != acct_.ino;
  if (acct_whole) {
    if (auto copied = copy_file("lsb.acct", acct_size); !copied) return copied;
  }
  int dir = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dir >= 0 && ::fsync(dir) == 0;
  if (dir >= 0) ::close(dir);
  if (!synced) return errno_failure("cannot sync", dir_);
  for (auto [t, size] : {std::pair{&events_, events_size}, std::pair{&acct_, acct_size}}) {
    if (t == &acct_ && !acct_whole) continue;
    struct stat st {};
    if (::stat((dir_ / t->name).c_str(), &st) != 0) return errno_failure("cannot stat", dir_ / t->name);
    t->size = size;
    t->dev = st.st_dev;
    t->ino = st.st_ino;
  }
  jobid_stamp_.clear();
  whole_ = false;
  return {};
}

// lsb.jobid moves in blocks of ids (job_id_mark.h), rarely: copied when it changed.
daemon::Status EventLogReplica::copy_jobid_if_changed() {
  struct stat st {};
  if (::stat((primary_ / "lsb.jobid").c_str(), &st) != 0) return {};
  std::string stamp = std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "/" +
                      std::to_string(st.st_size) + "/" + std::to_string(st.st_ino);
  if (stamp == jobid_stamp_) return {};
  if (auto copied = copy_file("lsb.jobid", kAll); !copied) return copied;
  jobid_stamp_ = std::move(stamp);
  return {};
}

bool EventLogReplica::retry_due() const { return behind() && std::chrono::steady_clock::now() >= next_try_; }

bool EventLogReplica::behind() const {
  std::lock_guard lock(mu_);
  return state_.behind_since != 0;
}

ReplicaState EventLogReplica::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

void EventLogReplica::set(const daemon::Status& outcome) {
  if (!outcome) next_try_ = std::chrono::steady_clock::now() + retry_interval_;
  std::lock_guard lock(mu_);
  if (outcome) {
    state_.behind_since = 0;
    state_.cause.clear();
  } else {
    if (state_.behind_since == 0) state_.behind_since = static_cast<std::int64_t>(std::time(nullptr));
    state_.cause = outcome.message();
  }
}

}  // namespace lsf::mbd
