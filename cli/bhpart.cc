// bhpart: host partitions (lsb.hosts HostPartition) with their hosts and share trees.
//
//   bhpart [-r] [host_partition_name ...]
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/share_tables.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("r", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("bhpart", argc, argv, opts, pos, "Usage: bhpart [-r] [host_partition_name ...]\n");
  cli::Session session("bhpart");
  wire::RequestEnvelope req;
  req.mutable_host_partitions();
  if (vm.count("names"))
    for (const auto& n : vm["names"].as<std::vector<std::string>>()) req.mutable_host_partitions()->add_names(n);
  const auto reply = cli::require_ok("bhpart", session.call(req)).host_partitions();
  if (reply.partitions().empty()) {
    std::cerr << "No host partition defined\n";
    return 255;
  }
  bool first = true;
  for (const auto& p : reply.partitions()) {
    if (!first) std::printf("\n");
    first = false;
    std::string hosts;
    for (const auto& h : p.hosts()) hosts += (hosts.empty() ? "" : " ") + h;
    std::printf("HOST_PARTITION_NAME: %s\nHOSTS: %s\n", p.name().c_str(), hosts.c_str());
    cli::print_share_tables(p.name() + "/", p.share_accounts(), vm.count("r") > 0);
  }
  return 0;
}
