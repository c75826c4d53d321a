// brun: an administrator starts a pending job now, on the given hosts.
//
//   brun [-f] -m "host_name[#num_slots] ..." jobid | "jobid[index]"
// With -f the job is never suspended for load or run windows, as in LSF.
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("f", po::bool_switch(), "")("m", po::value<std::string>(), "")(
      "job", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("job", -1);
  const std::string usage = "Usage: brun [-f] -m \"host_name[#num_slots] ...\" jobId | \"jobId[index]\"\n";
  auto vm = cli::parse_options("brun", argc, argv, opts, pos, usage);
  if (!vm.count("m") || !vm.count("job") || vm["job"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << usage;
    return 255;
  }
  const std::string id = vm["job"].as<std::vector<std::string>>().front();
  auto ref = cli::parse_job_ref(id);
  if (!ref) {
    std::cerr << id << ": Illegal job ID.\n";
    return 255;
  }
  cli::Session session("brun");
  wire::RequestEnvelope req;
  auto* q = req.mutable_force_run();
  *q->mutable_job() = *ref;
  for (const auto& h : config::split(vm["m"].as<std::string>(), ' '))
    if (!h.empty()) q->add_hosts(h);
  q->set_force(vm["f"].as<bool>());
  const auto reply = cli::require_ok("brun", session.call(req));
  std::cout << reply.force_run().message() << "\n";
  return 0;
}
