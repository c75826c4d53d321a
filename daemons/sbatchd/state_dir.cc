#include "daemons/sbatchd/state_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lsf::sbd {
namespace fs = std::filesystem;

std::string check_private_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(dir, ec);
  if (ec) return "cannot resolve " + dir.string() + ": " + ec.message();
  for (const fs::path& p : {real, real.parent_path()}) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return "cannot examine " + p.string() + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return p.string() + " is not a directory: not using it for job files";
    if (st.st_uid != geteuid() && st.st_uid != 0)
      return p.string() + " belongs to uid " + std::to_string(st.st_uid) + ": not using it for job files";
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
      return p.string() + " may be written by others: not using it for job files";
  }
  return {};
}

}  // namespace lsf::sbd
