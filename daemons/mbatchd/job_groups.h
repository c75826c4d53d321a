// Job group paths ("/risk/portfolio1"), as bsub -g, bmod -g, bkill -g and bgadd name
// them. The groups themselves are the state's; their requests are Mbatchd's
// (job_groups.cc).
#pragma once

#include <string>

#include "daemons/common/status.h"

namespace lsf::mbd {

// Ok when `path` can name a job group ("/a/b": letters, digits, _ - .); else why not.
daemon::Status check_job_group_path(const std::string& path);
// Whether a job of `job_group` is in the group `path`: that group or one below it.
bool in_job_group(const std::string& job_group, const std::string& path);

}  // namespace lsf::mbd
