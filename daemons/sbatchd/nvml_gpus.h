// NVIDIA GPUs as NVML reports them. libnvidia-ml.so.1 comes with the driver, not with
// a toolkit, so it is loaded at run time: sbatchd builds without it and runs on hosts
// without a driver, where there are simply no GPUs (and nothing is logged as an error).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lsf.pb.h"

namespace lsf::sbd {

class NvmlGpus {
 public:
  // Loads the library (the driver's by default; a test gives a stand-in's path) and
  // initialises NVML; without either, sample() is empty and `unavailable()` says why.
  explicit NvmlGpus(const std::string& library = "libnvidia-ml.so.1");
  ~NvmlGpus();
  NvmlGpus(const NvmlGpus&) = delete;
  NvmlGpus& operator=(const NvmlGpus&) = delete;

  // Every device with its identity and current load; a device NVML cannot read is
  // reported with status "error" and what failed.
  std::vector<wire::GpuDevice> sample();
  const std::string& unavailable() const { return unavailable_; }

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::string unavailable_;
};

}  // namespace lsf::sbd
