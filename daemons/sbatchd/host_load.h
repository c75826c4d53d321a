// The load indices sbatchd reports: r15s r1m r15m ut pg ls it tmp swp mem, with ncpus
// and maxmem, read from /proc. A load file (`name = value` lines, e.g. `r1m = 3.5`)
// overrides any of them: tests and virtual hosts set load that way.
#pragma once

#include <filesystem>

#include "lsf.pb.h"

namespace lsf::sbd {

class HostLoad {
 public:
  explicit HostLoad(std::filesystem::path load_file = {}) : load_file_(std::move(load_file)) {}
  wire::LoadIndices sample();

 private:
  std::filesystem::path load_file_;
  unsigned long long last_busy_ = 0, last_total_ = 0;
};

}  // namespace lsf::sbd
