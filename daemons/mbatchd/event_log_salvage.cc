#include "daemons/mbatchd/event_log_salvage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "daemons/common/status.h"
#include "daemons/mbatchd/event_log_format.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/job_id_mark.h"
#include "lsf.pb.h"

namespace lsf::mbd {
namespace fs = std::filesystem;

namespace {

// The event kind and the job a record is about, read through reflection so that a new
// kind of event needs nothing here.
LostRecord decode(const wire::EventRecord& r, std::uint64_t offset) {
  LostRecord out;
  out.offset = offset;
  out.seq = r.seq();
  const auto* refl = r.GetReflection();
  const auto* field = refl->GetOneofFieldDescriptor(r, r.GetDescriptor()->FindOneofByName("event"));
  if (!field) return out;
  out.kind = field->name();
  std::transform(out.kind.begin(), out.kind.end(), out.kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const auto& event = refl->GetMessage(r, field);
  const auto* d = event.GetDescriptor();
  if (const auto* f = d->FindFieldByName("job_id");
      f && f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT64)
    out.job_id = event.GetReflection()->GetInt64(event, f);
  if (const auto* f = d->FindFieldByName("index");
      f && f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT32)
    out.index = event.GetReflection()->GetInt32(event, f);
  return out;
}

daemon::Status write_file(const fs::path& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return daemon::fail("cannot create " + path.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;
    done += static_cast<std::size_t>(w);
  }
  bool ok = done == bytes.size() && ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return daemon::fail("cannot write " + path.string() + ": " + std::strerror(err));
  }
  return {};
}

}  // namespace

SalvageReport salvage_event_log(const fs::path& logdir, std::int64_t now) {
  SalvageReport out;
  const fs::path events = logdir / "lsb.events";
  auto read = read_event_file(events, [](std::string_view, std::uint64_t) { return daemon::Status(); });
  if (read.error.empty()) return out;
  if (!read.damage_offset) {
    out.error = read.error;
    return out;
  }
  out.damaged = true;
  std::ifstream in(events, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    out.error = "cannot read " + events.string();
    return out;
  }
  const std::uint64_t cut = *read.damage_offset;
  out.kept_bytes = cut;
  out.kept_records = read.records;
  out.moved_bytes = data.size() - cut;

  for (std::uint64_t pos = cut; pos < data.size();) {
    auto next = find_next_record(data, pos);
    if (!next) {
      out.unreadable_bytes += data.size() - pos;
      break;
    }
    const std::uint32_t length = get_u32(data.data() + *next);
    wire::EventRecord r;
    if (r.ParseFromArray(data.data() + *next + kRecordHeaderSize, static_cast<int>(length)) &&
        r.event_case() != wire::EventRecord::EVENT_NOT_SET) {
      out.unreadable_bytes += *next - pos;
      out.lost.push_back(decode(r, *next));
      pos = *next + kRecordHeaderSize + length;
    } else {
      // A CRC that matches by chance over bytes that are no record.
      out.unreadable_bytes += *next + 1 - pos;
      pos = *next + 1;
    }
  }

  // Ids first: once lsb.events is cut, nothing else remembers them.
  std::int64_t max_id = 0;
  for (const auto& l : out.lost) max_id = std::max(max_id, l.job_id);
  JobIdMark mark(logdir / "lsb.jobid");
  // An unreadable mark counts as none here: cover replaces it, and recovery reports one
  // that stays.
  (void)mark.load();
  if (max_id > 0)
    if (auto covered = mark.cover(max_id); !covered) {
      out.error = "cannot write " + (logdir / "lsb.jobid").string() + ": " + covered.message();
      return out;
    }

  out.moved_to = logdir / ("lsb.events.damaged." + std::to_string(now));
  if (auto moved = write_file(out.moved_to, std::string_view(data).substr(cut)); !moved) {
    out.error = moved.message();
    return out;
  }
  int fd = ::open(events.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(cut)) != 0 || ::fsync(fd) != 0) {
    out.error = "cannot cut " + events.string() + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return out;
  }
  ::close(fd);
  return out;
}

std::vector<std::string> describe(const SalvageReport& r) {
  std::vector<std::string> lines;
  if (!r.error.empty()) return {"salvage failed: " + r.error};
  if (!r.damaged) return {"lsb.events has no damage; nothing to do"};
  lines.push_back("lsb.events is damaged at offset " + std::to_string(r.kept_bytes) + ": kept the " +
                  std::to_string(r.kept_records) + " records before it");
  lines.push_back("moved the rest (" + std::to_string(r.moved_bytes) + " bytes) to " + r.moved_to.string());
  std::set<std::int64_t> jobs;
  for (const auto& l : r.lost) {
    std::string line = "not recovered: event " + std::to_string(l.seq) + " " + l.kind;
    if (l.job_id > 0) {
      line += " of job " + std::to_string(l.job_id) + (l.index > 0 ? "[" + std::to_string(l.index) + "]" : "");
      jobs.insert(l.job_id);
    }
    lines.push_back(line);
  }
  if (r.unreadable_bytes > 0)
    lines.push_back("not recovered: " + std::to_string(r.unreadable_bytes) +
                    " bytes after the damage that hold no readable record");
  if (!jobs.empty()) {
    std::string line = "jobs whose events were not recovered:";
    for (auto id : jobs) line += " " + std::to_string(id);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace lsf::mbd
