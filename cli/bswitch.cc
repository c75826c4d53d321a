// bswitch: move unfinished jobs to another queue, which must take them as it would a
// new submission.
//
//   bswitch [-u user | -u all] destination_queue [jobid | "jobid[index_list]" | 0 ...]
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("u", po::value<std::string>(), "")("args", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("args", -1);
  const std::string usage =
      "Usage: bswitch [-u user | -u all] destination_queue [jobid | \"jobid[index_list]\" | 0 ...]\n";
  auto vm = cli::parse_options("bswitch", argc, argv, opts, pos, usage);
  std::vector<std::string> args;
  if (vm.count("args")) args = vm["args"].as<std::vector<std::string>>();
  if (args.empty() || (args.size() == 1 && !vm.count("u"))) {
    std::cerr << usage;
    return 255;
  }
  cli::Session session("bswitch");
  wire::RequestEnvelope req;
  auto* q = req.mutable_switch_queue();
  q->set_queue(args[0]);
  std::vector<std::string> ids(args.begin() + 1, args.end());
  if (ids.empty()) ids.push_back("0");
  for (const auto& ref : cli::job_refs(session, "bswitch", ids)) *q->add_jobs() = ref;
  return cli::print_results(cli::require_ok("bswitch", session.call(req)).signal_jobs());
}
