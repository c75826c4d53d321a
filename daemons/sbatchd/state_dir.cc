#include "daemons/sbatchd/state_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lsf::sbd {
namespace fs = std::filesystem;

daemon::Status check_private_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(dir, ec);
  if (ec) return daemon::fail("cannot resolve " + dir.string() + ": " + ec.message());
  const fs::path real_parent = fs::canonical(dir.parent_path(), ec);
  if (ec) return daemon::fail("cannot resolve " + dir.parent_path().string() + ": " + ec.message());
  // A link is only as trusted as whoever made it: one a user made in a sticky
  // directory (/dev/shm) may lead anywhere, root's own directories included.
  struct stat link {};
  if (::lstat(dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != geteuid() && link.st_uid != 0)
    return daemon::fail(dir.string() + " is a link of uid " + std::to_string(link.st_uid) +
                        ": not using it for job files");
  // Where the directory is, where its name is (a link's directory), and the directory
  // holding it.
  for (const fs::path& p : {real, real.parent_path(), real_parent}) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return daemon::fail("cannot examine " + p.string() + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) return daemon::fail(p.string() + " is not a directory: not using it for job files");
    if (st.st_uid != geteuid() && st.st_uid != 0)
      return daemon::fail(p.string() + " belongs to uid " + std::to_string(st.st_uid) + ": not using it for job files");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
      return daemon::fail(p.string() + " may be written by others: not using it for job files");
  }
  return {};
}

daemon::Status prepare_state_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return daemon::fail("cannot create " + dir.string() + ": " + ec.message());
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, ec);
  if (ec) return daemon::fail("cannot set the mode of " + dir.string() + ": " + ec.message());
  return check_private_directory(dir);
}

}  // namespace lsf::sbd
