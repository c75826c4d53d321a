#include "daemons/mbatchd/event_log_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemons/mbatchd/event_log_format.h"

namespace lsf::mbd {

std::optional<std::uint64_t> find_next_record(std::string_view data, std::uint64_t from) {
  for (std::uint64_t pos = from; pos + kRecordHeaderSize <= data.size(); ++pos) {
    std::uint32_t length = get_u32(data.data() + pos);
    if (length == 0 || length > kMaxRecordSize || pos + kRecordHeaderSize + length > data.size()) continue;
    if (record_crc(data.substr(pos + kRecordHeaderSize, length)) == get_u32(data.data() + pos + 4)) return pos;
  }
  return std::nullopt;
}

ReadOutcome read_event_file(const std::filesystem::path& path,
                            const std::function<daemon::Status(std::string_view, std::uint64_t)>& on_record) {
  ReadOutcome out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    ::close(fd);
    return out;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    out.error = "cannot map " + path.string();
    return out;
  }
  std::string_view data(static_cast<const char*>(map), size);
  if (data.size() < kEventLogMagic.size() || data.substr(0, kEventLogMagic.size()) != kEventLogMagic) {
    if (kEventLogMagic.substr(0, data.size()) == data.substr(0, kEventLogMagic.size())) {
      out.torn_tail = true;  // crashed while writing the header
    } else {
      out.error = path.string() + ": not an event log (bad header)";
    }
    munmap(map, size);
    return out;
  }
  std::size_t pos = kEventLogMagic.size();
  out.good_bytes = pos;
  while (pos < data.size()) {
    if (data.size() - pos < kRecordHeaderSize) {
      out.torn_tail = true;
      break;
    }
    std::uint32_t length = get_u32(data.data() + pos);
    std::uint32_t crc = get_u32(data.data() + pos + 4);
    std::size_t end = pos + kRecordHeaderSize + length;
    if (length > kMaxRecordSize) {
      out.error = path.string() + ": damaged record at offset " + std::to_string(pos) + " (length " +
                  std::to_string(length) + ")";
      out.damage_offset = pos;
      break;
    }
    if (end > data.size()) {
      // A length damaged to point past the end looks like a torn write, but a crash
      // tears only the last record: one that follows proves damage.
      if (find_next_record(data, pos + 1)) {
        out.error = path.string() + ": damaged record at offset " + std::to_string(pos) + " (length " +
                    std::to_string(length) + " runs past the end, but records follow)";
        out.damage_offset = pos;
      } else {
        out.torn_tail = true;
      }
      break;
    }
    std::string_view payload = data.substr(pos + kRecordHeaderSize, length);
    if (record_crc(payload) != crc) {
      if (end == data.size()) {
        out.torn_tail = true;  // the last record, half on disk
      } else {
        out.error = path.string() + ": damaged record at offset " + std::to_string(pos) + " (checksum mismatch)";
        out.damage_offset = pos;
      }
      break;
    }
    if (auto taken = on_record(payload, pos); !taken) {
      out.error = path.string() + ": record at offset " + std::to_string(pos) + ": " + taken.message();
      break;
    }
    ++out.records;
    pos = end;
    out.good_bytes = pos;
  }
  munmap(map, size);
  return out;
}

}  // namespace lsf::mbd
