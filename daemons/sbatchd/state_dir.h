// sbatchd's state directory, where its jobs' files live (job_supervisor.h lists them).
//
// It may be put in a directory users share (LSB_SBD_STATEDIR in /dev/shm, say). A user
// who owned it, or its parent, could swap the files that root reads and writes there
// for links, so sbatchd refuses such a place rather than trusting it.
#pragma once

#include <filesystem>
#include <string>

namespace lsf::sbd {

// Empty when `dir` and its parent are directories owned by this process's user or
// root that no other user may rename entries in (not writable by group or others,
// unless sticky); else why not, naming the directory. Links are followed (an admin may
// link the directory elsewhere): what is checked is where they lead.
std::string check_private_directory(const std::filesystem::path& dir);

}  // namespace lsf::sbd
