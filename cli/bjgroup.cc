// bjgroup: job groups with their jobs (subgroups included), limits and owners.
//
//   bjgroup [-N] [-s [job_group]] [-json]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/output_format.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

int depth(const std::string& path) { return static_cast<int>(std::count(path.begin(), path.end(), '/')); }

std::string jlimit(const wire::JobGroupInfo& g) {
  return std::to_string(g.started_jobs()) + "/" + (g.limit() < 0 ? "-" : std::to_string(g.limit()));
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("N", "")("json", "")("s", po::value<std::string>()->implicit_value(""), "")(
      "group", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("group", -1);
  const char* usage = "Usage: bjgroup [-N] [-s [job_group]] [-json]\n";
  auto vm = cli::parse_options("bjgroup", argc, argv, opts, pos, usage);
  std::string named = vm.count("s") ? vm["s"].as<std::string>() : "";
  if (vm.count("group")) {
    const auto& g = vm["group"].as<std::vector<std::string>>();
    if (g.size() != 1 || !named.empty()) {
      std::cerr << usage;
      return 255;
    }
    named = g.front();
  }
  // "/X/" (a trailing slash): that group alone, not its subgroups, as LSF's -s.
  bool alone = named.size() > 1 && named.back() == '/';
  if (alone) named.pop_back();
  cli::Session session("bjgroup");
  wire::RequestEnvelope req;
  auto* q = req.mutable_job_groups();
  q->set_slots(vm.count("N") > 0);
  if (!named.empty()) q->add_paths(named);
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    return 255;
  }
  auto groups = cli::require_ok("bjgroup", result).job_groups().groups();
  std::vector<wire::JobGroupInfo> rows(groups.begin(), groups.end());
  if (alone) std::erase_if(rows, [&](const auto& g) { return g.path() != named; });
  // Without -s, LSF lists groups a level at a time; -s lists each below its parent.
  if (vm.count("s"))
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      // Compare component-wise so a child follows its parent, not a sibling named alike.
      std::string x = a.path(), y = b.path();
      std::replace(x.begin(), x.end(), '/', '\1');
      std::replace(y.begin(), y.end(), '/', '\1');
      return x < y;
    });
  else
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return depth(a.path()) != depth(b.path()) ? depth(a.path()) < depth(b.path()) : a.path() < b.path();
    });
  const char* count = vm.count("N") ? "NSLOTS" : "NJOBS";
  if (vm.count("json")) {
    static constexpr cli::FieldDef kFields[] = {
        {"group_name", "", 0}, {"njobs", "", 0},  {"pend", "", 0}, {"run", "", 0},    {"ssusp", "", 0},
        {"ususp", "", 0},      {"finish", "", 0}, {"sla", "", 0},  {"jlimit", "", 0}, {"owner", "", 0},
    };
    cli::OutputFormat format;
    for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
    std::vector<cli::Row> out;
    for (const auto& g : rows)
      out.push_back({g.path(), std::to_string(g.njobs()), std::to_string(g.pend()), std::to_string(g.run()),
                     std::to_string(g.ssusp()), std::to_string(g.ususp()), std::to_string(g.finish()), "", jlimit(g),
                     g.owner()});
    cli::print_json(std::cout, format, kFields, out, "bjgroup", "GROUPS");
    return 0;
  }
  if (rows.empty()) {
    std::cerr << "No job group found\n";
    return 255;
  }
  std::printf("%-18s %6s %6s %6s %6s %6s %6s %-8s %-8s %s\n", "GROUP_NAME", count, "PEND", "RUN", "SSUSP", "USUSP",
              "FINISH", "SLA", "JLIMIT", "OWNER");
  for (const auto& g : rows)
    std::printf("%-18s %6d %6d %6d %6d %6d %6d %-8s %-8s %s\n", g.path().c_str(), g.njobs(), g.pend(), g.run(),
                g.ssusp(), g.ususp(), g.finish(), "()", jlimit(g).c_str(), g.owner().c_str());
  return 0;
}
