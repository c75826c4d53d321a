// A stand-in for the NVIDIA driver's libnvidia-ml.so.1 with two devices, for
// tests/unit/nvml_gpus_test.cc: NVML's C function names and layouts (nvml.h), answers
// fixed here, so that sbatchd's NVML reading runs where no GPU is.
#include <cstdio>

extern "C" {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

static int devices[2];
static int initialised;

nvmlReturn_t nvmlInit_v2() {
  initialised = 1;
  return 0;
}
nvmlReturn_t nvmlShutdown() {
  initialised = 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = 2;
  return initialised ? 0 : 1;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
  if (i > 1) return 2;
  *d = &devices[i];
  return 0;
}
static int index_of(nvmlDevice_t d) { return static_cast<int>(static_cast<int*>(d) - devices); }
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int len) {
  std::snprintf(name, len, "%s", index_of(d) == 0 ? "Tesla V100-SXM2-32GB" : "NVIDIA H200");
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int len) {
  std::snprintf(uuid, len, "GPU-fake-%d", index_of(d));
  return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  m->total = (index_of(d) == 0 ? 32510ULL : 143771ULL) << 20;
  m->used = 512ULL << 20;
  m->free = m->total - m->used;
  return 0;
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int* mode) {
  *mode = index_of(d) == 0 ? 0 : 3;  // DEFAULT, EXCLUSIVE_PROCESS
  return 0;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned int len) {
  std::snprintf(v, len, "580.65.06");
  return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  u->gpu = index_of(d) == 0 ? 35 : 0;
  u->memory = 10;
  return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* t) {
  static_cast<void>(d);
  if (sensor != 0) return 2;
  *t = 41;
  return 0;
}
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  *major = index_of(d) == 0 ? 7 : 9;
  *minor = 0;
  return 0;
}
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t d, int* p) {
  static_cast<void>(d);
  *p = 2;
  return 0;
}
// The second device has ECC off: NVML answers "not supported" (3).
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long* n) {
  if (index_of(d) == 1 || type != 1 || counter != 0) return 3;
  *n = 4;
  return 0;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_v1_t* p) {
  if (index_of(d) == 1) {
    *count = 0;
    return 0;
  }
  if (*count < 2) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  p[0].pid = 4242;
  p[0].usedGpuMemory = 100ULL << 20;
  p[1].pid = 4343;
  p[1].usedGpuMemory = 200ULL << 20;
  *count = 2;
  return 0;
}

}  // extern "C"
