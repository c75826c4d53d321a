// A GPU requirement as LSF 10.1 writes it (LSB_GPU_NEW_SYNTAX=extend): `bsub -gpu`,
// GPU_REQ in lsb.queues and lsb.applications, LSB_GPU_REQ in lsf.conf.
//
//   num=N[/task|host]:mode=shared|exclusive_process
//   :mps=yes[,shared][,nocvd]|per_socket[,shared][,nocvd]|per_gpu[,shared][,nocvd]|no
//   :j_exclusive=yes|no:aff=yes|no:block=yes|no:gpack=yes|no:gvendor=nvidia|amd
//   :gmodel=NAME[-MEM]:gtile=N|'!':gmem=MEM:glink=yes:mig=GI[/CI]
//
// Every option is optional, because the levels merge option by option: what the job
// sets wins over its application profile, which wins over its queue, which wins over
// the cluster's LSB_GPU_REQ; what no level sets takes LSF's default,
// num=1:mode=shared:mps=no:j_exclusive=no. In lsb.queues and lsb.applications a model's
// memory is written NAME#MEM, on the command line NAME-MEM; both are read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libconfig/limits.h"
#include "libconfig/result.h"

namespace lsf::config {

enum class GpuMode { kShared, kExclusiveProcess };

// NVIDIA's Multi-Process Service for the job's GPUs: none, one daemon for the job, one
// per socket or one per GPU; `shared`: jobs of one user with the same requirement
// share the daemons; `nocvd`: CUDA_VISIBLE_DEVICES is not set.
struct GpuMps {
  enum class Kind { kNo, kYes, kPerSocket, kPerGpu };
  Kind kind = Kind::kNo;
  bool shared = false;
  bool nocvd = false;
  bool operator==(const GpuMps&) const = default;
};

struct GpuRequest {
  std::optional<int> num;        // GPUs per host, or per task with per_task
  std::optional<bool> per_task;  // num=N/task
  std::optional<GpuMode> mode;
  std::optional<GpuMps> mps;
  std::optional<bool> j_exclusive;  // the GPUs are the job's alone
  std::optional<bool> aff;          // CPU-GPU affinity
  std::optional<bool> block;        // a task's GPUs together, tasks in order
  std::optional<bool> gpack;        // pack shared-mode jobs onto used GPUs
  std::optional<std::string> gvendor;
  std::optional<std::string> gmodel;          // a model name, or a prefix of one
  std::optional<std::int64_t> gmodel_mem_mb;  // gmodel=NAME-MEM: the model's total memory
  std::optional<int> gtile;                   // GPUs per socket; kGtileAny for '!'
  std::optional<std::int64_t> gmem_mb;        // memory reserved on each GPU
  std::optional<bool> glink;                  // GPUs connected by NVLink
  std::optional<std::string> mig;             // GI[/CI]

  static constexpr int kGtileAny = -1;

  // `text` as written; "-" (bsub -gpu -) and "" are the empty request, which takes every
  // option from the levels below. A bare memory amount is in `unit`
  // (LSF_UNIT_FOR_LIMITS). Errors name the option and the value.
  static Result<GpuRequest> parse(std::string_view text, MemoryUnit unit = MemoryUnit::kMB);

  // This request's options over `lower`'s: the job's over its application's, say.
  GpuRequest over(const GpuRequest& lower) const;
  // With LSF's default for every option no level set.
  GpuRequest with_defaults() const;
  bool empty() const;

  // The options set, in LSF's order and spelling (`num=2:mode=shared:mps=no`), as bjobs
  // -l shows a job's requirement; parse(to_string()) gives the same request.
  std::string to_string() const;
  bool operator==(const GpuRequest&) const = default;
};

// What a job asks of GPUs, as LSF decides it: a job is a GPU job when it was submitted
// with -gpu (`job`, "-" included) or its application profile or queue has GPU_REQ; its
// requirement is then each option from the first level that sets it (job, application,
// queue, LSB_GPU_REQ), LSF's default for the rest. LSB_GPU_REQ alone makes no job a GPU
// job. Null pointers are levels without a requirement; nullopt: not a GPU job.
std::optional<GpuRequest> effective_gpu_request(const GpuRequest* job, const GpuRequest* app, const GpuRequest* queue,
                                                const GpuRequest* cluster);

}  // namespace lsf::config
