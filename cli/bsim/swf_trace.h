// Standard Workload Format traces (.swf, or .swf.gz): the 18 fields of each job line,
// and the header comments (MaxProcs, MaxNodes) that describe the machine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lsf::bsim {

struct SwfJob {
  std::int64_t id = 0;
  std::int64_t submit = 0;
  std::int64_t wait = -1;
  std::int64_t run = -1;
  std::int64_t alloc_procs = -1;
  std::int64_t req_procs = -1;
  std::int64_t req_time = -1;  // the user's estimate
  std::int64_t status = -1;
  std::int64_t user = -1;
  std::int64_t group = -1;
  std::int64_t queue = -1;
  std::int64_t partition = -1;
  std::size_t line = 0;  // in the file, for messages
};

struct SwfTrace {
  std::vector<SwfJob> jobs;  // in file order
  std::optional<std::int64_t> max_procs, max_nodes;
  std::int64_t unix_start_time = 0;
};

// Reads at most `limit` jobs (0: all). Throws std::runtime_error naming the file and
// line of anything that is not a trace.
SwfTrace read_swf(const std::filesystem::path& path, std::size_t limit = 0);

// One job line, as the trace writes it (bsim --swf writes the simulated schedule back).
std::string swf_line(const SwfJob& job);

}  // namespace lsf::bsim
