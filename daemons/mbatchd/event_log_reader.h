// Reads lsb.events (or lsb.snapshot) record by record; see event_log_format.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "daemons/common/status.h"

namespace lsf::mbd {

struct ReadOutcome {
  std::uint64_t records = 0;
  std::uint64_t good_bytes = 0;  // offset just past the last whole record
  bool torn_tail = false;        // a partial last record was dropped
  std::string error;             // damage in the middle, with its offset; empty: none
  // Where the damage starts (the first record that is not whole and valid) when the
  // error is damage; `mbatchd --salvage` keeps the file up to here.
  std::optional<std::uint64_t> damage_offset;
};

// The offset of the first place at or after `from` in `data` (a whole event file) that
// holds a whole record whose CRC matches; none when there is none. Damage is told from
// a torn last record by whether a valid record follows it.
std::optional<std::uint64_t> find_next_record(std::string_view data, std::uint64_t from);

// Calls `on_record` with each payload in order. A missing file reads as empty.
// When on_record fails, reading stops with its message as the error.
ReadOutcome read_event_file(
    const std::filesystem::path& path,
    const std::function<daemon::Status(std::string_view payload, std::uint64_t offset)>& on_record);

}  // namespace lsf::mbd
