// The GPU description file: the GPUs of a host and their load, written by hand or by a
// test, for hosts without NVIDIA's library (virtual hosts, CI) and for trying a GPU
// configuration out. sbatchd given one (--gpu-file) reads it instead of asking NVML,
// again at every load sample, so a test changes a GPU's load by rewriting the file.
//
// One GPU per line, `name=value` words; blank lines and `#` comments are skipped:
//
//   id=0 model=TeslaV100_SXM2_32GB mem=32G mode=shared socket=0 ut=0.35 mused=4G temp=41
//
//   id      the device index (CUDA_VISIBLE_DEVICES), 0 to 255, each once   (required)
//   model   the model name, blanks written '_'                             (required)
//   mem     total memory, with a unit (K, M, G, T; MB without)             (required)
//   mode    shared | exclusive_process | prohibited (compute mode; shared)
//   uuid, driver, vendor (nvidia), socket (-1), factor (compute capability, 0)
//   ut, mut (0..1, or a percentage with '%'), mused (memory used), temp (degrees C),
//   ecc (uncorrected errors), pstate (-1), status (ok), error (a word)
#pragma once

#include <string_view>
#include <vector>

#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::sbd {

// The devices `text` describes, in the file's order. An error names the line and the
// word (`line 3: mem=12Q: ...`).
daemon::Result<std::vector<wire::GpuDevice>> parse_gpu_file(std::string_view text);

}  // namespace lsf::sbd
