// The -gpu views, in LSF's columns: lshosts -gpu (what each GPU is), lsload -gpu (a
// host's GPUs in sum), lsload -gpuload (each GPU's load), bhosts -gpu (each GPU's jobs),
// and bjobs -l -gpu's
// GPU_ALLOCATION block. Hosts without GPUs are left out of the per-GPU views.
#pragma once

#include <ostream>

#include "lsf.pb.h"

namespace lsf::cli {

void print_lshosts_gpu(std::ostream& out, const wire::HostsReply& hosts);
void print_lsload_gpu(std::ostream& out, const wire::HostsReply& hosts);
void print_lsload_gpuload(std::ostream& out, const wire::HostsReply& hosts);
// bhosts -gpu: each GPU of each host, as the jobs there hold it (HostInfo.gpu_use).
// `wide` (-w) keeps names whole; `detail` (-l) adds the device's memory and mode.
void print_bhosts_gpu(std::ostream& out, const wire::HostsReply& hosts, bool wide, bool detail);
// The job's GPUs with each device's model, memory and factor from `hosts` (where the
// host reported them).
void print_gpu_allocation(std::ostream& out, const wire::JobInfo& job, const wire::HostsReply& hosts);

}  // namespace lsf::cli
