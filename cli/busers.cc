// busers: job slot limits and usage of users and user groups.
//
//   busers [-w] [user | user_group | all ...]
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = cli::parse_options("busers", argc, argv, opts, pos, "Usage: busers [-w] [user | user_group | all ...]\n");
  cli::Session session("busers");
  wire::RequestEnvelope req;
  if (vm.count("names"))
    for (const auto& n : vm["names"].as<std::vector<std::string>>()) req.mutable_users()->add_names(n);
  req.mutable_users();
  const auto reply = cli::require_ok("busers", session.call(req)).users();
  const bool wide = vm.count("w") > 0;
  std::cout << "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV\n";
  for (const auto& u : reply.users()) {
    char jlp[32] = "-", max[32] = "-", line[512];
    if (u.jl_p() >= 0) std::snprintf(jlp, sizeof jlp, "%g", u.jl_p());
    if (u.max_jobs() >= 0) std::snprintf(max, sizeof max, "%d", u.max_jobs());
    std::string name = u.name() + (u.group() ? "/" : "");
    if (!wide && name.size() > 19) {
      name.resize(18);
      name += '*';
    }
    std::snprintf(line, sizeof line, "%-19s %4s %6s %6d %6d %6d %6d %6d %6d", name.c_str(), jlp, max, u.njobs(),
                  u.pend(), u.run(), u.ssusp(), u.ususp(), u.rsv());
    std::cout << line << "\n";
  }
  for (const auto& e : reply.errors()) std::cerr << e << "\n";
  return reply.errors_size() > 0 ? 255 : 0;
}
