// Acting for a job's user on files.
//
// sbatchd runs as root, but whatever it opens for a user (the job's output for bpeek,
// an interactive job's -o file) must be opened with that user's rights: a job's -o
// path is the user's to choose, and can be swapped for a link to /etc/shadow or a
// FIFO after the job starts. The file-system identity (fsuid, fsgid and the
// supplementary groups) is switched around the open, so the kernel checks every
// directory and link on the way as it would for the user, and opening never blocks.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "daemons/common/status.h"

namespace lsf::sbd {

struct UserIdentity {
  std::string name, home, shell;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary, the primary group included
};

// From the password and group databases; nullopt for an unknown user.
std::optional<UserIdentity> lookup_user(const std::string& name);

// While alive, the calling thread's file-system identity is `user`'s (a no-op unless
// the process runs as root). Only for threads that open nothing else meanwhile.
class ActingAs {
 public:
  explicit ActingAs(const UserIdentity& user);
  ~ActingAs();
  ActingAs(const ActingAs&) = delete;
  ActingAs& operator=(const ActingAs&) = delete;

  // False when the switch failed: nothing may then be opened for the user.
  bool ok() const { return ok_; }

 private:
  bool switched_ = false;
  bool ok_ = true;
  std::vector<gid_t> saved_groups_;
};

// Opens `path` read-only as `user` would, without blocking and without taking a
// controlling terminal; refuses anything but a regular file (a FIFO, a device, a
// directory). Returns the descriptor, or what went wrong.
daemon::Result<int> open_user_file_for_reading(const UserIdentity& user, const std::string& path);

// Opens (creating if need be, mode 0600) `path` for appending as `user` would; the
// same rules. For a file a daemon process writes for the user.
daemon::Result<int> open_user_file_for_appending(const UserIdentity& user, const std::string& path);

// Drops every privilege for good: the user's groups (no name-service lookup, so safe
// after a fork), then gid, then uid. For a process forked to run as the user.
bool become_user(const UserIdentity& user);

// Appends `text` to the regular file at `path`, opened with `user`'s filesystem
// identity (ActingAs) when the caller runs as root, so the kernel checks the path, links
// included, exactly as for the user's own open: a path swapped for a link to a file the
// user may not write is not written, and a file it creates (mode 0644 less the umask)
// is the user's. A FIFO or a device is left alone. Only
// from a single-threaded process: the identity is the calling thread's.
daemon::Status append_as_user(const UserIdentity& user, const std::string& path, const std::string& text);

}  // namespace lsf::sbd
