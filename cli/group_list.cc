// bmgroup (host groups) and bugroup (user groups): one source, built twice with
// HOST_GROUPS set to 1 or 0.
//
//   bmgroup [-w] [-r] [group ...]        bugroup [-w] [-r] [-l] [group ...]
//
// Members are listed as configured, subgroups with a trailing '/'; -r expands
// subgroups into their members.
#include <iostream>
#include <map>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

void expand(const std::string& group, const std::map<std::string, const wire::GroupInfo*>& groups,
            std::vector<std::string>& out, std::set<std::string>& seen) {
  if (!seen.insert(group).second) return;
  for (const auto& m : groups.at(group)->members()) {
    if (!m.empty() && m.back() == '/' && groups.count(m.substr(0, m.size() - 1)))
      expand(m.substr(0, m.size() - 1), groups, out, seen);
    else
      out.push_back(m);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = HOST_GROUPS ? "bmgroup" : "bugroup";
  po::options_description opts;
  opts.add_options()("w", "")("r", "")("l", "")("groups", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("groups", -1);
  auto vm = cli::parse_options(command, argc, argv, opts, pos,
                               "Usage: " + command + " [-w] [-r]" + (HOST_GROUPS ? "" : " [-l]") + " [group ...]\n");
  cli::Session session(command);
  wire::RequestEnvelope req;
  req.mutable_config_info();
  const auto reply = cli::require_ok(command, session.call(req)).config_info();
  const auto& list = HOST_GROUPS ? reply.host_groups() : reply.user_groups();
  std::map<std::string, const wire::GroupInfo*> groups;
  for (const auto& g : list) groups[g.name()] = &g;
  std::vector<std::string> wanted;
  if (vm.count("groups")) wanted = vm["groups"].as<std::vector<std::string>>();
  int rc = 0;
  for (const auto& w : wanted) {
    if (!groups.count(w)) {
      std::cerr << w << ": No such " << (HOST_GROUPS ? "host" : "user") << " group\n";
      rc = 255;
    }
  }
  std::cout << "GROUP_NAME    " << (HOST_GROUPS ? "HOSTS" : "USERS")
            << (vm.count("l") ? "                  GROUP_ADMIN" : "") << "\n";
  for (const auto& g : list) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), g.name()) == wanted.end()) continue;
    std::vector<std::string> members;
    if (vm.count("r")) {
      std::set<std::string> seen;
      expand(g.name(), groups, members, seen);
    } else {
      members.assign(g.members().begin(), g.members().end());
    }
    std::string name = g.name();
    if (!vm.count("w") && name.size() > 13) name = name.substr(0, 12) + "*";
    std::string line = name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ');
    for (const auto& m : members) line += m + " ";
    if (vm.count("l")) {
      std::string admins;
      for (const auto& a : g.admins()) admins += (admins.empty() ? "" : " ") + a;
      line += " " + (admins.empty() ? std::string("-") : admins);
    }
    std::cout << line << "\n";
    if (vm.count("l") && !g.shares().empty()) std::cout << "  SHARES: " << g.shares() << "\n";
  }
  return rc;
}
