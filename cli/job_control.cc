// bkill, bstop and bresume: one source, built three times with JOB_ACTION set.
//
//   bkill [-s signal] [-g job_group] [-u user|all] jobid | "jobid[index]" | 0 ...
//   bstop [-g job_group] [-u user|all] jobid ...   bresume [-g job_group] [-u user|all] jobid ...
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  const std::string command = JOB_ACTION_COMMAND;
  po::options_description opts;
  opts.add_options()("s", po::value<std::string>(), "")("u", po::value<std::string>(), "")(
      "g", po::value<std::string>(), "")("r", "")("jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  const std::string usage = "Usage: " + command + (command == "bkill" ? " [-r | -s signal]" : "") +
                            " [-g job_group] [-u user|all] jobid | \"jobid[index]\" | 0 ...\n";
  auto vm = cli::parse_options(command, argc, argv, opts, pos, usage);
  if (!vm.count("jobs") && !vm.count("u") && !vm.count("g")) {
    std::cerr << usage;
    return 255;
  }
  cli::Session session(command);
  wire::RequestEnvelope req;
  auto* q = req.mutable_signal_jobs();
  q->set_action(static_cast<wire::JobAction>(JOB_ACTION));
  if (vm.count("s")) {
    if (command != "bkill") {
      std::cerr << command << ": -s is only for bkill\n";
      return 255;
    }
    q->set_action(wire::JOB_ACTION_SIGNAL);
    q->set_signal_name(vm["s"].as<std::string>());
  }
  if (vm.count("r")) {
    if (command != "bkill" || vm.count("s")) {
      std::cerr << command << ": -r is only for bkill, without -s\n";
      return 255;
    }
    q->set_remove(true);
  }
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  if (vm.count("g")) q->set_job_group(vm["g"].as<std::string>());
  std::vector<std::string> ids;
  if (vm.count("jobs")) ids = vm["jobs"].as<std::vector<std::string>>();
  if (ids.empty()) ids.push_back("0");  // -u or -g alone: every job of that user or group
  for (const auto& ref : cli::job_refs(ids)) *q->add_jobs() = ref;
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    return 255;
  }
  return cli::print_results(cli::require_ok(command, result).signal_jobs());
}
