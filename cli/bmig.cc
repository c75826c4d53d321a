// bmig: move running jobs elsewhere. Without checkpointing a job moves by starting over,
// so it must be rerunnable (bsub -r or a RERUNNABLE queue); it is killed and requeued
// ahead of the jobs waiting in its queue.
//
//   bmig [-f] [-m "host ..."] [-u user | -u all] [jobid | "jobid[index_list]" | 0 ...]
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("f", "")("m", po::value<std::string>(), "")("u", po::value<std::string>(), "")(
      "jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  const std::string usage =
      "Usage: bmig [-f] [-m \"host ...\"] [-u user | -u all] [jobid | \"jobid[index_list]\" | 0 ...]\n";
  auto vm = cli::parse_options("bmig", argc, argv, opts, pos, usage);
  if (!vm.count("jobs") && !vm.count("u")) {
    std::cerr << usage;
    return 255;
  }
  cli::Session session("bmig");
  wire::RequestEnvelope req;
  auto* q = req.mutable_migrate();
  if (vm.count("m"))
    for (const auto& h : config::split_words(vm["m"].as<std::string>())) q->add_hosts(h);
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  std::vector<std::string> ids{"0"};
  if (vm.count("jobs")) ids = vm["jobs"].as<std::vector<std::string>>();
  for (const auto& ref : cli::job_refs(session, "bmig", ids)) *q->add_jobs() = ref;
  return cli::print_results(cli::require_ok("bmig", session.call(req)).signal_jobs());
}
