// bresources: the resource configuration of lsb.resources.
//
//   bresources [-s [resource ...]] [-c] [-g [-l [-m]] [-json] [pool ...]]
//
// Default and -c: the Limit sections (as blimits -c); -s: the ReservationUsage section
// (how rusage[] reserves each resource); -g: the guaranteed resource pools as the last
// scheduling pass left them. -p (advance reservations' resources) is not built.
#include <cstdio>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/guarantee_views.h"
#include "cli/limit_config.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("s", "")("c", "")("g", "")("l", "")("m", "")("json", "")("p", "")(
      "names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("bresources", argc, argv, opts, pos,
                               "Usage: bresources [-c | -s [resource ...] | -g [-l [-m]] [-json] [pool ...]]\n");
  if (vm.count("p")) {
    std::cerr << "bresources: -p: advance reservations are not built in this version\n";
    return 255;
  }
  cli::Session session("bresources");
  if (vm.count("g")) {
    wire::RequestEnvelope req;
    req.mutable_guarantee_pools();
    if (vm.count("names"))
      for (const auto& n : vm["names"].as<std::vector<std::string>>()) req.mutable_guarantee_pools()->add_names(n);
    const auto reply = cli::require_ok("bresources", session.call(req)).guarantee_pools();
    if (vm.count("json")) {
      cli::print_guarantee_pools_json(std::cout, reply);
      return 0;
    }
    if (reply.pools().empty()) {
      std::cout << "No guaranteed resource pool is configured.\n";
      return 0;
    }
    cli::print_guarantee_pools(std::cout, reply, vm.count("l") > 0, vm.count("m") > 0);
    return 0;
  }
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
