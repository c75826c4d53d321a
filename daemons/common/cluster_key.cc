#include "daemons/common/cluster_key.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lsf::net {
namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string octal_mode(mode_t mode) {
  std::ostringstream os;
  os << '0' << std::oct << (mode & 07777);
  return os.str();
}

}  // namespace

KeyResult load_cluster_key(const std::filesystem::path& envdir) {
  KeyResult r;
  const std::string path = (envdir / "lsf.sudoers").string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == EACCES) {
      r.unreadable = true;
    } else {
      r.missing = true;
    }
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    r.error = path + ": not a regular file";
    return r;
  }
  std::ifstream in(path);
  if (!in) {
    r.unreadable = true;
    return r;
  }
  // Checked after the open so an ordinary user who cannot read it is told nothing.
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    r.error = path + ": must be owned by root or by the LSF administrator running the daemon (owner uid " +
              std::to_string(st.st_uid) + ")";
    return r;
  }
  if ((st.st_mode & 077) != 0) {
    r.error = path + ": must not be readable or writable by group or others (mode " + octal_mode(st.st_mode) +
              "); run: chmod 600 " + path;
    return r;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = trim(line.substr(0, eq));
    const bool pair_key = name.starts_with(kPairKeyPrefix) && name.size() > kPairKeyPrefix.size();
    if (name != "LSF_EAUTH_KEY" && !pair_key) continue;
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    const std::string where = path + ":" + std::to_string(number) + ": " + name;
    if (value.size() < 6) {
      r.error = where + " must be at least 6 characters";
      return r;
    }
    for (unsigned char c : value) {
      if (!std::isprint(c)) {
        r.error = where + " must contain only printable characters";
        return r;
      }
    }
    if (pair_key)
      r.pair_keys[name.substr(kPairKeyPrefix.size())] = ClusterKey{value};
    else if (!r.key)
      r.key = ClusterKey{value};
  }
  r.missing = !r.key;
  return r;
}

}  // namespace lsf::net
