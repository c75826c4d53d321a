// bsla: service classes (lsb.serviceclasses) with their guarantees and jobs.
//
//   bsla [-json] [service_class_name ...]
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/guarantee_views.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("json", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("bsla", argc, argv, opts, pos, "Usage: bsla [-json] [service_class_name ...]\n");
  cli::Session session("bsla");
  wire::RequestEnvelope req;
  req.mutable_guarantee_pools();
  auto reply = cli::require_ok("bsla", session.call(req)).guarantee_pools();
  if (vm.count("names")) {
    const auto wanted = vm["names"].as<std::vector<std::string>>();
    std::set<std::string> known;
    for (const auto& c : reply.classes()) known.insert(c.name());
    for (const auto& n : wanted)
      if (!known.count(n)) {
        std::cerr << "bsla: " << n << ": No such service class\n";
        return 255;
      }
    wire::GuaranteePoolsReply only = reply;
    only.clear_classes();
    for (const auto& c : reply.classes())
      if (std::set<std::string>(wanted.begin(), wanted.end()).count(c.name())) *only.add_classes() = c;
    reply = std::move(only);
  }
  if (vm.count("json")) {
    cli::print_service_classes_json(std::cout, reply);
    return 0;
  }
  if (reply.classes().empty()) {
    std::cerr << "No service class defined\n";
    return 255;
  }
  cli::print_service_classes(std::cout, reply);
  return 0;
}
