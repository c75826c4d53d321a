// lsb.acct: one JOB_FINISH line per finished job, in LSF's field order (reference
// lsf.md §5.2), so sites' accounting scripts keep working. Strings are quoted with
// embedded quotes doubled; unknown resource usage is -1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "daemons/mbatchd/job.h"

namespace lsf::mbd {

std::string job_finish_record(const Job& job, std::int64_t event_time);

// A JOB_FINISH line read back; nullopt for any other or a malformed line.
std::optional<wire::AcctRecord> parse_job_finish_record(std::string_view line);

}  // namespace lsf::mbd
