// bkill, bstop and bresume: one source, built three times with JOB_ACTION set.
//
//   bkill [-r | -s signal] [-stat run|pend|susp] [-app profile] [-g job_group] [-sla class] [-J name]
//         [-m host] [-q queue] [-u user|all] [0] [jobid | "jobid[index_list]" ...]
//   bstop / bresume [-app profile] [-g job_group] [-sla class] [-J name] [-m host] [-q queue]
//         [-u user|all] [0] [jobid | "jobid[index_list]" ...]
//
// As LSF's: a job ID or one of -app, -g, -J, -m, -q, -u must be given; without a job ID
// the last job submitted that satisfies them is acted on, with job ID 0 every one.
#include <algorithm>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/job_selection.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string usage_text(const std::string& command) {
  const bool kill = command == "bkill";
  return "Usage: " + command + (kill ? " [-r | -s signal] [-stat run|pend|susp]" : "") +
         " [-app application_profile] [-g job_group] [-sla service_class]\n" + std::string(command.size() + 7, ' ') +
         "[-J job_name] [-m host] [-q queue] [-u user|all] [0] [jobid | \"jobid[index_list]\" ...]\n";
}

std::optional<wire::JobState> stat_filter(const std::string& word) {
  if (word == "run") return wire::JOB_RUN;
  if (word == "pend") return wire::JOB_PEND;
  if (word == "susp") return wire::JOB_USUSP;  // any suspended state; see JobFilters
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = JOB_ACTION_COMMAND;
  const std::string usage = usage_text(command);
  po::options_description opts;
  opts.add_options()("s", po::value<std::string>(), "")("u", po::value<std::string>(), "")(
      "g", po::value<std::string>(), "")("r", "")("J", po::value<std::string>(), "")("q", po::value<std::string>(), "")(
      "m", po::value<std::string>(), "")("app", po::value<std::string>(), "")("sla", po::value<std::string>(), "")(
      "stat", po::value<std::string>(), "")("jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  auto vm = cli::parse_options(command, argc, argv, opts, pos, usage);
  const bool filtered =
      vm.count("J") || vm.count("q") || vm.count("m") || vm.count("app") || vm.count("sla") || vm.count("stat");
  if (!vm.count("jobs") && !vm.count("u") && !vm.count("g") && !filtered) {
    std::cerr << usage;
    return 255;
  }
  cli::JobFilters filters;
  if (vm.count("stat")) {
    if (command != "bkill") {
      std::cerr << command << ": -stat is only for bkill\n" << usage;
      return 255;
    }
    filters.stat = stat_filter(vm["stat"].as<std::string>());
    if (!filters.stat) {
      std::cerr << command << ": -stat takes run, pend or susp\n" << usage;
      return 255;
    }
  }
  cli::Session session(command);
  wire::RequestEnvelope req;
  auto* q = req.mutable_signal_jobs();
  q->set_action(static_cast<wire::JobAction>(JOB_ACTION));
  if (vm.count("s")) {
    if (command != "bkill") {
      std::cerr << command << ": -s is only for bkill\n";
      return 255;
    }
    q->set_action(wire::JOB_ACTION_SIGNAL);
    q->set_signal_name(vm["s"].as<std::string>());
  }
  if (vm.count("r")) {
    if (command != "bkill" || vm.count("s")) {
      std::cerr << command << ": -r is only for bkill, without -s\n";
      return 255;
    }
    q->set_remove(true);
  }
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  if (vm.count("g")) q->set_job_group(vm["g"].as<std::string>());
  std::vector<std::string> ids;
  if (vm.count("jobs")) ids = vm["jobs"].as<std::vector<std::string>>();
  const auto refs = cli::job_refs(session, command, ids);
  const bool zero = std::any_of(refs.begin(), refs.end(), [](const wire::JobRef& r) { return r.job_id() == 0; });
  std::vector<std::string> errors;
  if (!filtered && !ids.empty()) {
    // Job ids (or 0 with -u / -g): mbatchd chooses, in the same request that acts.
    for (const auto& ref : refs) *q->add_jobs() = ref;
  } else {
    filters.user = q->user();
    filters.job_group = q->job_group();
    if (vm.count("J")) filters.job_name = vm["J"].as<std::string>();
    if (vm.count("q")) filters.queue = vm["q"].as<std::string>();
    if (vm.count("m")) filters.host = vm["m"].as<std::string>();
    if (vm.count("app")) filters.app = vm["app"].as<std::string>();
    if (vm.count("sla")) filters.sla = vm["sla"].as<std::string>();
    // -stat acts on every job in that state, as job ID 0 does: LSF's bkill -stat needs
    // no job ID.
    const auto scope = zero                       ? cli::JobScope::kAll
                       : !refs.empty()            ? cli::JobScope::kNamed
                       : filters.stat.has_value() ? cli::JobScope::kAll
                                                  : cli::JobScope::kLast;
    auto chosen = cli::select_jobs(session, command, filters, scope, refs);
    if (!chosen.none.empty()) {
      std::cerr << chosen.none << "\n";
      return 255;
    }
    errors = std::move(chosen.errors);
    for (auto& ref : chosen.jobs) *q->add_jobs() = std::move(ref);
  }
  for (const auto& e : errors) std::cerr << e << "\n";
  if (q->jobs_size() == 0) return 255;  // every named job was refused above
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    return 255;
  }
  auto reply = cli::require_ok(command, result).signal_jobs();
  // bkill -stat skips, silently, the jobs it cannot kill (as LSF's).
  if (filters.stat) {
    google::protobuf::RepeatedPtrField<wire::JobActionResult> kept;
    for (auto& r : *reply.mutable_results())
      if (r.ok()) *kept.Add() = std::move(r);
    reply.mutable_results()->Swap(&kept);
  }
  const int rc = cli::print_results(reply);
  return errors.empty() ? rc : 255;
}
