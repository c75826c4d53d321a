// bhosts: batch hosts with status and job counts, in LSF's layout.
//
//   bhosts [-w | -l] [host | host_group ...]
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {
std::string limit(int v) { return v < 0 ? "-" : std::to_string(v); }
}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("hosts", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("hosts", -1);
  auto vm = cli::parse_options("bhosts", argc, argv, opts, pos, "Usage: bhosts [-w | -l] [host | host_group ...]\n");
  cli::Session session("bhosts");
  wire::RequestEnvelope req;
  req.mutable_hosts();
  if (vm.count("hosts"))
    for (const auto& h : vm["hosts"].as<std::vector<std::string>>()) req.mutable_hosts()->add_names(h);
  const auto reply = cli::require_ok("bhosts", session.call(req));
  if (vm.count("l")) {
    for (const auto& h : reply.hosts().hosts()) {
      std::printf("HOST  %s\n", h.name().c_str());
      std::printf("STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW\n");
      std::printf("%-14s %6.2f %5s %6s %6d %6d %6d %6d %6d      %s\n", h.status().c_str(), h.cpu_factor(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv(), h.dispatch_window().empty() ? "-" : h.dispatch_window().c_str());
      const auto& l = h.load();
      std::printf("\n CURRENT LOAD USED FOR SCHEDULING:\n");
      std::printf("              r15s   r1m  r15m    ut    pg    io   ls    it   tmp   swp   mem\n");
      std::printf(" Total        %4.1f  %4.1f  %4.1f  %3.0f%%  %4.1f %5s %4.0f %5.0f %5s %5s %5s\n", l.r15s(), l.r1m(),
                  l.r15m(), l.ut() * 100, l.pg(), "-", l.ls(), l.it(), cli::megabytes(l.tmp_mb()).c_str(),
                  cli::megabytes(l.swp_mb()).c_str(), cli::megabytes(l.mem_mb()).c_str());
      if (!h.admin_comment().empty()) std::printf("\n ADMIN ACTION COMMENT: \"%s\"\n", h.admin_comment().c_str());
      std::printf("\n");
    }
    return 0;
  }
  const bool wide = vm.count("w") > 0;
  std::printf("HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n");
  for (const auto& h : reply.hosts().hosts()) {
    if (wide)
      std::printf("%-18s %-14s %5s %6s %6d %6d %6d %6d %6d\n", h.name().c_str(), h.status().c_str(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv());
    else
      std::printf("%-18.18s %-11.11s %5s %6s %6d %6d %6d %6d %6d\n", h.name().c_str(), h.status().c_str(),
                  limit(h.jl_u()).c_str(), limit(h.max_slots()).c_str(), h.njobs(), h.run(), h.ssusp(), h.ususp(),
                  h.rsv());
  }
  return 0;
}
