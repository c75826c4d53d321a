// bjobs' fixed layouts (the default table, -w, -W, -p, -l, -A, -sum); -o layouts are in
// output_format.h and job_fields.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lsf.pb.h"

namespace lsf::cli {

struct TableOptions {
  bool wide = false;             // -w: nothing truncated, hosts ':'-joined
  bool times = false;            // -W: the extra columns, MM/DD-HH:MM:SS times
  bool header = true;            // not -noheader
  bool short_hosts = false;      // LSB_SHORT_HOSTLIST=1: 4*hostA instead of one line per slot
  bool uncondensed = false;      // -X
  bool suspend_reasons = false;  // -s, -ps: under each suspended job, why it is suspended
  bool pending_reasons = false;  // -ps: under each pending job, why it is pending
};

// Each execution host once with its slot count, in order: "4*hostA" or "hostA".
std::vector<std::string> condensed_hosts(const wire::JobInfo& job);
// Pending or suspending reasons ("a; b") one per line, as LSF prints them.
void print_reasons(const std::string& reasons);

void print_default(const std::vector<wire::JobInfo>& jobs, const TableOptions& options);
void print_pending(const std::vector<wire::JobInfo>& jobs, const TableOptions& options);
// bjobs -l; `queues` holds the queues of the jobs shown, for their SCHEDULING PARAMETERS.
// `gpu_hosts`: bjobs -l -gpu, each started GPU job's GPU_ALLOCATION with its devices'
// facts from these hosts; null: without -gpu.
void print_long(const std::vector<wire::JobInfo>& jobs, const std::map<std::string, wire::QueueInfo>& queues,
                const wire::HostsReply* gpu_hosts = nullptr);
void print_arrays(const std::vector<wire::JobInfo>& jobs, bool header);
void print_summary(const std::vector<wire::JobInfo>& jobs);

}  // namespace lsf::cli
