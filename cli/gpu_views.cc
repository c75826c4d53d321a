#include "cli/gpu_views.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "libconfig/gpu_request.h"

namespace lsf::cli {
namespace {

using Row = std::vector<std::string>;

// Columns as wide as their widest cell, the first (the host) to the left, the rest to
// the right, as LSF prints these tables; a host's name only on its first GPU's row.
void print_rows(std::ostream& out, const Row& header, const std::vector<Row>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const Row& r) {
    for (size_t c = 0; c < r.size(); ++c) {
      if (c == 0)
        out << std::left << std::setw(static_cast<int>(width[c])) << r[c];
      else
        out << "  " << std::right << std::setw(static_cast<int>(width[c])) << r[c];
    }
    out << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string percent(double fraction) { return fixed(fraction * 100, 0) + "%"; }
std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// NVML's number for the compute mode, as lsload -gpuload shows it.
std::string mode_number(const std::string& mode) {
  if (mode == "exclusive_process") return "3.0";
  if (mode == "prohibited") return "2.0";
  return "0.0";
}

const wire::GpuDevice* device(const wire::HostsReply& hosts, const std::string& host, int id) {
  for (const auto& h : hosts.hosts())
    if (h.name() == host)
      for (const auto& g : h.load().gpus())
        if (g.id() == id) return &g;
  return nullptr;
}

}  // namespace

void print_lshosts_gpu(std::ostream& out, const wire::HostsReply& hosts) {
  std::vector<Row> rows;
  for (const auto& h : hosts.hosts()) {
    bool first = true;
    for (const auto& g : h.load().gpus()) {
      rows.push_back({first ? h.name() : "", std::to_string(g.id()), or_dash(g.model()), or_dash(g.driver()),
                      fixed(g.factor(), 1), g.socket() < 0 ? "-" : std::to_string(g.socket()), or_dash(g.vendor())});
      first = false;
    }
  }
  print_rows(out, {"HOST_NAME", "gpu_id", "gpu_model", "gpu_driver", "gpu_factor", "numa_id", "vendor"}, rows);
}

void print_lsload_gpu(std::ostream& out, const wire::HostsReply& hosts) {
  std::vector<Row> rows;
  for (const auto& h : hosts.hosts()) {
    const auto& gpus = h.load().gpus();
    if (gpus.empty()) continue;
    // Averages over the devices in shared mode, as LSF's gpu_shared_avg_*.
    double ut = 0, mut = 0;
    int shared = 0;
    for (const auto& g : gpus) {
      if (g.mode() != "shared") continue;
      ut += g.ut();
      mut += g.mut();
      ++shared;
    }
    const bool down = h.status() == "unavail" || h.status() == "unreach";
    rows.push_back({h.name(), down ? "unavail" : "ok", std::to_string(gpus.size()),
                    shared ? percent(mut / shared) : "-", shared ? percent(ut / shared) : "-",
                    std::to_string(gpus.size())});
  }
  print_rows(out, {"HOST_NAME", "status", "ngpus", "gpu_shared_avg_mut", "gpu_shared_avg_ut", "ngpus_physical"}, rows);
}

void print_lsload_gpuload(std::ostream& out, const wire::HostsReply& hosts) {
  std::vector<Row> rows;
  for (const auto& h : hosts.hosts()) {
    bool first = true;
    for (const auto& g : h.load().gpus()) {
      rows.push_back({first ? h.name() : "", std::to_string(g.id()), or_dash(g.model()), mode_number(g.mode()),
                      fixed(g.temp_c(), 0) + "C", fixed(static_cast<double>(g.ecc_errors()), 1), percent(g.ut()),
                      percent(g.mut()), megabytes(static_cast<double>(g.mem_total_mb())),
                      megabytes(static_cast<double>(g.mem_used_mb())),
                      g.pstate() < 0 ? "-" : std::to_string(g.pstate()), or_dash(g.status()), or_dash(g.error())});
      first = false;
    }
  }
  print_rows(out,
             {"HOST_NAME", "gpuid", "gpu_model", "gpu_mode", "gpu_temp", "gpu_ecc", "gpu_ut", "gpu_mut", "gpu_mtotal",
              "gpu_mused", "gpu_pstate", "gpu_status", "gpu_error"},
             rows);
}

void print_bhosts_gpu(std::ostream& out, const wire::HostsReply& hosts, bool wide, bool detail) {
  // Without -w or -l, names are cut as bhosts cuts them (host 18, model 15 characters).
  auto cut = [whole = wide || detail](const std::string& s, size_t n) {
    return whole || s.size() <= n ? s : s.substr(0, n);
  };
  std::vector<Row> rows;
  for (const auto& h : hosts.hosts()) {
    bool first = true;
    for (const auto& g : h.load().gpus()) {
      wire::GpuHostUse use;
      for (const auto& u : h.gpu_use())
        if (u.gpu() == g.id()) use = u;
      Row row{first ? cut(h.name(), 18) : "", std::to_string(g.id()), cut(or_dash(g.model()), 15)};
      if (detail) row.push_back(megabytes(static_cast<double>(g.mem_total_mb())));
      for (auto cell : {megabytes(static_cast<double>(g.mem_used_mb())), megabytes(static_cast<double>(use.mrsv_mb())),
                        std::to_string(use.njobs()), std::to_string(use.run()), std::to_string(use.susp()),
                        std::to_string(use.rsv())})
        row.push_back(cell);
      if (detail) row.push_back(or_dash(g.mode()));
      rows.push_back(std::move(row));
      first = false;
    }
  }
  Row header{"HOST_NAME", "GPU_ID", "MODEL"};
  if (detail) header.push_back("MTOTAL");
  for (const char* c : {"MUSED", "MRSV", "NJOBS", "RUN", "SUSP", "RSV"}) header.push_back(c);
  if (detail) header.push_back("MODE");
  print_rows(out, header, rows);
}

void print_gpu_allocation(std::ostream& out, const wire::JobInfo& job, const wire::HostsReply& hosts) {
  if (job.gpus().empty()) return;
  // Which task each device serves: with num=N/task, N devices per slot in the order of
  // the job's slots; else all of a host's devices serve its first task. Tasks are
  // numbered over the job's slots (exec_hosts) from 0.
  const auto req = config::GpuRequest::parse(job.gpu_req());
  const bool per_task = req && req->per_task.value_or(false);
  const int num = req ? std::max(1, req->num.value_or(1)) : 1;
  auto first_task = [&](const std::string& host) {
    for (int i = 0; i < job.exec_hosts_size(); ++i)
      if (job.exec_hosts(i) == host) return i;
    return 0;
  };
  std::vector<Row> rows;
  std::string last_host;
  int on_host = 0;
  for (const auto& u : job.gpus()) {
    const wire::GpuDevice* d = device(hosts, u.host(), u.gpu());
    on_host = u.host() == last_host ? on_host + 1 : 0;
    const int task = first_task(u.host()) + (per_task ? on_host / num : 0);
    rows.push_back({u.host() == last_host ? "" : u.host(), std::to_string(task), std::to_string(u.gpu()), "-", "-",
                    d ? or_dash(d->model()) : "-", d ? megabytes(static_cast<double>(d->mem_total_mb())) : "-",
                    d ? fixed(d->factor(), 1) : "-", megabytes(static_cast<double>(u.mem_mb())),
                    d && d->socket() >= 0 ? std::to_string(d->socket()) : "-", "-"});
    last_host = u.host();
  }
  out << "\n GPU_ALLOCATION:\n";
  print_rows(out,
             {" HOST", "TASK", "GPU_ID", "GI_PLACEMENT/SIZE", "CI_PLACEMENT/SIZE", "MODEL", "MTOTAL", "FACTOR", "MRSV",
              "SOCKET", "NVLINK/XGMI"},
             [&] {
               for (auto& r : rows) r[0] = " " + r[0];
               return rows;
             }());
}

}  // namespace lsf::cli
