#include "daemons/mbatchd/job_id_mark.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace lsf::mbd {
namespace fs = std::filesystem;

daemon::Result<std::int64_t> JobIdMark::load() {
  std::ifstream in(file_);
  if (!in) return mark_;
  std::int64_t v = 0;
  if (in >> v && v > mark_) {
    mark_ = v;
  } else if (!in.eof()) {
    return daemon::fail(file_.string() + ": not a job id mark");
  }
  return mark_;
}

daemon::Status JobIdMark::cover(std::int64_t id) {
  if (id < mark_) return {};
  return write(id + kBlock);
}

daemon::Status JobIdMark::settle(std::int64_t next) {
  if (next >= mark_) return {};
  return write(next);
}

daemon::Status JobIdMark::write(std::int64_t next) {
  const std::string text = std::to_string(next) + "\n";
  fs::path tmp = file_;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return daemon::fail(std::strerror(errno));
  ssize_t w = ::write(fd, text.data(), text.size());
  int err = 0;
  if (w != static_cast<ssize_t>(text.size()))
    err = w < 0 ? errno : ENOSPC;  // a short write is a full disk
  else if (::fsync(fd) != 0)
    err = errno;
  ::close(fd);
  if (err == 0 && ::rename(tmp.c_str(), file_.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return daemon::fail(std::strerror(err));
  }
  int dir = ::open(file_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return daemon::fail(std::strerror(errno));
  if (::fsync(dir) != 0) err = errno;
  ::close(dir);
  if (err != 0) return daemon::fail(std::strerror(err));
  mark_ = next;
  return {};
}

}  // namespace lsf::mbd
