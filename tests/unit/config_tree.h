// A throwaway LSF configuration tree in a temporary directory, for tests that load
// a whole cluster the way badmin and mbatchd do (LSF_ENVDIR -> lsf.conf -> files).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "libconfig/config_loader.h"

namespace lsf::testing {

class ConfigTree {
 public:
  // Starts with a valid cluster "test": hosts hostA hostB hostC (model Generic,
  // type LINUX64), Boolean resource fs, Numeric licA, and one queue, normal.
  ConfigTree() {
    root_ = std::filesystem::temp_directory_path() /
            ("lsfcfg-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(root_ / "conf/lsbatch/test/configdir");
    write("conf/lsf.conf", "LSF_CONFDIR=.\nLSB_CONFDIR=lsbatch\n");
    write("conf/lsf.shared",
          "Begin Cluster\nClusterName\ntest\nremote1\nEnd Cluster\n"
          "Begin HostType\nTYPENAME\nLINUX64\nEnd HostType\n"
          "Begin HostModel\nMODELNAME CPUFACTOR ARCHITECTURE\nGeneric 1.0 (x86_64)\nEnd HostModel\n"
          "Begin Resource\nRESOURCENAME TYPE INTERVAL INCREASING DESCRIPTION\n"
          "fs Boolean () () (File server)\nlicA Numeric () N (Licence)\nEnd Resource\n");
    write("conf/lsf.cluster.test",
          "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
          "Begin Host\nHOSTNAME model type server RESOURCES\n"
          "hostA Generic LINUX64 1 (fs)\nhostB Generic LINUX64 1 ()\nhostC Generic LINUX64 1 ()\nEnd Host\n");
    lsb("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n");
  }
  ~ConfigTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  ConfigTree(const ConfigTree&) = delete;
  ConfigTree& operator=(const ConfigTree&) = delete;

  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // A file of the batch configuration directory.
  void lsb(const std::string& name, const std::string& text) const { write("conf/lsbatch/test/configdir/" + name, text); }

  std::filesystem::path envdir() const { return root_ / "conf"; }
  const std::filesystem::path& root() const { return root_; }

  config::LoadResult load(config::WeekInstant now = {3, 12, 0}) const {
    config::LoadOptions o;
    o.envdir = envdir();
    o.now = now;
    return config::load_cluster_config(o);
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path root_;
};

// Diagnostics as text, one per line, for assertions on exact messages.
inline std::string errors_of(const config::LoadResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics.items())
    if (d.severity == config::Severity::kError) out += d.to_string() + "\n";
  return out;
}
inline std::string warnings_of(const config::LoadResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics.items())
    if (d.severity == config::Severity::kWarning) out += d.to_string() + "\n";
  return out;
}

}  // namespace lsf::testing
