// bwait: wait until a dependency condition holds.
//
//   bwait -w "condition" [-t minutes]
//
// The condition is bsub -w's (done(12) && ended("nightly*") ...). Exits 0 when it holds;
// 1 when it can never hold (done() of a job that exited) or the timeout passed.
#include <chrono>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", po::value<std::string>(), "")("t", po::value<std::string>(), "");
  po::positional_options_description pos;
  const std::string usage = "Usage: bwait -w \"dependency_expression\" [-t timeout_minutes]\n";
  auto vm = cli::parse_options("bwait", argc, argv, opts, pos, usage);
  if (!vm.count("w")) {
    std::cerr << usage;
    return 255;
  }
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (vm.count("t")) {
    auto minutes = config::parse_int(vm["t"].as<std::string>());
    if (!minutes || *minutes < 1) {
      std::cerr << "bwait: " << vm["t"].as<std::string>() << ": bad timeout (whole minutes, at least 1)\n";
      return 255;
    }
    deadline = std::chrono::steady_clock::now() + std::chrono::minutes(*minutes);
  }
  cli::Session session("bwait");
  wire::RequestEnvelope req;
  req.mutable_wait_condition()->set_condition(vm["w"].as<std::string>());
  for (;;) {
    const auto reply = cli::require_ok("bwait", session.call(req)).wait_condition();
    if (reply.state() == wire::CONDITION_SATISFIED) return 0;
    if (reply.state() == wire::CONDITION_NEVER) {
      std::cerr << "bwait: the wait condition can never be satisfied\n";
      return 1;
    }
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      std::cerr << "bwait: timed out\n";
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}
