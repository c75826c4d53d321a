// lshosts: the static facts of each host: type, model, CPU factor, size, resources.
//
//   lshosts [-w | -l | -gpu] [host ...]
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/gpu_views.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string size_or_dash(double mb) { return mb > 0 ? cli::megabytes(mb) : "-"; }

std::string resources(const wire::HostInfo& h) {
  std::string out;
  for (const auto& r : h.resources()) out += (out.empty() ? "" : " ") + r;
  return "(" + out + ")";
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("gpu", "")("R", po::value<std::string>(), "")(
      "hosts", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("hosts", -1);
  auto vm =
      cli::parse_options("lshosts", argc, argv, opts, pos, "Usage: lshosts [-w | -l | -gpu] [-R res_req] [host ...]\n");
  cli::Session session("lshosts");
  const auto reply = cli::ask_hosts(session, "lshosts", vm);
  auto ncpus = [](const wire::HostInfo& h) {
    return h.load().ncpus() > 0 ? std::to_string(h.load().ncpus()) : std::string("-");
  };
  if (vm.count("gpu")) {
    cli::print_lshosts_gpu(std::cout, reply);
    return 0;
  }
  if (vm.count("l")) {
    for (const auto& h : reply.hosts()) {
      const auto& l = h.load();
      std::printf("\nHOST_NAME:  %s\n", h.name().c_str());
      std::printf("type             model  cpuf ncpus maxmem maxswp maxtmp server\n");
      std::printf("%-10s %11s %5.1f %5s %6s %6s %6s %6s\n\n", h.type().c_str(), h.model().c_str(), h.cpu_factor(),
                  ncpus(h).c_str(), size_or_dash(l.maxmem_mb()).c_str(), size_or_dash(l.maxswp_mb()).c_str(),
                  size_or_dash(l.maxtmp_mb()).c_str(), h.server() ? "Yes" : "No");
      std::printf("RESOURCES: %s\n", resources(h).c_str());
      std::printf("RUN_WINDOWS:  (always open)\n");
    }
    return 0;
  }
  const bool wide = vm.count("w") > 0;
  if (wide)
    std::printf("HOST_NAME                       type       model  cpuf ncpus maxmem maxswp server RESOURCES\n");
  else
    std::printf("HOST_NAME      type    model  cpuf ncpus maxmem maxswp server RESOURCES\n");
  for (const auto& h : reply.hosts()) {
    const auto& l = h.load();
    char cpuf[16];
    std::snprintf(cpuf, sizeof cpuf, "%.1f", h.cpu_factor());
    if (wide)
      std::printf("%-25s %10s %11s %5s %5s %6s %6s %6s %s\n", h.name().c_str(), h.type().c_str(), h.model().c_str(),
                  cpuf, ncpus(h).c_str(), size_or_dash(l.maxmem_mb()).c_str(), size_or_dash(l.maxswp_mb()).c_str(),
                  h.server() ? "Yes" : "No", resources(h).c_str());
    else
      std::printf("%-11.11s %7.7s %8.8s %5.5s %5.5s %6.6s %6.6s %6.6s %s\n", h.name().c_str(), h.type().c_str(),
                  h.model().c_str(), cpuf, ncpus(h).c_str(), size_or_dash(l.maxmem_mb()).c_str(),
                  size_or_dash(l.maxswp_mb()).c_str(), h.server() ? "Yes" : "No", resources(h).c_str());
  }
  return 0;
}
