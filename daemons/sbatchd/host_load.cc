#include "daemons/sbatchd/host_load.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "libconfig/text.h"

namespace lsf::sbd {

wire::LoadIndices HostLoad::sample() {
  wire::LoadIndices l;
  {
    std::ifstream in("/proc/loadavg");
    double a1 = 0, a5 = 0, a15 = 0;
    if (in >> a1 >> a5 >> a15) {
      l.set_r15s(a1);
      l.set_r1m(a1);
      l.set_r15m(a15);
    }
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
  l.set_it(0);
  l.set_ls(0);

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
