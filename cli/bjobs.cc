// bjobs: list jobs, in LSF's formats.
//
//   bjobs [-a | -d | -p | -pe | -pi | -ps | -r | -s] [-l | -w | -W | -o "fmt" [-json] | -A | -sum | -aps | -prio]
//         [-X] [-noheader] [-u user|all] [-q queue] [-m host] [-J name] [-P project]
//         [jobid | "jobid[index_list]"] ...
#include <ctime>
#include <iostream>
#include <map>
#include <set>

#include <boost/program_options.hpp>

#include "cli/aps_views.h"
#include "cli/bjobs_views.h"
#include "cli/cli_support.h"
#include "cli/job_fields.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

const char* kUsage =
    "Usage: bjobs [-a | -d | -p | -pe | -pi | -ps | -r | -s] [-l | -w | -W | -o \"format\" [-json] | -A | -sum | -aps "
    "| "
    "-prio]\n"
    "             [-X] [-noheader] [-gpu (with -l)]\n"
    "             [-u user | -u all] [-q queue] [-m host] [-J name] [-P project] [-G user_group] [-sla service_class]\n"
    "             [-app application_profile] [-g job_group] [jobid | \"jobid[index_list]\" ...]\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "bjobs: " << what << "\n" << kUsage;
  std::exit(255);
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("a", "")("d", "")("p", "")("ps", "")("pe", "")("pi", "")("r", "")("s", "")("l", "")("w", "")(
      "W", "")("X", "")("A", "")("sum", "")("aps", "")("prio", "")("json", "")("noheader", "")("gpu", "")(
      "o", po::value<std::string>(), "")("u", po::value<std::string>(), "")("q", po::value<std::string>(), "")(
      "m", po::value<std::string>(), "")("J", po::value<std::string>(), "")("P", po::value<std::string>(), "")(
      "g", po::value<std::string>(), "")("G", po::value<std::string>(), "")("sla", po::value<std::string>(), "")(
      "app", po::value<std::string>(), "")("jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  auto vm = cli::parse_options("bjobs", argc, argv, opts, pos, kUsage);
  int layouts = static_cast<int>(vm.count("l") + vm.count("o") + vm.count("A") + vm.count("sum") + vm.count("aps") +
                                 vm.count("prio"));
  if (layouts > 1) usage_error("-l, -o, -A, -sum, -aps and -prio cannot be used together");
  if (vm.count("json") && vm.count("noheader")) usage_error("-json and -noheader cannot be used together");
  if (vm.count("gpu") && !vm.count("l")) {
    std::cerr << "bjobs: -gpu: use it with -l\n";
    return 255;
  }
  // LSF's filters for what this scheduler does not have yet: refused, not ignored, so a
  // script never reads an unfiltered list as a filtered one.

  cli::Session session("bjobs");
  std::optional<cli::OutputFormat> format;
  bool fixed_layout = vm.count("l") || vm.count("w") || vm.count("W") || vm.count("A") || vm.count("sum") ||
                      vm.count("aps") || vm.count("prio");
  if (auto spec = cli::custom_format(vm, "LSB_BJOBS_FORMAT", session.lsf_conf());
      spec && (vm.count("o") || !fixed_layout)) {
    std::string error;
    format = cli::parse_output_format(*spec, cli::job_fields(), &error);
    if (!format) usage_error(error);
  }
  // -aps -json: the -aps columns as -o would name them.
  if (vm.count("aps") && vm.count("json")) {
    std::string error;
    format = cli::parse_output_format("jobid user stat queue from_host exec_host job_name submit_time aps",
                                      cli::job_fields(), &error);
  }
  if (vm.count("json") && !format && !vm.count("prio"))
    usage_error("-json must be used with -o, -aps, -prio or LSB_BJOBS_FORMAT");

  wire::RequestEnvelope req;
  auto* q = req.mutable_jobs();
  if (vm.count("jobs"))
    for (const auto& ref : cli::job_refs(session, "bjobs", vm["jobs"].as<std::vector<std::string>>()))
      *q->add_jobs() = ref;
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  q->set_include_finished(vm.count("a") > 0);
  q->set_only_finished(vm.count("d") > 0);
  // -pe / -pi: pending jobs eligible for scheduling or not (held, deferred, or blocked by
  // a policy such as a throttle), shown as -p shows them.
  const bool eligible_only = vm.count("pe") > 0, ineligible_only = vm.count("pi") > 0;
  if (eligible_only && ineligible_only) usage_error("-pe and -pi cannot be used together");
  // -prio shows pending jobs only, as LSF's.
  const bool pending_view = vm.count("p") || eligible_only || ineligible_only || vm.count("prio");
  q->set_only_pending(pending_view);
  q->set_only_running(vm.count("r") > 0);
  q->set_only_suspended(vm.count("s") > 0);
  if (vm.count("q")) q->set_queue(vm["q"].as<std::string>());
  if (vm.count("m")) q->set_host(vm["m"].as<std::string>());
  if (vm.count("J")) q->set_job_name(vm["J"].as<std::string>());
  if (vm.count("P")) q->set_project(vm["P"].as<std::string>());
  q->set_details(vm.count("l") > 0);
  const auto reply = cli::fetch_jobs(session, "bjobs", req);
  // As LSF: a named job that is not there makes the exit status non-zero, even when
  // others are shown. With -json the error is a record of its own.
  const bool json = format && vm.count("json");
  if (!json)
    for (const auto& e : reply.errors()) std::cerr << e << "\n";
  std::vector<wire::JobInfo> jobs(reply.jobs().begin(), reply.jobs().end());
  if (vm.count("A")) {
    std::erase_if(jobs, [](const wire::JobInfo& j) { return j.index() <= 0; });
  }
  // -ps: pending and suspended jobs, each with its reasons.
  if (vm.count("ps")) {
    std::erase_if(jobs, [](const wire::JobInfo& j) {
      return j.state() != wire::JOB_PEND && j.state() != wire::JOB_PSUSP && j.state() != wire::JOB_USUSP &&
             j.state() != wire::JOB_SSUSP;
    });
  }
  if (eligible_only || ineligible_only) {
    std::erase_if(
        jobs, [&](const wire::JobInfo& j) { return (j.pending_class() == wire::PENDING_ELIGIBLE) != eligible_only; });
  }
  if (vm.count("G")) {
    const auto group = vm["G"].as<std::string>();
    std::erase_if(jobs, [&](const wire::JobInfo& j) { return j.spec().user_group() != group; });
  }
  if (vm.count("g")) {
    // The group and every group below it; the group must exist.
    const auto group = vm["g"].as<std::string>();
    wire::RequestEnvelope known;
    known.mutable_job_groups()->add_paths(group);
    if (auto r = session.call(known); r.reply && r.reply->status() != wire::STATUS_OK) {
      std::cerr << r.reply->message() << "\n";
      return 255;
    }
    std::erase_if(jobs, [&](const wire::JobInfo& j) {
      const auto& g = j.spec().job_group();
      return !(g == group || (g.size() > group.size() && g.starts_with(group) && g[group.size()] == '/'));
    });
  }
  if (vm.count("app")) {
    // As LSF: the profile must exist.
    const auto app = vm["app"].as<std::string>();
    wire::RequestEnvelope known;
    known.mutable_applications()->add_names(app);
    if (auto r = session.call(known); r.reply && r.reply->status() != wire::STATUS_OK) {
      std::cerr << r.reply->message() << "\n";
      return 255;
    }
    std::erase_if(jobs, [&](const wire::JobInfo& j) { return j.spec().app() != app; });
  }
  if (vm.count("sla")) {
    const auto sla = vm["sla"].as<std::string>();
    std::erase_if(jobs, [&](const wire::JobInfo& j) { return j.spec().service_class() != sla; });
  }

  if (vm.count("aps") || vm.count("prio")) cli::sort_by_aps(jobs);
  if (vm.count("prio") && vm.count("json")) {
    cli::print_prio_json(jobs);
    return reply.errors_size() > 0 && jobs.empty() ? 255 : 0;
  }

  auto rows = [&] {
    std::vector<cli::Row> out;
    auto now = static_cast<std::int64_t>(std::time(nullptr));
    for (const auto& j : jobs) {
      cli::Row row;
      for (const auto& c : format->columns) row.push_back(cli::job_field_value(j, c, now));
      out.push_back(std::move(row));
    }
    return out;
  };
  if (json) {
    std::vector<cli::ErrorRecord> errors;
    for (const auto& e : reply.errors()) {
      // "Job <123[4]> is not found": the record names the job as LSF's does.
      auto open = e.find('<'), close = e.find('>');
      std::string id = open != std::string::npos && close > open ? e.substr(open + 1, close - open - 1) : "";
      errors.push_back({"JOBID", id, e});
    }
    cli::print_json(std::cout, *format, cli::job_fields(), rows(), "bjobs", "JOBS", errors);
    return reply.errors_size() > 0 ? 255 : 0;
  }
  if (jobs.empty()) {
    if (reply.errors_size() > 0) return 255;
    // -J names jobs: LSF says which name matched nothing, and fails.
    if (vm.count("J") && !vm.count("jobs")) {
      std::cerr << "Job <" << vm["J"].as<std::string>() << "> is not found\n";
      return 255;
    }
    const char* what = vm.count("A")                    ? "No job array found"
                       : pending_view                   ? "No pending job found"
                       : vm.count("r")                  ? "No running job found"
                       : vm.count("ps")                 ? "No pending job found"  // LSF's words for -ps too
                       : vm.count("s")                  ? "No suspended job found"
                       : vm.count("a") || vm.count("d") ? "No job found"
                                                        : "No unfinished job found";
    std::cerr << what << "\n";
    return 0;
  }
  cli::TableOptions table;
  table.header = !vm.count("noheader");
  table.wide = vm.count("w") > 0;
  table.times = vm.count("W") > 0;
  table.uncondensed = vm.count("X") > 0;
  table.suspend_reasons = vm.count("s") > 0 || vm.count("ps") > 0;
  table.pending_reasons = vm.count("ps") > 0;
  const char* short_list = std::getenv("LSB_SHORT_HOSTLIST");
  auto conf_short = session.lsf_conf().get("LSB_SHORT_HOSTLIST");
  table.short_hosts = short_list ? std::string(short_list) == "1" : conf_short && *conf_short == "1";
  if (vm.count("aps")) {
    cli::print_aps(jobs, table);
  } else if (vm.count("prio")) {
    cli::print_prio(jobs, table);
  } else if (vm.count("l")) {
    std::set<std::string> names;
    for (const auto& j : jobs) names.insert(j.queue());
    wire::RequestEnvelope asked;
    for (const auto& n : names) asked.mutable_queues()->add_names(n);
    std::map<std::string, wire::QueueInfo> queues;
    if (auto r = session.call(asked); r.reply && r.reply->status() == wire::STATUS_OK)
      for (const auto& qi : r.reply->queues().queues()) queues[qi.name()] = qi;
    wire::HostsReply gpu_hosts;
    if (vm.count("gpu")) {
      wire::RequestEnvelope h;
      h.mutable_hosts();
      if (auto r = session.call(h); r.reply && r.reply->status() == wire::STATUS_OK) gpu_hosts = r.reply->hosts();
    }
    cli::print_long(jobs, queues, vm.count("gpu") ? &gpu_hosts : nullptr);
  } else if (vm.count("A")) {
    cli::print_arrays(jobs, table.header);
  } else if (vm.count("sum")) {
    cli::print_summary(jobs);
  } else if (format) {
    cli::print_text(std::cout, *format, cli::job_fields(), rows(), table.header);
  } else if (pending_view) {
    cli::print_pending(jobs, table);
  } else {
    cli::print_default(jobs, table);
  }
  return reply.errors_size() > 0 ? 255 : 0;
}
