// bresources: the resource configuration of lsb.resources.
//
//   bresources [-s [resource ...]] [-c]
//
// Default and -c: the Limit sections (as blimits -c); -s: the ReservationUsage section
// (how rusage[] reserves each resource). Guaranteed resource pools (-g) are not
// scheduled yet and are refused with a message saying so.
#include <cstdio>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/limit_config.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("s", "")("c", "")("g", "")("p", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("bresources", argc, argv, opts, pos, "Usage: bresources [-c | -s [resource ...]]\n");
  if (vm.count("g") || vm.count("p")) {
    std::cerr << "bresources: " << (vm.count("g") ? "-g" : "-p")
              << ": guaranteed resource pools are not scheduled by this version\n";
    return 255;
  }
  cli::Session session("bresources");
  wire::RequestEnvelope req;
  req.mutable_limits();
  const auto reply = cli::require_ok("bresources", session.call(req)).limits();
  if (vm.count("s")) {
    std::set<std::string> names;
    if (vm.count("names"))
      for (const auto& n : vm["names"].as<std::vector<std::string>>()) names.insert(n);
    std::cout << "Begin ReservationUsage\nRESOURCE            METHOD\n";
    for (const auto& r : reply.reservation_usage()) {
      if (!names.empty() && !names.count(r.name())) continue;
      char line[256];
      std::snprintf(line, sizeof line, "%-19s %s", r.name().c_str(), r.value().c_str());
      std::cout << line << "\n";
    }
    std::cout << "End ReservationUsage\n";
    return 0;
  }
  if (reply.limits_size() == 0) {
    std::cout << "No resource limits are configured.\n";
    return 0;
  }
  for (const auto& l : reply.limits()) cli::print_limit_config(l);
  return 0;
}
