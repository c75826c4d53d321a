#include "daemons/common/daemon_process.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace lsf::net {

void daemonize() {
  pid_t pid = fork();
  if (pid < 0) std::exit(1);
  if (pid > 0) std::_Exit(0);
  setsid();
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    if (null > STDERR_FILENO) ::close(null);
  }
}

daemon::Status take_lock_file(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return daemon::fail("cannot open " + path.string() + ": " + std::strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::array<char, 32> buf{};
    ssize_t n = pread(fd, buf.data(), buf.size() - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return daemon::fail(path.string() + " is held by process " + holder);
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) < 0)
    return daemon::fail("cannot write " + path.string() + ": " + std::strerror(errno));
  return {};
}

std::string local_host_name() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) return "localhost";
  return host.data();
}

}  // namespace lsf::net
