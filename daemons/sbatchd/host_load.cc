#include "daemons/sbatchd/host_load.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <utmpx.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fstream>
#include <sstream>
#include <string>

#include "daemons/sbatchd/gpu_file.h"
#include "libconfig/text.h"

namespace lsf::sbd {

void HostLoad::sample_gpus(wire::LoadIndices& l) {
  if (!gpu_file_.empty()) {
    gpu_error_.clear();
    std::error_code ec;
    if (!std::filesystem::exists(gpu_file_, ec)) {
      file_gpus_.clear();
    } else {
      std::ifstream in(gpu_file_);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) {
        gpu_error_ = gpu_file_.string() + ": cannot be read";
      } else if (auto gpus = parse_gpu_file(text.str()); !gpus) {
        gpu_error_ = gpu_file_.string() + ": " + gpus.error();
      } else {
        file_gpus_ = std::move(gpus).value();
      }
    }
    for (const auto& g : file_gpus_) *l.add_gpus() = g;
    return;
  }
  if (!detect_gpus_) return;
  if (!nvml_) nvml_ = std::make_unique<NvmlGpus>();
  for (auto& g : nvml_->sample()) *l.add_gpus() = std::move(g);
}

wire::LoadIndices HostLoad::sample() {
  wire::LoadIndices l;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = last_sample_ == std::chrono::steady_clock::time_point{}
                             ? 0
                             : std::chrono::duration<double>(now - last_sample_).count();
  last_sample_ = now;
  {
    std::ifstream in("/proc/loadavg");
    double a1 = 0, a5 = 0, a15 = 0;
    std::string running;  // "runnable/total"
    if (in >> a1 >> a5 >> a15 >> running) {
      double runnable = std::max(0.0, std::stod(running.substr(0, running.find('/'))) - 1);  // minus ourselves
      r15s_ = r15s_ < 0 || elapsed <= 0 ? a1 : r15s_ + (runnable - r15s_) * (1 - std::exp(-elapsed / 15.0));
      l.set_r15s(r15s_);
      l.set_r1m(a1);
      l.set_r15m(a15);
    }
  }
  {
    std::ifstream in("/proc/vmstat");
    std::string key;
    unsigned long long value = 0;
    while (in >> key >> value) {
      if (key != "pgmajfault") continue;
      if (elapsed > 0 && value >= last_faults_) l.set_pg(static_cast<double>(value - last_faults_) / elapsed);
      last_faults_ = value;
      break;
    }
  }
  {
    // ls: login sessions; it: minutes since the most recent input on any of their terminals.
    int sessions = 0;
    double idle_min = -1;
    setutxent();
    while (utmpx* u = getutxent()) {
      if (u->ut_type != USER_PROCESS) continue;
      ++sessions;
      struct stat st {};
      std::string tty = std::string("/dev/") + u->ut_line;
      if (stat(tty.c_str(), &st) == 0) {
        double idle = static_cast<double>(std::time(nullptr) - st.st_atime) / 60.0;
        if (idle_min < 0 || idle < idle_min) idle_min = std::max(0.0, idle);
      }
    }
    endutxent();
    l.set_ls(sessions);
    l.set_it(idle_min < 0 ? 0 : idle_min);
  }
  {
    std::ifstream in("/proc/meminfo");
    std::string key;
    double kb = 0;
    std::string unit;
    while (in >> key >> kb) {
      std::getline(in, unit);
      if (key == "MemTotal:") l.set_maxmem_mb(kb / 1024);
      if (key == "MemAvailable:") l.set_mem_mb(kb / 1024);
      if (key == "SwapTotal:") l.set_maxswp_mb(kb / 1024);
      if (key == "SwapFree:") l.set_swp_mb(kb / 1024);
    }
  }
  {
    std::ifstream in("/proc/stat");
    std::string cpu;
    unsigned long long v[8] = {};
    if (in >> cpu >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6] >> v[7]) {
      unsigned long long idle = v[3] + v[4];
      unsigned long long total = 0;
      for (auto x : v) total += x;
      unsigned long long busy = total - idle;
      if (total > last_total_ && last_total_ > 0)
        l.set_ut(static_cast<double>(busy - last_busy_) / static_cast<double>(total - last_total_));
      last_busy_ = busy;
      last_total_ = total;
    }
  }
  struct statvfs fs {};
  if (statvfs("/tmp", &fs) == 0) {
    l.set_tmp_mb(static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) / (1024.0 * 1024.0));
    l.set_maxtmp_mb(static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize) / (1024.0 * 1024.0));
  }
  l.set_ncpus(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  sample_gpus(l);

  if (!load_file_.empty()) {
    std::ifstream in(load_file_);
    std::string line;
    while (std::getline(in, line)) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string name(config::trim(line.substr(0, eq)));
      auto value = config::parse_double(config::trim(line.substr(eq + 1)));
      if (!value) continue;
      const auto* field = wire::LoadIndices::descriptor()->FindFieldByName(name);
      if (!field) field = wire::LoadIndices::descriptor()->FindFieldByName(name + "_mb");
      if (!field) continue;
      const auto* refl = wire::LoadIndices::GetReflection();
      if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE)
        refl->SetDouble(&l, field, *value);
      else if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT32)
        refl->SetInt32(&l, field, static_cast<int>(*value));
    }
  }
  return l;
}

}  // namespace lsf::sbd
