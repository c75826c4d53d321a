// lsinfo: the resources, host types and host models the cluster knows.
//
//   lsinfo [-r] [-t] [-m] [resource ...]
//
// Without -r, -t or -m all three tables are printed.
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("r", "")("t", "")("m", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("lsinfo", argc, argv, opts, pos, "Usage: lsinfo [-r] [-t] [-m] [resource ...]\n");
  cli::Session session("lsinfo");
  wire::RequestEnvelope req;
  req.mutable_config_info();
  const auto reply = cli::require_ok("lsinfo", session.call(req)).config_info();
  bool all = !vm.count("r") && !vm.count("t") && !vm.count("m");
  std::vector<std::string> names;
  if (vm.count("names")) names = vm["names"].as<std::vector<std::string>>();
  int rc = 0;
  if (all || vm.count("r") || !names.empty()) {
    std::cout << "RESOURCE_NAME   TYPE   ORDER  DESCRIPTION\n";
    for (const auto& n : names) {
      bool known = false;
      for (const auto& r : reply.resources()) known = known || r.name() == n;
      if (!known) {
        std::cerr << n << ": Resource name not found\n";
        rc = 255;
      }
    }
    for (const auto& r : reply.resources()) {
      if (!names.empty() && std::find(names.begin(), names.end(), r.name()) == names.end()) continue;
      char line[512];
      std::snprintf(line, sizeof line, "%-13s %7s %6s  %s", r.name().c_str(), r.type().c_str(), r.order().c_str(),
                    r.description().c_str());
      std::cout << line << "\n";
    }
    if (!names.empty()) return rc;
  }
  if (all || vm.count("t")) {
    std::cout << (all ? "\n" : "") << "TYPE_NAME\n";
    for (const auto& t : reply.host_types()) std::cout << t << "\n";
  }
  if (all || vm.count("m")) {
    std::cout << (all ? "\n" : "") << "MODEL_NAME      CPU_FACTOR      ARCHITECTURE\n";
    for (const auto& m : reply.models()) {
      std::string arch;
      for (const auto& a : m.architectures()) arch += (arch.empty() ? "" : " ") + a;
      char line[512];
      std::snprintf(line, sizeof line, "%-15s %10.2f      %s", m.name().c_str(), m.cpu_factor(), arch.c_str());
      std::cout << line << "\n";
    }
  }
  return rc;
}
