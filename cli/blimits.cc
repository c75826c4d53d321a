// blimits: what each lsb.resources Limit section counts now, or (-c) the sections
// themselves.
//
//   blimits [-c] [-w] [-n limit ...] [-u user] [-q queue] [-m host] [-P project]
//
// One row per combination of consumers with something in use: the consumer columns show
// the member for PER_* consumers and the section's list otherwise ("-": not a consumer);
// the resource columns show used/limit ("-": not limited). When a section has Maui-style
// throttles, IDLE_JOBS (idle/limit), TOTAL_JOBS (running+idle/limit) and PROC_SECONDS
// (in use/soft/hard) follow, as the last scheduling pass counted them.
#include <cstdio>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/limit_config.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string cell(std::string s, size_t width, bool wide) {
  if (s.empty()) s = "-";
  if (!wide && s.size() > width) s = s.substr(0, width - 1) + "*";
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("c", "")("w", "")("n", po::value<std::vector<std::string>>()->multitoken(), "")(
      "u", po::value<std::string>(), "")("q", po::value<std::string>(), "")("m", po::value<std::string>(), "")(
      "P", po::value<std::string>(), "");
  po::positional_options_description pos;
  auto vm = cli::parse_options("blimits", argc, argv, opts, pos,
                               "Usage: blimits [-c] [-w] [-n limit ...] [-u user] [-q queue] [-m host] [-P project]\n");
  cli::Session session("blimits");
  wire::RequestEnvelope req;
  req.mutable_limits();
  const auto reply = cli::require_ok("blimits", session.call(req)).limits();
  std::set<std::string> names;
  if (vm.count("n"))
    for (const auto& n : vm["n"].as<std::vector<std::string>>()) names.insert(n);
  auto named = [&](const wire::LimitInfo& l) { return names.empty() || names.count(l.name()); };
  if (vm.count("c")) {
    for (const auto& l : reply.limits())
      if (named(l)) cli::print_limit_config(l);
    return 0;
  }
  // Resource columns: MEM TMP SWP always, then every RESOURCE[] name some section limits.
  std::vector<std::string> extra;
  for (const auto& l : reply.limits())
    for (const auto& [name, v] : l.resources())
      if (name != "mem" && name != "swp" && name != "tmp" && std::find(extra.begin(), extra.end(), name) == extra.end())
        extra.push_back(name);
  bool throttles = false;
  for (const auto& l : reply.limits())
    throttles |= l.idle_jobs() >= 0 || l.total_jobs() >= 0 || l.proc_seconds_hard() >= 0;
  const bool wide = vm.count("w") > 0;
  auto arg = [&](const char* o) { return vm.count(o) ? vm[o].as<std::string>() : std::string(); };
  std::vector<std::string> lines;
  for (const auto& u : reply.usage()) {
    const auto& l = reply.limits(u.limit());
    if (!named(l)) continue;
    auto member = [](const std::string& m, const std::string& configured) { return m.empty() ? configured : m; };
    std::string user = member(u.user(), l.users()), queue = member(u.queue(), l.queues()),
                host = member(u.host(), l.hosts()), project = member(u.project(), l.projects());
    if ((!arg("u").empty() && u.user() != arg("u") && l.users().find(arg("u")) == std::string::npos) ||
        (!arg("q").empty() && queue.find(arg("q")) == std::string::npos) ||
        (!arg("m").empty() && host.find(arg("m")) == std::string::npos) ||
        (!arg("P").empty() && project.find(arg("P")) == std::string::npos))
      continue;
    auto used = [&](const std::string& res) {
      auto lim = l.resources().find(res);
      if (lim == l.resources().end()) return std::string("-");
      auto have = u.resources().find(res);
      return cli::limit_amount(have == u.resources().end() ? 0 : have->second) + "/" + cli::limit_amount(lim->second);
    };
    std::string slots = l.slots() >= 0 ? std::to_string(u.slots()) + "/" + std::to_string(l.slots())
                        : l.slots_per_processor() >= 0
                            ? std::to_string(u.slots()) + "/" + cli::limit_amount(l.slots_per_processor()) + "/cpu"
                            : "-";
    std::string line = "    " + cell(l.name(), 18, wide) + cell(user, 15, wide) + cell(queue, 15, wide) +
                       cell(host, 15, wide) + cell(project, 15, wide) + cell(slots, 10, true) +
                       cell(used("mem"), 8, true) + cell(used("tmp"), 8, true) + cell(used("swp"), 8, true) +
                       cell(l.jobs() >= 0 ? std::to_string(u.jobs()) + "/" + std::to_string(l.jobs()) : "-", 8, true);
    for (const auto& r : extra) line += cell(used(r), 10, true);
    if (throttles) {
      auto of = [](std::int64_t have, std::int64_t limit) {
        return limit >= 0 ? std::to_string(have) + "/" + std::to_string(limit) : std::string("-");
      };
      std::string ps = "-";
      if (l.proc_seconds_hard() >= 0)
        ps = std::to_string(u.proc_seconds()) + "/" +
             (l.proc_seconds_soft() >= 0 ? std::to_string(l.proc_seconds_soft()) + "/" : "") +
             std::to_string(l.proc_seconds_hard());
      line += cell(of(u.idle_jobs(), l.idle_jobs()), 10, true) +
              cell(of(u.jobs() + u.idle_jobs(), l.total_jobs()), 10, true) + cell(ps, 22, true);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
  }
  if (lines.empty()) {
    std::cout << "No resource usage found.\n";
    return 0;
  }
  std::string header = "    " + cell("NAME", 18, true) + cell("USERS", 15, true) + cell("QUEUES", 15, true) +
                       cell("HOSTS", 15, true) + cell("PROJECTS", 15, true) + cell("SLOTS", 10, true) +
                       cell("MEM", 8, true) + cell("TMP", 8, true) + cell("SWP", 8, true) + cell("JOBS", 8, true);
  for (const auto& r : extra) header += cell(r, 10, true);
  if (throttles) header += cell("IDLE_JOBS", 10, true) + cell("TOTAL_JOBS", 10, true) + cell("PROC_SECONDS", 22, true);
  while (!header.empty() && header.back() == ' ') header.pop_back();
  std::cout << "\nINTERNAL RESOURCE LIMITS:\n\n" << header << "\n";
  for (const auto& l : lines) std::cout << l << "\n";
  return 0;
}
