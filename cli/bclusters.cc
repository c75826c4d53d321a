// bclusters: this cluster's MultiCluster relations. Job forwarding is not built, so that
// section says so; the resource lease section has a row per remote cluster this one
// exports to (EXPORT) or borrows from (IMPORT), with the link's status: ok (leased),
// conn (reached, nothing leased yet) or disc (not reached).
//
//   bclusters [-json]
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/output_format.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

void print_json(const wire::ClustersReply& reply) {
  static constexpr cli::FieldDef kFields[] = {
      {"remote_cluster", "", 0}, {"resource_flow", "", 0}, {"status", "", 0}, {"hosts", "", 0}, {"slots", "", 0}};
  cli::OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<cli::Row> rows;
  for (const auto& l : reply.leases())
    rows.push_back(
        {l.remote_cluster(), l.resource_flow(), l.status(), std::to_string(l.hosts()), std::to_string(l.slots())});
  cli::print_json(std::cout, format, kFields, rows, "bclusters", "LEASES");
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("json", "");
  po::positional_options_description pos;
  auto vm = cli::parse_options("bclusters", argc, argv, opts, pos, "Usage: bclusters [-json]\n");
  cli::Session session("bclusters");
  wire::RequestEnvelope req;
  req.mutable_clusters();
  const auto reply = cli::require_ok("bclusters", session.call(req)).clusters();
  if (vm.count("json")) {
    print_json(reply);
    return 0;
  }
  std::printf("[Job Forwarding Information ]\n\nNo local queue sending/receiving jobs from remote clusters\n\n");
  std::printf("[Resource Lease Information ]\n");
  if (reply.leases().empty()) {
    std::printf("\nNo resources exported to or borrowed from remote clusters\n");
    return 0;
  }
  std::printf("REMOTE_CLUSTER  RESOURCE_FLOW   STATUS\n");
  for (const auto& l : reply.leases())
    std::printf("%-15s %-15s %s\n", l.remote_cluster().c_str(), l.resource_flow().c_str(), l.status().c_str());
  return 0;
}
