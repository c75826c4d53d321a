// lsload: each host's current load, as its sbatchd last reported it.
//
//   lsload [-w | -l | -gpu | -gpuload] [host ...]
//
// Hosts that do not report are `unavail` with no values. -l adds io and the host sizes.
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/gpu_views.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

// lsload's status: ok, busy (past a load threshold), unavail; closed hosts still load.
std::string load_status(const wire::HostInfo& h) {
  if (h.status() == "unavail" || h.status() == "unreach") return "unavail";
  if (h.status() == "closed_Busy") return "busy";
  return "ok";
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("gpu", "")("gpuload", "")("R", po::value<std::string>(), "")(
      "hosts", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("hosts", -1);
  auto vm = cli::parse_options("lsload", argc, argv, opts, pos,
                               "Usage: lsload [-w | -l | -gpu | -gpuload] [-R res_req] [host ...]\n");
  cli::Session session("lsload");
  const auto reply = cli::ask_hosts(session, "lsload", vm);
  if (vm.count("gpuload")) {
    cli::print_lsload_gpuload(std::cout, reply);
    return 0;
  }
  if (vm.count("gpu")) {
    cli::print_lsload_gpu(std::cout, reply);
    return 0;
  }
  const bool wide = vm.count("w") > 0 || vm.count("l") > 0;
  const bool all = vm.count("l") > 0;
  std::printf("%s status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   mem%s\n",
              wide ? "HOST_NAME              " : "HOST_NAME      ", all ? "    io maxmem maxswp maxtmp" : "");
  for (const auto& h : reply.hosts()) {
    std::string name = wide ? h.name() : h.name().substr(0, 15);
    std::string st = load_status(h);
    if (st == "unavail") {
      std::printf("%-*s %6s\n", wide ? 23 : 15, name.c_str(), st.c_str());
      continue;
    }
    const auto& l = h.load();
    char ut[16];
    std::snprintf(ut, sizeof ut, "%.0f%%", l.ut() * 100);
    std::printf("%-*s %6s %5.1f %5.1f %5.1f %4s %5.1f %3.0f %5.0f %5s %5s %5s", wide ? 23 : 15, name.c_str(),
                st.c_str(), l.r15s(), l.r1m(), l.r15m(), ut, l.pg(), l.ls(), l.it(), cli::megabytes(l.tmp_mb()).c_str(),
                cli::megabytes(l.swp_mb()).c_str(), cli::megabytes(l.mem_mb()).c_str());
    if (all)
      std::printf(" %5s %6s %6s %6s", "-", cli::megabytes(l.maxmem_mb()).c_str(), cli::megabytes(l.maxswp_mb()).c_str(),
                  cli::megabytes(l.maxtmp_mb()).c_str());
    std::printf("\n");
  }
  return 0;
}
