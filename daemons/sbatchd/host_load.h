// The load indices sbatchd reports: r15s r1m r15m ut pg ls it tmp swp mem, with ncpus
// and maxmem, read from /proc (and utmp for ls and it). r15s is the run queue smoothed
// over 15 seconds from the samples; pg is major page faults per second; it is the idle
// time of the least idle login terminal, in minutes. A load file (`name = value` lines, e.g. `r1m = 3.5`)
// overrides any of them: tests and virtual hosts set load that way.
#pragma once

#include <chrono>
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
  unsigned long long last_faults_ = 0;
  std::chrono::steady_clock::time_point last_sample_{};
  double r15s_ = -1;  // exponentially smoothed run queue, 15 s time constant
};

}  // namespace lsf::sbd
