#include "daemons/sbatchd/nvml_gpus.h"

#include <dlfcn.h>

#include <array>
#include <cstdint>

namespace lsf::sbd {

// NVML's C interface as the driver's library exports it (nvml.h's names and layouts;
// the header itself is not needed to build). The structs are in a named namespace, not
// an anonymous one: NvmlGpus::Api has fields of their types.
namespace nvml {
struct Memory {
  unsigned long long total, free, used;
};
struct Utilization {
  unsigned int gpu, memory;  // percent
};
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
}  // namespace nvml

namespace {

using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = void*;
constexpr int kComputeModeProhibited = 2;
constexpr int kComputeModeExclusiveProcess = 3;
constexpr int kTemperatureGpu = 0;
constexpr int kMemoryErrorUncorrected = 1;
constexpr int kVolatileEcc = 0;
constexpr unsigned kNameSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kUuidSize = 80;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr unsigned kMaxProcesses = 64;

// LSF's spelling of a model: "Tesla V100-SXM2-32GB" is TeslaV100_SXM2_32GB.
std::string model_name(const char* name) {
  std::string out;
  for (const char* p = name; *p; ++p) {
    if (*p == ' ') continue;
    out += *p == '-' ? '_' : *p;
  }
  return out;
}

}  // namespace

struct NvmlGpus::Api {
  void* lib = nullptr;
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*count)(unsigned*) = nullptr;
  Return (*handle)(unsigned, Device*) = nullptr;
  Return (*name)(Device, char*, unsigned) = nullptr;
  Return (*uuid)(Device, char*, unsigned) = nullptr;
  Return (*memory)(Device, nvml::Memory*) = nullptr;
  Return (*compute_mode)(Device, int*) = nullptr;
  Return (*driver)(char*, unsigned) = nullptr;
  // Optional: a device without them is reported without that figure.
  Return (*utilization)(Device, nvml::Utilization*) = nullptr;
  Return (*temperature)(Device, int, unsigned*) = nullptr;
  Return (*capability)(Device, int*, int*) = nullptr;
  Return (*pstate)(Device, int*) = nullptr;
  Return (*ecc)(Device, int, int, unsigned long long*) = nullptr;
  Return (*processes)(Device, unsigned*, nvml::ProcessInfoV1*) = nullptr;
  std::string driver_version;

  template <typename F>
  bool find(F& f, const char* symbol) {
    f = reinterpret_cast<F>(dlsym(lib, symbol));
    return f != nullptr;
  }
};

NvmlGpus::NvmlGpus(const std::string& library) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    unavailable_ = library + " is not installed (no NVIDIA driver)";
    return;
  }
  auto api = std::make_unique<Api>();
  api->lib = lib;
  const bool required =
      api->find(api->init, "nvmlInit_v2") && api->find(api->shutdown, "nvmlShutdown") &&
      api->find(api->count, "nvmlDeviceGetCount_v2") && api->find(api->handle, "nvmlDeviceGetHandleByIndex_v2") &&
      api->find(api->name, "nvmlDeviceGetName") && api->find(api->uuid, "nvmlDeviceGetUUID") &&
      api->find(api->memory, "nvmlDeviceGetMemoryInfo") && api->find(api->compute_mode, "nvmlDeviceGetComputeMode") &&
      api->find(api->driver, "nvmlSystemGetDriverVersion");
  if (!required) {
    unavailable_ = library + " lacks a function sbatchd needs (driver too old)";
    dlclose(lib);
    return;
  }
  api->find(api->utilization, "nvmlDeviceGetUtilizationRates");
  api->find(api->temperature, "nvmlDeviceGetTemperature");
  api->find(api->capability, "nvmlDeviceGetCudaComputeCapability");
  api->find(api->pstate, "nvmlDeviceGetPerformanceState");
  api->find(api->ecc, "nvmlDeviceGetTotalEccErrors");
  // The unversioned symbol keeps the first layout of the process record.
  api->find(api->processes, "nvmlDeviceGetComputeRunningProcesses");
  if (Return r = api->init(); r != 0) {
    unavailable_ = "nvmlInit failed with NVML error " + std::to_string(r);
    dlclose(lib);
    return;
  }
  std::array<char, 80> version{};
  if (api->driver(version.data(), version.size()) == 0) api->driver_version = version.data();
  api_ = std::move(api);
}

NvmlGpus::~NvmlGpus() {
  if (!api_) return;
  api_->shutdown();
  dlclose(api_->lib);
}

std::vector<wire::GpuDevice> NvmlGpus::sample() {
  std::vector<wire::GpuDevice> out;
  if (!api_) return out;
  const Api& a = *api_;
  unsigned n = 0;
  if (a.count(&n) != 0) return out;
  for (unsigned i = 0; i < n && i < 256; ++i) {
    wire::GpuDevice g;
    g.set_id(static_cast<int>(i));
    g.set_vendor("nvidia");
    g.set_socket(-1);
    g.set_pstate(-1);
    g.set_driver(a.driver_version);
    g.set_status("ok");
    Device d = nullptr;
    if (Return r = a.handle(i, &d); r != 0) {
      g.set_status("error");
      g.set_error("nvmlDeviceGetHandleByIndex:" + std::to_string(r));
      out.push_back(std::move(g));
      continue;
    }
    std::array<char, kNameSize> name{};
    if (a.name(d, name.data(), kNameSize) == 0) g.set_model(model_name(name.data()));
    std::array<char, kUuidSize> uuid{};
    if (a.uuid(d, uuid.data(), kUuidSize) == 0) g.set_uuid(uuid.data());
    nvml::Memory mem{};
    if (a.memory(d, &mem) == 0) {
      g.set_mem_total_mb(static_cast<std::int64_t>(mem.total >> 20));
      g.set_mem_used_mb(static_cast<std::int64_t>(mem.used >> 20));
    }
    int mode = 0;
    if (a.compute_mode(d, &mode) == 0)
      g.set_mode(mode == kComputeModeExclusiveProcess ? "exclusive_process"
                 : mode == kComputeModeProhibited     ? "prohibited"
                                                      : "shared");
    nvml::Utilization ut{};
    if (a.utilization && a.utilization(d, &ut) == 0) {
      g.set_ut(ut.gpu / 100.0);
      g.set_mut(ut.memory / 100.0);
    }
    unsigned temp = 0;
    if (a.temperature && a.temperature(d, kTemperatureGpu, &temp) == 0) g.set_temp_c(temp);
    int major = 0, minor = 0;
    if (a.capability && a.capability(d, &major, &minor) == 0) g.set_factor(major + minor / 10.0);
    int pstate = -1;
    if (a.pstate && a.pstate(d, &pstate) == 0 && pstate >= 0 && pstate <= 15) g.set_pstate(pstate);
    unsigned long long ecc = 0;
    if (a.ecc && a.ecc(d, kMemoryErrorUncorrected, kVolatileEcc, &ecc) == 0)
      g.set_ecc_errors(static_cast<std::int64_t>(ecc));
    if (a.processes) {
      std::array<nvml::ProcessInfoV1, kMaxProcesses> procs{};
      unsigned count = kMaxProcesses;
      if (a.processes(d, &count, procs.data()) == 0)
        for (unsigned p = 0; p < count && p < kMaxProcesses; ++p) g.add_pids(static_cast<int>(procs[p].pid));
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace lsf::sbd
