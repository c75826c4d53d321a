// bparams: the batch parameters in force (lsb.params).
//
//   bparams [-a | -l]
//
// Default: the four lines LSF prints; -l: the common parameters with what they mean;
// -a: every parameter with its value.
#include <cstdio>
#include <iostream>
#include <map>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

struct Explained {
  const char* name;
  const char* meaning;
  const char* unit;
};

constexpr Explained kLong[] = {
    {"DEFAULT_QUEUE", "System default queues for automatic queue selection:", ""},
    {"DEFAULT_PROJECT", "The default project assigned to jobs:", ""},
    {"MBD_SLEEP_TIME", "Amount of time in seconds used for calculating parameter values:", " (seconds)"},
    {"SBD_SLEEP_TIME", "The interval for checking jobs by slave batch daemon:", " (seconds)"},
    {"JOB_ACCEPT_INTERVAL", "Interval for a host to accept two batch jobs subsequently:", " (* MBD_SLEEP_TIME)"},
    {"MAX_SBD_FAIL", "The number of times mbatchd tries to reach an sbatchd before it is unreachable:", ""},
    {"CLEAN_PERIOD", "The amount of time that finished jobs are kept in memory:", " (seconds)"},
    {"MAX_JOB_NUM", "The maximum number of finished jobs that are logged before an event log switch:", ""},
    {"MAX_JOBID", "The maximum job ID:", ""},
    {"MAX_JOB_ARRAY_SIZE", "The maximum number of jobs in a job array:", ""},
    {"PG_SUSP_IT", "Interval after which a job suspended for paging may be resumed:", " (seconds)"},
    {"RESERVATION_DEPTH", "Pending jobs that may hold slot reservations in one scheduling pass:", ""},
};

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("a", "")("l", "");
  po::positional_options_description pos;
  auto vm = cli::parse_options("bparams", argc, argv, opts, pos, "Usage: bparams [-a | -l]\n");
  cli::Session session("bparams");
  wire::RequestEnvelope req;
  req.mutable_config_info();
  const auto reply = cli::require_ok("bparams", session.call(req)).config_info();
  std::map<std::string, std::string> values;
  for (const auto& p : reply.params()) values[p.name()] = p.value();
  if (vm.count("a")) {
    std::cout << "lsb.params configuration:\n";
    for (const auto& p : reply.params())
      if (!p.value().empty()) std::cout << "    " << p.name() << " = " << p.value() << "\n";
    return 0;
  }
  if (vm.count("l")) {
    for (const auto& e : kLong) {
      const auto& v = values[e.name];
      if (v.empty()) continue;
      std::cout << e.meaning << "\n    " << e.name << " = " << v << e.unit << "\n\n";
    }
    return 0;
  }
  std::string queues;
  for (const auto& q : reply.default_queues()) queues += (queues.empty() ? "" : " ") + q;
  int mbd = std::stoi(values["MBD_SLEEP_TIME"]);
  std::cout << "Default Queues:  " << queues << "\n"
            << "MBD_SLEEP_TIME used for calculations:  " << mbd << " seconds\n"
            << "Job Checking Interval:  " << values["SBD_SLEEP_TIME"] << " seconds\n"
            << "Job Accepting Interval:  " << std::stoi(values["JOB_ACCEPT_INTERVAL"]) * mbd << " seconds\n";
  return 0;
}
