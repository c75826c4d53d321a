// Duplicate event logging (LSB_LOCALDIR), as LSF does it: the first master candidate
// keeps the primary lsb.events, lsb.snapshot and lsb.acct on its local disk, in
// LSB_LOCALDIR, and a replica in LSB_SHAREDIR/<cluster>/logdir (event_log_replica.h
// writes it). Every other master uses LSB_SHAREDIR alone: "there is no duplication by
// the second or any subsequent master hosts". The master lease stays in LSB_SHAREDIR.
//
// When the first candidate becomes master again after another host served, the shared
// copy is the newer one: reconcile_log_copies() compares the two by the last term and
// sequence number they hold and copies the shared files over the local ones before
// recovery reads them. A local copy that is newer (the share was down, or the replica
// behind, when this host stopped) is the one recovered from; the writer then brings
// the replica up to date.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <tuple>

#include <spdlog/logger.h>

#include "daemons/common/status.h"
#include "daemons/mbatchd/event_log_writer.h"
#include "libconfig/cluster_config.h"

namespace lsf::mbd {

struct LogDirs {
  std::filesystem::path primary;  // what recovery reads and the writer appends to
  std::filesystem::path replica;  // empty: the log is not duplicated on this host
};

// For the mbatchd on `host`.
LogDirs event_log_dirs(const config::ClusterConfig& config, const std::string& host);

// Where a log directory's state ends: the newest term and, in it, the last sequence
// number, from lsb.snapshot and lsb.events. None: no log there.
struct LogPosition {
  bool any = false;
  std::int64_t epoch = 0;
  std::int64_t seq = 0;
  bool operator<(const LogPosition& o) const { return std::tie(any, epoch, seq) < std::tie(o.any, o.epoch, o.seq); }
};
LogPosition log_position(const std::filesystem::path& dir);

// Before recovery on the duplicating host: makes the primary hold the newer copy. Ok
// also when the share cannot be read (the local copy is used and the log says so);
// else why recovery must not go on.
daemon::Status reconcile_log_copies(const LogDirs& dirs, spdlog::logger& log);

// EventLogOptions::on_replica for mbatchd: one line in its log each time the replica
// falls behind or catches up.
std::function<void(const ReplicaState&)> replica_logger(std::shared_ptr<spdlog::logger> log,
                                                        std::filesystem::path primary);

}  // namespace lsf::mbd
