// bacct: accounting of finished jobs, from lsb.acct.
//
//   bacct [-l] [-d | -e] [-u user | -u all] [-q queue] [-m host] [-P project]
//         [-C time0,time1] [-D time0,time1] [-S time0,time1] [jobid | "jobid[index_list]" ...]
//
// Default: LSF's summary of the selected jobs; -l: each job, then the summary.
// -C, -D and -S (completed, dispatched, submitted in the interval) are applied here.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/history_text.h"
#include "cli/time_interval.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

std::string fmt(int width, int precision, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%*.*f", width, precision, v);
  return buf;
}

std::string label(const wire::AcctRecord& r) { return cli::job_id_text(r.job_id(), r.index()); }

double wait_of(const wire::AcctRecord& r) {
  return static_cast<double>(
      std::max<std::int64_t>(0, (r.start_time() > 0 ? r.start_time() : r.end_time()) - r.submit_time()));
}
double turnaround_of(const wire::AcctRecord& r) {
  return static_cast<double>(std::max<std::int64_t>(0, r.end_time() - r.submit_time()));
}
double hog_of(const wire::AcctRecord& r) {
  double t = turnaround_of(r);
  return t > 0 ? r.cpu_time() / t : 0.0;
}

void print_job(const wire::AcctRecord& r) {
  std::cout << "\n";
  cli::print_wrapped("Job <" + label(r) + ">, Job Name <" + r.job_name() + ">, User <" + r.user() + ">, Project <" +
                         r.project() + ">, Status <" + (r.done() ? "DONE" : "EXIT") + ">, Queue <" + r.queue() +
                         ">, Command <" + r.command() + ">",
                     21);
  std::string sub =
      cli::long_time(r.submit_time()) + ": Submitted from host <" + r.from_host() + ">, CWD <" + r.cwd() + ">";
  if (!r.out_file().empty()) sub += ", Output File <" + r.out_file() + ">";
  cli::print_wrapped(sub + ";", 21);
  if (r.start_time() > 0) {
    cli::print_wrapped(cli::long_time(r.start_time()) + ": Dispatched " + cli::dispatched_text(r.exec_hosts()) + ";",
                       21);
  }
  // As LSF: `Completed <exit>.`, or with the reason `Completed <exit>; TERM_OWNER: job
  // killed by owner.`; no exit code (scripts read the reason as what follows `; `).
  std::string end = std::string("Completed <") + (r.done() ? "done" : "exit") + ">";
  if (!r.done() && !r.exit_reason().empty()) end += "; " + cli::exit_reason_explained(r.exit_reason());
  cli::print_wrapped(cli::long_time(r.end_time()) + ": " + end + ".", 21);
  std::cout << "\nAccounting information about this job:\n"
            << "     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP\n";
  char line[256];
  // SWAP: swap use is not measured; LSF prints a size there and parsers add MEM and
  // SWAP, so 0M (docs/commands.md says so).
  std::snprintf(line, sizeof line, "%10.2f %8.0f %14.0f %8s %14.4f %6s %7s", r.cpu_time(), wait_of(r), turnaround_of(r),
                r.done() ? "done" : "exit", hog_of(r),
                cli::megabytes(static_cast<double>(r.max_rss_kb()) / 1024).c_str(), "0M");
  std::cout << line << "\n" << std::string(78, '-') << "\n";
}

// LSF's options this bacct does not have: refused by name, never ignored.
[[noreturn]] void refuse(const std::string& option, const std::string& why) {
  std::cerr << "bacct: " << option << ": option not supported" << (why.empty() ? "" : " (" + why + ")") << "\n";
  std::exit(255);
}

std::optional<cli::TimeInterval> interval_of(const po::variables_map& vm, const char* option) {
  if (!vm.count(option)) return std::nullopt;
  return cli::time_interval_option("bacct", option, vm[option].as<std::string>());
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("l", "")("d", "")("e", "")("u", po::value<std::string>(), "")("q", po::value<std::string>(), "")(
      "m", po::value<std::string>(), "")("P", po::value<std::string>(), "")("C", po::value<std::string>(), "")(
      "D", po::value<std::string>(), "")("S", po::value<std::string>(), "")("jobs",
                                                                            po::value<std::vector<std::string>>(), "");
  // Refused (LSF has them; see refuse()).
  opts.add_options()("b", "")("w", "")("x", "")("E", "")("UF", "")("Lp", "")("aff", "")("gpu", "")("rcacct", "")(
      "rcalloc", "")("f", po::value<std::string>(), "")("N", po::value<std::string>(), "")(
      "U", po::value<std::string>(), "")("sla", po::value<std::string>(), "")("app", po::value<std::string>(), "")(
      "M", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  auto vm = cli::parse_options("bacct", argc, argv, opts, pos,
                               "Usage: bacct [-l] [-d | -e] [-u user | -u all] [-q queue] [-m host] [-P project]\n"
                               "             [-C time0,time1] [-D time0,time1] [-S time0,time1]\n"
                               "             [jobid | \"jobid[index_list]\" ...]\n");
  if (vm.count("f")) refuse("-f", "bacct reads lsb.acct through mbatchd, not a local file");
  for (const char* o : {"b", "w", "x", "E", "UF", "Lp", "aff", "gpu", "rcacct", "rcalloc", "N", "U", "sla", "app", "M"})
    if (vm.count(o)) refuse(std::string("-") + o, "");
  const auto completed = interval_of(vm, "C"), dispatched = interval_of(vm, "D"), submitted = interval_of(vm, "S");
  cli::Session session("bacct");
  wire::RequestEnvelope req;
  auto* q = req.mutable_acct();
  if (vm.count("jobs"))
    for (const auto& ref : cli::job_refs(session, "bacct", vm["jobs"].as<std::vector<std::string>>()))
      *q->add_jobs() = ref;
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  if (vm.count("q")) q->set_queue(vm["q"].as<std::string>());
  if (vm.count("m")) q->set_host(vm["m"].as<std::string>());
  if (vm.count("P")) q->set_project(vm["P"].as<std::string>());
  const auto reply = cli::fetch_acct(session, "bacct", req);
  std::vector<wire::AcctRecord> jobs;
  for (const auto& r : reply.records()) {
    if ((vm.count("d") && !r.done()) || (vm.count("e") && r.done())) continue;
    if (completed && !completed->contains(r.end_time())) continue;
    if (dispatched && !(r.start_time() > 0 && dispatched->contains(r.start_time()))) continue;
    if (submitted && !submitted->contains(r.submit_time())) continue;
    jobs.push_back(r);
  }

  std::string users = vm.count("u") ? vm["u"].as<std::string>() : session.identity().user_name();
  std::cout << "Accounting information about jobs that are: \n"
            << "  - submitted by " << (users == "all" ? std::string("all users") : "users " + users) << ".\n"
            << "  - accounted on " << (vm.count("P") ? "projects " + vm["P"].as<std::string>() : "all projects")
            << ".\n"
            << "  - "
            << (vm.count("d")   ? "completed normally"
                : vm.count("e") ? "exited"
                                : "completed normally or exited")
            << "\n"
            << "  - executed on " << (vm.count("m") ? "hosts " + vm["m"].as<std::string>() : "all hosts") << ".\n"
            << "  - submitted to " << (vm.count("q") ? "queues " + vm["q"].as<std::string>() : "all queues") << ".\n"
            << "  - accounted on all service classes.\n"
            << std::string(78, '-') << "\n";
  if (vm.count("l"))
    for (const auto& r : jobs) print_job(r);
  if (jobs.empty()) {
    std::cout << "\nNo matching job found\n";
    return 0;
  }
  int done = 0, exited = 0;
  double cpu = 0, cpu_max = 0, cpu_min = 1e300, wait = 0, wait_max = 0, wait_min = 1e300, turn = 0, turn_max = 0,
         turn_min = 1e300, hog = 0, hog_max = 0, hog_min = 1e300;
  for (const auto& r : jobs) {
    (r.done() ? done : exited)++;
    cpu += r.cpu_time();
    cpu_max = std::max(cpu_max, r.cpu_time());
    cpu_min = std::min(cpu_min, r.cpu_time());
    wait += wait_of(r);
    wait_max = std::max(wait_max, wait_of(r));
    wait_min = std::min(wait_min, wait_of(r));
    turn += turnaround_of(r);
    turn_max = std::max(turn_max, turnaround_of(r));
    turn_min = std::min(turn_min, turnaround_of(r));
    hog += hog_of(r);
    hog_max = std::max(hog_max, hog_of(r));
    hog_min = std::min(hog_min, hog_of(r));
  }
  const double n = static_cast<double>(jobs.size());
  char line[256];
  std::cout << "\nSUMMARY:      ( time unit: second ) \n";
  std::snprintf(line, sizeof line, " Total number of done jobs: %7d      Total number of exited jobs: %5d\n", done,
                exited);
  std::cout << line;
  std::cout << " Total CPU time consumed: " << fmt(9, 1, cpu)
            << "      Average CPU time consumed: " << fmt(7, 1, cpu / n) << "\n"
            << " Maximum CPU time of a job: " << fmt(7, 1, cpu_max)
            << "      Minimum CPU time of a job: " << fmt(7, 1, cpu_min) << "\n"
            << " Total wait time in queues: " << fmt(7, 1, wait) << "\n"
            << " Average wait time in queue: " << fmt(6, 1, wait / n) << "\n"
            << " Maximum wait time in queue: " << fmt(6, 1, wait_max)
            << "      Minimum wait time in queue: " << fmt(6, 1, wait_min) << "\n"
            << " Average turnaround time: " << fmt(9, 0, turn / n) << " (seconds/job)\n"
            << " Maximum turnaround time: " << fmt(9, 0, turn_max)
            << "      Minimum turnaround time: " << fmt(9, 0, turn_min) << "\n"
            << " Average hog factor of a job: " << fmt(5, 2, hog / n) << " ( cpu time / turnaround time )\n"
            << " Maximum hog factor of a job: " << fmt(5, 2, hog_max)
            << "      Minimum hog factor of a job: " << fmt(5, 2, hog_min) << "\n";
  return 0;
}
