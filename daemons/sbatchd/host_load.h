// The load indices sbatchd reports: r15s r1m r15m ut pg ls it tmp swp mem, with ncpus
// and maxmem, read from /proc (and utmp for ls and it). r15s is the run queue smoothed
// over 15 seconds from the samples; pg is major page faults per second; it is the idle
// time of the least idle login terminal, in minutes. A load file (`name = value` lines, e.g. `r1m = 3.5`)
// overrides any of them: tests and virtual hosts set load that way.
//
// GPUs come with the load: from the GPU description file when one is given (gpu_file.h;
// a file that does not exist describes no GPU), else from NVML when detection is on
// (LSF_GPU_AUTOCONFIG, default Y).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "daemons/sbatchd/nvml_gpus.h"
#include "lsf.pb.h"

namespace lsf::sbd {

class HostLoad {
 public:
  explicit HostLoad(std::filesystem::path load_file = {}, std::filesystem::path gpu_file = {}, bool detect_gpus = false)
      : load_file_(std::move(load_file)), gpu_file_(std::move(gpu_file)), detect_gpus_(detect_gpus) {}
  wire::LoadIndices sample();
  // Why the GPU description file was not read at the last sample (the GPUs read before
  // it are reported meanwhile); empty when it was, or when there is none.
  const std::string& gpu_error() const { return gpu_error_; }

 private:
  void sample_gpus(wire::LoadIndices& l);

  std::filesystem::path load_file_;
  std::filesystem::path gpu_file_;
  bool detect_gpus_ = false;
  std::unique_ptr<NvmlGpus> nvml_;  // loaded at the first sample that needs it
  std::vector<wire::GpuDevice> file_gpus_;
  std::string gpu_error_;
  unsigned long long last_busy_ = 0, last_total_ = 0;
  unsigned long long last_faults_ = 0;
  std::chrono::steady_clock::time_point last_sample_{};
  double r15s_ = -1;  // exponentially smoothed run queue, 15 s time constant
};

}  // namespace lsf::sbd
