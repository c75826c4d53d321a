// Reads lsb.events (or lsb.snapshot) record by record; see event_log_format.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace lsf::mbd {

struct ReadOutcome {
  std::uint64_t records = 0;
  std::uint64_t good_bytes = 0;  // offset just past the last whole record
  bool torn_tail = false;        // a partial last record was dropped
  std::string error;             // damage in the middle, with its offset; empty: none
};

// Calls `on_record` with each payload in order. A missing file reads as empty.
// When on_record returns a non-empty string, reading stops with that error.
ReadOutcome read_event_file(
    const std::filesystem::path& path,
    const std::function<std::string(std::string_view payload, std::uint64_t offset)>& on_record);

}  // namespace lsf::mbd
