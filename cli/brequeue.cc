// brequeue: kill and requeue jobs, or requeue finished ones.
//
//   brequeue [-a] [-d] [-e] [-r] [-p] [-H] [-u user | -u all] [jobid | "jobid[index_list]" ...]
//
// Without a state option, running and suspended jobs are requeued (-r); -d adds DONE
// jobs, -e EXIT jobs, -p pending ones, -a all of them. -H requeues to PSUSP.
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("a", "")("d", "")("e", "")("r", "")("p", "")("H", "")("u", po::value<std::string>(), "")(
      "jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  const std::string usage =
      "Usage: brequeue [-a] [-d] [-e] [-r] [-p] [-H] [-u user | -u all] [jobid | \"jobid[index_list]\" ...]\n";
  auto vm = cli::parse_options("brequeue", argc, argv, opts, pos, usage);
  if (!vm.count("jobs") && !vm.count("u")) {
    std::cerr << usage;
    return 255;
  }
  cli::Session session("brequeue");
  wire::RequestEnvelope req;
  auto* q = req.mutable_requeue();
  bool all = vm.count("a") > 0;
  if (all || vm.count("r")) {
    q->add_states(wire::JOB_RUN);
    q->add_states(wire::JOB_SSUSP);
    q->add_states(wire::JOB_USUSP);
  }
  if (all || vm.count("d")) q->add_states(wire::JOB_DONE);
  if (all || vm.count("e")) q->add_states(wire::JOB_EXIT);
  if (vm.count("p")) {
    q->add_states(wire::JOB_PEND);
    q->add_states(wire::JOB_PSUSP);
  }
  q->set_hold(vm.count("H") > 0);
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  std::vector<std::string> ids{"0"};
  if (vm.count("jobs")) ids = vm["jobs"].as<std::vector<std::string>>();
  for (const auto& ref : cli::job_refs(session, "brequeue", ids)) *q->add_jobs() = ref;
  return cli::print_results(cli::require_ok("brequeue", session.call(req)).signal_jobs());
}
