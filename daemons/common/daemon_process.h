// What both daemons do as processes: become a background daemon on request, hold a
// lock file that names the holder, and read this host's name.
#pragma once

#include <filesystem>
#include <string>

#include "daemons/common/status.h"

namespace lsf::net {

// Forks into the background (setsid, stdin from /dev/null). Returns in the child only.
void daemonize();

// Takes an exclusive lock on `path` and writes our pid into it. On failure says why,
// naming the process that holds the lock. The lock lasts as long as the process (the
// descriptor is deliberately never closed).
daemon::Status take_lock_file(const std::filesystem::path& path);

std::string local_host_name();

}  // namespace lsf::net
