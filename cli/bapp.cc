// bapp: application profiles (lsb.applications), their jobs and parameters.
//
//   bapp [-l | -w] [-json] [application_profile ...]
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

// The default layout's name column; longer names keep their tail behind a `*`, as
// LSF truncates names, unless -w.
std::string name_cell(const std::string& name, bool wide) {
  constexpr size_t kWidth = 16;
  if (wide || name.size() <= kWidth) return name;
  return "*" + name.substr(name.size() - (kWidth - 1));
}

void print_table(const wire::ApplicationsReply& reply, bool wide) {
  std::printf("%-16s %8s %8s %8s %8s\n", "APPLICATION_NAME", "NJOBS", "PEND", "RUN", "SUSP");
  for (const auto& a : reply.applications())
    std::printf("%-16s %8d %8d %8d %8d\n", name_cell(a.name(), wide).c_str(), a.pending() + a.running() + a.suspended(),
                a.pending(), a.running(), a.suspended());
}

void print_long(const wire::ApplicationsReply& reply) {
  bool first = true;
  for (const auto& a : reply.applications()) {
    if (!first) std::printf("%s\n", std::string(78, '-').c_str());
    first = false;
    std::printf("\nAPPLICATION NAME: %s%s\n", a.name().c_str(), a.is_default() ? " (DEFAULT_APPLICATION)" : "");
    if (!a.description().empty()) std::printf(" -- %s\n", a.description().c_str());
    std::printf("\nSTATISTICS:\n   NJOBS     PEND      RUN     SUSP\n%8d %8d %8d %8d\n",
                a.pending() + a.running() + a.suspended(), a.pending(), a.running(), a.suspended());
    std::printf("\nPARAMETERS:\n");
    if (a.run_limit_s() > 0) std::printf("\n RUNLIMIT\n %.1f min\n", static_cast<double>(a.run_limit_s()) / 60.0);
    if (a.cpu_limit_s() > 0) std::printf("\n CPULIMIT\n %.1f min\n", static_cast<double>(a.cpu_limit_s()) / 60.0);
    if (a.mem_limit_kb() > 0) std::printf("\n MEMLIMIT\n %lld K\n", static_cast<long long>(a.mem_limit_kb()));
    if (!a.proc_limit().empty()) std::printf("\n PROCLIMIT\n %s\n", a.proc_limit().c_str());
    auto line = [](const char* key, const std::string& value) {
      if (!value.empty()) std::printf("\n%s: %s\n", key, value.c_str());
    };
    line("RES_REQ", a.res_req());
    line("GPU_REQ", a.gpu_req());
    line("PRE_EXEC", a.pre_exec());
    line("POST_EXEC", a.post_exec());
    line("JOB_STARTER", a.job_starter());
    line("REQUEUE_EXIT_VALUES", a.requeue_exit_values());
    line("RERUNNABLE", a.rerunnable());
  }
}

void print_json(const wire::ApplicationsReply& reply) {
  static constexpr cli::FieldDef kFields[] = {
      {"application_name", "", 0},
      {"description", "", 0},
      {"default", "", 0},
      {"njobs", "", 0},
      {"pend", "", 0},
      {"run", "", 0},
      {"susp", "", 0},
      {"runlimit", "", 0},
      {"cpulimit", "", 0},
      {"memlimit", "", 0},
      {"proclimit", "", 0},
      {"res_req", "", 0},
      {"pre_exec", "", 0},
      {"post_exec", "", 0},
      {"job_starter", "", 0},
      {"requeue_exit_values", "", 0},
      {"rerunnable", "", 0},
  };
  cli::OutputFormat format;
  for (size_t i = 0; i < std::size(kFields); ++i) format.columns.push_back({i});
  std::vector<cli::Row> rows;
  auto number = [](std::int64_t v) { return v > 0 ? std::to_string(v) : std::string(); };
  for (const auto& a : reply.applications())
    rows.push_back({a.name(), a.description(), a.is_default() ? "Y" : "N",
                    std::to_string(a.pending() + a.running() + a.suspended()), std::to_string(a.pending()),
                    std::to_string(a.running()), std::to_string(a.suspended()), number(a.run_limit_s()),
                    number(a.cpu_limit_s()), number(a.mem_limit_kb()), a.proc_limit(), a.res_req(), a.pre_exec(),
                    a.post_exec(), a.job_starter(), a.requeue_exit_values(), a.rerunnable()});
  cli::print_json(std::cout, format, kFields, rows, "bapp", "APPLICATIONS");
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("l", "")("w", "")("json", "")("names", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("names", -1);
  const char* usage = "Usage: bapp [-l | -w] [-json] [application_profile ...]\n";
  auto vm = cli::parse_options("bapp", argc, argv, opts, pos, usage);
  if (vm.count("l") && vm.count("w")) {
    std::cerr << "bapp: -l and -w cannot be used together\n" << usage;
    return 255;
  }
  cli::Session session("bapp");
  wire::RequestEnvelope req;
  if (vm.count("names"))
    for (const auto& n : vm["names"].as<std::vector<std::string>>()) req.mutable_applications()->add_names(n);
  else
    req.mutable_applications();
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    return 255;
  }
  const auto reply = cli::require_ok("bapp", result).applications();
  if (vm.count("json")) {
    print_json(reply);
    return 0;
  }
  if (reply.applications().empty()) {
    std::cerr << "No application profiles found\n";
    return 255;
  }
  if (vm.count("l"))
    print_long(reply);
  else
    print_table(reply, vm.count("w") > 0);
  return 0;
}
