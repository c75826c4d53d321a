// sbatchd's state directory, where its jobs' files live (job_supervisor.h lists them).
//
// It may be put in a directory users share (LSB_SBD_STATEDIR in /dev/shm, say). A user
// who owned it, or its parent, could swap the files that root reads and writes there
// for links, so sbatchd refuses such a place rather than trusting it.
#pragma once

#include <filesystem>
#include <string>

#include "daemons/common/status.h"

namespace lsf::sbd {

// Ok when `dir` and its parent are directories owned by this process's user or
// root that no other user may rename entries in (not writable by group or others,
// unless sticky); else fails with why not, naming the directory. Links are followed (an admin may
// link the directory elsewhere): what is checked is where they lead, and the directory
// the link itself is in; a link another user made is refused wherever it leads.
daemon::Status check_private_directory(const std::filesystem::path& dir);

// Creates `dir` (and what is missing above it), makes it 0711 (users may pass through to
// the host file handed to their job, but neither list nor create anything: job files
// hold whole environments) and checks it as above. The
// first thing sbatchd does with the directory, before its lock file is opened there.
daemon::Status prepare_state_directory(const std::filesystem::path& dir);

}  // namespace lsf::sbd
