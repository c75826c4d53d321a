// bqueues: queues with their state and job counts, in LSF's layout.
//
//   bqueues [-w | -l] [queue ...]
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string limit(int v) { return v < 0 ? "-" : std::to_string(v); }
std::string limit(double v) {
  if (v < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<int>(v) ? "%.0f" : "%.1f", v);
  return buf;
}

std::string status(const wire::QueueInfo& q) {
  return std::string(q.open() ? "Open" : "Closed") + (q.active() && q.window_open() ? ":Active" : ":Inact");
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("w", "")("l", "")("queues", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("queues", -1);
  auto vm = cli::parse_options("bqueues", argc, argv, opts, pos, "Usage: bqueues [-w | -l] [queue ...]\n");
  cli::Session session("bqueues");
  wire::RequestEnvelope req;
  req.mutable_queues();
  if (vm.count("queues"))
    for (const auto& q : vm["queues"].as<std::vector<std::string>>()) req.mutable_queues()->add_names(q);
  const auto reply = cli::require_ok("bqueues", session.call(req));
  if (vm.count("l")) {
    for (const auto& q : reply.queues().queues()) {
      std::cout << "\nQUEUE: " << q.name() << "\n  -- "
                << (q.description().empty() ? "No description provided." : q.description())
                << (q.is_default() ? "  This is the default queue." : "") << "\n\nPARAMETERS/STATISTICS\n";
      std::printf("PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n");
      std::printf("%4d %4d  %-14s%4s %4s %4s %4s %5d %5d %5d %5d %5d %4d\n", q.priority(), q.nice(), status(q).c_str(),
                  limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(), limit(q.proc_slots()).c_str(),
                  limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(), q.ssusp(), q.ususp(), q.rsv());
      std::fflush(stdout);
      if (q.run_limit_s() > 0) std::printf("\n RUNLIMIT\n %.1f min\n", static_cast<double>(q.run_limit_s()) / 60.0);
      if (!q.run_window().empty()) std::printf("\nRUN_WINDOW:  %s\n", q.run_window().c_str());
      if (!q.dispatch_window().empty()) std::printf("\nDISPATCH_WINDOW:  %s\n", q.dispatch_window().c_str());
      std::string hosts;
      for (const auto& h : q.hosts()) hosts += h + " ";
      std::printf("\nUSERS: all users\nHOSTS:  %s\n",
                  hosts.empty() ? "all hosts used by the batch system" : hosts.c_str());
      std::fflush(stdout);
    }
    return 0;
  }
  const bool wide = vm.count("w") > 0;
  std::printf(wide ? "QUEUE_NAME                 PRIO      STATUS      MAX  JL/U JL/P JL/H NJOBS  PEND  RUN  SUSP\n"
                   : "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP\n");
  for (const auto& q : reply.queues().queues()) {
    if (wide)
      std::printf("%-26s %4d  %-14s %5s %5s %4s %4s %5d %5d %4d %5d\n", q.name().c_str(), q.priority(),
                  status(q).c_str(), limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(),
                  limit(q.proc_slots()).c_str(), limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(),
                  q.ssusp() + q.ususp());
    else
      std::printf("%-15.15s %3d  %-14.14s %4s %4s %4s %4s %5d %5d %5d %5d\n", q.name().c_str(), q.priority(),
                  status(q).c_str(), limit(q.max_slots()).c_str(), limit(q.user_slots()).c_str(),
                  limit(q.proc_slots()).c_str(), limit(q.host_slots()).c_str(), q.njobs(), q.pend(), q.run(),
                  q.ssusp() + q.ususp());
  }
  return 0;
}
