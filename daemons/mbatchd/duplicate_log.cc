#include "daemons/mbatchd/duplicate_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "daemons/mbatchd/event_log_reader.h"
#include "libconfig/failover_params.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

namespace {

// The top-level varint fields `a` and `b` of a serialized message, found by walking its
// wire format: a whole snapshot is not parsed (its jobs come before its term) to learn
// two numbers.
std::pair<std::int64_t, std::int64_t> two_varints(std::string_view m, int a, int b) {
  std::int64_t va = 0, vb = 0;
  std::size_t i = 0;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0; i < m.size() && shift < 64; shift += 7) {
      auto c = static_cast<std::uint8_t>(m[i++]);
      v |= std::uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return true;
    }
    return false;
  };
  std::uint64_t tag = 0, v = 0;
  while (i < m.size() && varint(tag)) {
    const auto field = static_cast<int>(tag >> 3);
    switch (tag & 7) {
      case 0:
        if (!varint(v)) return {va, vb};
        if (field == a) va = static_cast<std::int64_t>(v);
        if (field == b) vb = static_cast<std::int64_t>(v);
        break;
      case 1:
        i += 8;
        break;
      case 2:
        if (!varint(v)) return {va, vb};
        i += v;
        break;
      case 5:
        i += 4;
        break;
      default:
        return {va, vb};
    }
  }
  return {va, vb};
}

// wire::Snapshot: last_seq = 6, epoch = 9; wire::EventRecord: seq = 2, epoch = 3.
constexpr int kSnapshotSeq = 6, kSnapshotEpoch = 9, kRecordSeq = 2, kRecordEpoch = 3;

daemon::Status copy_to_temp(const fs::path& from, const fs::path& tmp) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return daemon::fail("cannot open " + from.string() + ": " + std::strerror(errno));
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  daemon::Status copied;
  if (out < 0) {
    copied = daemon::fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
  } else {
    std::vector<char> buf(1u << 20);
    for (;;) {
      ssize_t r = ::read(in, buf.data(), buf.size());
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        copied = daemon::fail("cannot read " + from.string() + ": " + std::strerror(errno));
        break;
      }
      if (r == 0) break;
      for (ssize_t done = 0; done < r;) {
        ssize_t w = ::write(out, buf.data() + done, static_cast<std::size_t>(r - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
          copied = daemon::fail("cannot write " + tmp.string() + ": " + std::strerror(errno));
          break;
        }
        done += w;
      }
      if (!copied) break;
    }
    if (copied && ::fsync(out) != 0) copied = daemon::fail("cannot sync " + tmp.string() + ": " + std::strerror(errno));
    ::close(out);
  }
  ::close(in);
  return copied;
}

}  // namespace

LogDirs event_log_dirs(const config::ClusterConfig& c, const std::string& host) {
  LogDirs d;
  d.primary = fs::path(c.lsf_conf.lsb_sharedir) / c.cluster_name / "logdir";
  const auto local = c.lsf_conf.get("LSB_LOCALDIR");
  if (!local || local->empty()) return d;
  const auto candidates = config::master_candidates(c);
  if (candidates.empty() || candidates.front() != host) return d;
  d.replica = d.primary;
  // Relative: from lsf.conf's directory, as LSB_SHAREDIR and the others.
  d.primary = fs::path(*local).is_absolute() ? fs::path(*local) : fs::path(c.lsf_conf.envdir) / *local;
  return d;
}

LogPosition log_position(const fs::path& dir) {
  LogPosition p;
  auto note = [&](std::pair<std::int64_t, std::int64_t> seq_epoch) {
    LogPosition q{true, seq_epoch.second, seq_epoch.first};
    p = std::max(p, q);
  };
  read_event_file(dir / "lsb.snapshot", [&](std::string_view payload, std::uint64_t) -> daemon::Status {
    note(two_varints(payload, kSnapshotSeq, kSnapshotEpoch));
    return {};
  });
  read_event_file(dir / "lsb.events", [&](std::string_view payload, std::uint64_t) -> daemon::Status {
    note(two_varints(payload, kRecordSeq, kRecordEpoch));
    return {};
  });
  return p;
}

daemon::Status reconcile_log_copies(const LogDirs& dirs, spdlog::logger& log) {
  if (dirs.replica.empty()) return {};
  if (auto made = make_log_dir(dirs.primary); !made) return made;
  std::error_code ec;
  if (!fs::is_directory(dirs.replica, ec)) {
    log.warn("event log replica {} cannot be read ({}); recovering from {}", dirs.replica.string(),
             ec ? ec.message() : std::string("no such directory"), dirs.primary.string());
    return {};
  }
  const LogPosition local = log_position(dirs.primary), shared = log_position(dirs.replica);
  if (!(local < shared)) return {};
  log.info("the event log in {} (term {}, record {}) is newer than {} (term {}, record {}): copying it there first",
           dirs.replica.string(), shared.epoch, shared.seq, dirs.primary.string(), local.epoch, local.seq);
  // Every temp file first, then the renames, lsb.snapshot before lsb.events (see
  // event_log_replica.h): a crash halfway leaves the older state or the newer one.
  const std::vector<const char*> names = {"lsb.events.1", "lsb.snapshot", "lsb.events", "lsb.acct", "lsb.jobid"};
  std::vector<bool> present;
  for (const char* name : names) {
    const bool there = fs::exists(dirs.replica / name, ec);
    present.push_back(there);
    if (!there) continue;
    fs::path tmp = dirs.primary / name;
    tmp += ".copy";
    if (auto copied = copy_to_temp(dirs.replica / name, tmp); !copied) return copied;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const fs::path to = dirs.primary / names[i];
    fs::path tmp = to;
    tmp += ".copy";
    // Not in the replica: not kept here either (an older snapshot would hide records).
    if (!present[i] ? (::unlink(to.c_str()) != 0 && errno != ENOENT) : ::rename(tmp.c_str(), to.c_str()) != 0)
      return daemon::fail("cannot replace " + to.string() + ": " + std::strerror(errno));
  }
  int fd = ::open(dirs.primary.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!synced) return daemon::fail("cannot sync " + dirs.primary.string() + ": " + std::strerror(errno));
  return {};
}

std::function<void(const ReplicaState&)> replica_logger(std::shared_ptr<spdlog::logger> log, fs::path primary) {
  return [log = std::move(log), primary = std::move(primary)](const ReplicaState& s) {
    if (s.behind_since == 0)
      log->info("event log {} is duplicated to {}: up to date", primary.string(), s.dir.string());
    else
      log->warn("event log replica {} is behind: {}; going on with {} and trying again", s.dir.string(), s.cause,
                primary.string());
  };
}

}  // namespace lsf::mbd
