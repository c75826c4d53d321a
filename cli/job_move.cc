// btop and bbot: one source, built twice with MOVE_TO_TOP set.
//
//   btop jobid | "jobid[index]" [position]     bbot jobid | "jobid[index]" [position]
// Moves a pending job to `position` (default 1) among its queue's pending jobs,
// counted from the top (btop) or the bottom (bbot).
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  const std::string command = MOVE_TO_TOP ? "btop" : "bbot";
  po::options_description opts;
  opts.add_options()("args", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("args", -1);
  const std::string usage = "Usage: " + command + " jobId | \"jobId[index]\" [position]\n";
  auto vm = cli::parse_options(command, argc, argv, opts, pos, usage);
  std::vector<std::string> args;
  if (vm.count("args")) args = vm["args"].as<std::vector<std::string>>();
  if (args.empty() || args.size() > 2) {
    std::cerr << usage;
    return 255;
  }
  auto ref = cli::parse_job_ref(args[0]);
  if (!ref) {
    std::cerr << args[0] << ": Illegal job ID.\n";
    return 255;
  }
  int position = 1;
  if (args.size() == 2) {
    try {
      position = std::stoi(args[1]);
    } catch (...) {
      position = 0;
    }
    if (position < 1) {
      std::cerr << args[1] << ": Position value must be a positive integer.\n";
      return 255;
    }
  }
  cli::Session session(command);
  wire::RequestEnvelope req;
  auto* q = req.mutable_job_move();
  *q->mutable_job() = *ref;
  q->set_top(MOVE_TO_TOP);
  q->set_position(position);
  const auto reply = cli::require_ok(command, session.call(req));
  std::cout << reply.job_move().message() << "\n";
  return 0;
}
