#include "daemons/common/master_lease.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace lsf::net {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "lsb.master.";

// The epoch a directory entry names, when it is a term's file.
std::optional<std::int64_t> epoch_of(const std::string& name) {
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  std::int64_t n = 0;
  const char* first = name.data() + kPrefix.size();
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || end != last || n <= 0) return std::nullopt;
  return n;
}

std::string line_of(const MasterTerm& t) {
  return std::to_string(t.epoch) + " " + t.host + " " + t.address + " " + std::to_string(t.port) + " " +
         std::to_string(t.beat) + "\n";
}

daemon::Status write_all(int fd, const std::string& text, const fs::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return daemon::fail("cannot write " + path.string() + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return {};
}

daemon::Status sync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return daemon::fail("cannot open " + dir.string() + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return daemon::fail("cannot sync " + dir.string() + ": " + std::strerror(err));
  return {};
}

}  // namespace

std::optional<MasterTerm> parse_master_term(const std::string& line) {
  std::istringstream in(line);
  MasterTerm t;
  unsigned port = 0;
  if (!(in >> t.epoch >> t.host >> t.address >> port >> t.beat) || t.epoch <= 0 || port > 65535) return std::nullopt;
  t.port = static_cast<std::uint16_t>(port);
  return t;
}

fs::path MasterLease::path_of(std::int64_t epoch) const {
  return dir_ / (std::string(kPrefix) + std::to_string(epoch));
}

daemon::Result<MasterTerm> MasterLease::current() const {
  std::error_code ec;
  std::int64_t highest = 0;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
    if (auto e = epoch_of(it->path().filename().string()); e && *e > highest) highest = *e;
  if (ec && ec != std::errc::no_such_file_or_directory)
    return daemon::Result<MasterTerm>::failure("cannot read " + dir_.string() + ": " + ec.message());
  MasterTerm t;
  t.epoch = highest;
  if (highest == 0) return t;
  std::ifstream in(path_of(highest));
  std::string line;
  std::getline(in, line);
  // Between a claim's create and its write the file is empty: the term is taken all
  // the same, by a holder not named yet.
  if (auto parsed = parse_master_term(line); parsed && parsed->epoch == highest) t = *parsed;
  return t;
}

daemon::Result<MasterTerm> MasterLease::claim(std::int64_t after_epoch, const std::string& host,
                                              const std::string& address, std::uint16_t port) const {
  using R = daemon::Result<MasterTerm>;
  std::error_code ec;
  MasterTerm t{after_epoch + 1, host, address.empty() ? host : address, port, 1};
  const fs::path path = path_of(t.epoch);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return R::failure("term " + std::to_string(t.epoch) + " was claimed by another candidate");
    return R::failure("cannot create " + path.string() + ": " + std::strerror(errno));
  }
  auto st = write_all(fd, line_of(t), path);
  if (st.ok() && ::fsync(fd) != 0) st = daemon::fail("cannot sync " + path.string() + ": " + std::strerror(errno));
  ::close(fd);
  if (st.ok()) st = sync_dir(dir_);
  // The term is ours even when it could not be made durable; a holder that cannot say
  // so must not serve, and the next candidate takes the term after it.
  if (!st.ok()) return R(st);
  for (std::int64_t old = after_epoch - 1; old > 0; --old) {
    if (!fs::remove(path_of(old), ec)) break;  // older ones were removed before
  }
  return t;
}

daemon::Status MasterLease::renew(MasterTerm& term) const {
  MasterTerm next = term;
  ++next.beat;
  return rewrite(term, next);
}

daemon::Status MasterLease::release(MasterTerm& term) const {
  MasterTerm next = term;
  next.beat = 0;
  return rewrite(term, next);
}

daemon::Status MasterLease::rewrite(MasterTerm& term, const MasterTerm& next) const {
  if (superseded(term.epoch))
    return daemon::fail("term " + std::to_string(term.epoch + 1) + " has been claimed by another candidate");
  const fs::path path = path_of(term.epoch);
  fs::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return daemon::fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
  auto st = write_all(fd, line_of(next), tmp);
  ::close(fd);
  if (!st.ok()) return st;
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return daemon::fail("cannot rename " + tmp.string() + ": " + std::strerror(errno));
  term = next;
  return {};
}

bool MasterLease::superseded(std::int64_t epoch) const {
  struct stat st {};
  return ::stat(path_of(epoch + 1).c_str(), &st) == 0;
}

void LeaseWatch::observe(const MasterTerm& term, Clock::time_point now) {
  if (!seen_ || !(term == last_)) changed_at_ = now;
  last_ = term;
  seen_ = true;
}

bool LeaseWatch::expired(Clock::time_point now) const {
  if (!seen_) return false;  // nothing read yet: no opinion
  return now - changed_at_ >= silence_;
}

}  // namespace lsf::net
