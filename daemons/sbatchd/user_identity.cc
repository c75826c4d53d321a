#include "daemons/sbatchd/user_identity.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lsf::sbd {

std::optional<UserIdentity> lookup_user(const std::string& name) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (name.empty() || getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
  UserIdentity out;
  out.name = found->pw_name;
  out.home = found->pw_dir;
  out.shell = found->pw_shell;
  out.uid = found->pw_uid;
  out.gid = found->pw_gid;
  int n = 64;
  out.groups.resize(static_cast<std::size_t>(n));
  if (getgrouplist(out.name.c_str(), out.gid, out.groups.data(), &n) < 0) {
    out.groups.resize(static_cast<std::size_t>(n));
    if (getgrouplist(out.name.c_str(), out.gid, out.groups.data(), &n) < 0) n = 0;
  }
  out.groups.resize(static_cast<std::size_t>(n));
  if (out.groups.empty()) out.groups.push_back(out.gid);
  return out;
}

ActingAs::ActingAs(const UserIdentity& user) {
  if (geteuid() != 0) return;  // not root: the process's own rights already apply
  switched_ = true;
  int n = getgroups(0, nullptr);
  saved_groups_.resize(static_cast<std::size_t>(n > 0 ? n : 0));
  if (n > 0 && getgroups(n, saved_groups_.data()) != n) saved_groups_.clear();
  // Groups first: once the fsuid is not 0 the process may no longer change them.
  if (setgroups(user.groups.size(), user.groups.data()) != 0) {
    ok_ = false;
    return;
  }
  setfsgid(user.gid);
  setfsuid(user.uid);
  // setfs*id report nothing on failure; asking with an impossible id returns the current one.
  ok_ = static_cast<uid_t>(setfsuid(static_cast<uid_t>(-1))) == user.uid &&
        static_cast<gid_t>(setfsgid(static_cast<gid_t>(-1))) == user.gid;
}

ActingAs::~ActingAs() {
  if (!switched_) return;
  setfsuid(0);
  setfsgid(0);
  if (setgroups(saved_groups_.size(), saved_groups_.data()) != 0) {
    // Root's own groups give it nothing it lacks as uid 0; carry on.
  }
}

namespace {

daemon::Result<int> open_as(const UserIdentity& user, const std::string& path, int flags, bool devices_too) {
  int fd = -1;
  {
    ActingAs as(user);
    if (!as.ok()) return daemon::fail("cannot take the identity of user " + user.name);
    fd = ::open(path.c_str(), flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
  }
  if (fd < 0) return daemon::fail(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || (devices_too && S_ISCHR(st.st_mode)))) {
    ::close(fd);
    return daemon::fail(path + ": not a regular file");
  }
  // Reads and writes of a regular file never wait on a peer; clear the flag so a
  // short write is not mistaken for a full device.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

daemon::Result<int> open_user_file_for_reading(const UserIdentity& user, const std::string& path) {
  return open_as(user, path, O_RDONLY, false);
}

daemon::Result<int> open_user_file_for_appending(const UserIdentity& user, const std::string& path) {
  return open_as(user, path, O_WRONLY | O_CREAT | O_APPEND, true);
}

bool become_user(const UserIdentity& user) {
  return setgroups(user.groups.size(), user.groups.data()) == 0 && setgid(user.gid) == 0 && setuid(user.uid) == 0 &&
         geteuid() == user.uid;
}

daemon::Status append_as_user(const UserIdentity& user, const std::string& path, const std::string& text) {
  int fd = -1;
  {
    ActingAs as(user);
    if (!as.ok()) return daemon::fail("cannot take the identity of user " + user.name);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  }
  if (fd < 0) return daemon::fail(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return daemon::fail(path + ": not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const char* data = text.data();
  std::size_t left = text.size();
  std::string why;
  while (left > 0) {
    ssize_t w = ::write(fd, data, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      why = path + ": " + std::strerror(w < 0 ? errno : EIO);
      break;
    }
    data += w;
    left -= static_cast<std::size_t>(w);
  }
  ::close(fd);
  return daemon::Status::from_message(std::move(why));
}

}  // namespace lsf::sbd
