// `mbatchd --salvage`: what to do when lsb.events is damaged in the middle (a disk
// error, a stray write), where mbatchd refuses to start rather than skip records.
//
// Keeps every record before the damage, moves the rest of the file aside to
// lsb.events.damaged.<time> and says what could not be recovered: records after the
// damage that still read whole (found by scanning for the next valid header and CRC)
// are decoded and listed by event kind and job id. lsb.jobid is moved past every job id
// they name, so those ids are not given again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lsf::mbd {

struct LostRecord {
  std::uint64_t offset = 0;  // in the damaged lsb.events
  std::int64_t seq = 0;
  std::string kind;         // JOB_NEW, JOB_START, ...
  std::int64_t job_id = 0;  // 0: not about a job
  std::int32_t index = 0;
};

struct SalvageReport {
  std::string error;     // the salvage could not be made; nothing was changed
  bool damaged = false;  // false: lsb.events has no damage, nothing was changed
  std::uint64_t kept_bytes = 0;
  std::uint64_t kept_records = 0;
  std::filesystem::path moved_to;
  std::uint64_t moved_bytes = 0;
  std::vector<LostRecord> lost;
  std::uint64_t unreadable_bytes = 0;  // after the damage, in no record that reads whole
};

SalvageReport salvage_event_log(const std::filesystem::path& logdir, std::int64_t now);
// What an administrator reads: one line each.
std::vector<std::string> describe(const SalvageReport& report);

}  // namespace lsf::mbd
