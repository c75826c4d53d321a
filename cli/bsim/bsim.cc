// bsim: runs a workload trace through the real scheduling pass on a virtual clock, under
// an LSF configuration, and says what schedule came out.
//
//   bsim --trace FILE.swf[.gz] [-c LSF_ENVDIR] [--jobs N] [--queue Q] [--hosts N] [--slots M]
//        [--estimate user|exact|K] [--csv FILE] [--swf FILE] [--by-user] [--by-queue] [-q]
//
// Each trace job is submitted at its submit time to --queue (default: DEFAULT_QUEUE) with -n its
// processors and -W what --estimate says (the user's request, its real runtime, or K
// times that), runs for its real runtime unless -W kills it first. Hosts: --hosts N of
// --slots M each; by default MaxProcs (or MaxNodes) hosts of one slot from the trace
// header; --hosts 0
// takes the configuration's hosts.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/bsim/swf_trace.h"
#include "libconfig/config_loader.h"
#include "libsched/sim/cluster_model.h"
#include "libsched/sim/simulator.h"
#include "libsched/sim/summary.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

struct Estimate {
  enum Kind { kUser, kExact, kFactor } kind = kUser;
  double factor = 1;
};

std::optional<Estimate> parse_estimate(const std::string& text) {
  Estimate e;
  if (text == "user") return e;
  if (text == "exact") {
    e.kind = Estimate::kExact;
    return e;
  }
  char* end = nullptr;
  double k = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end || !(k > 0)) return std::nullopt;
  e.kind = Estimate::kFactor;
  e.factor = k;
  return e;
}

int default_queue(const config::ClusterConfig& config, const sched::SchedPolicy& policy) {
  for (const auto& name : config.params.default_queues)
    if (int q = policy.queue_index(name); q >= 0) return q;
  return policy.queues.empty() ? -1 : 0;
}

void print_figures(const char* label, const sched::sim::Figures& f) {
  std::printf("%-22s %8lld %6lld %6lld %10.3f %10.0f %8.0f %10.0f %10.0f %9.2f\n", label,
              static_cast<long long>(f.jobs), static_cast<long long>(f.never), static_cast<long long>(f.killed),
              f.utilization, f.avg_wait, f.median_wait, f.p95_wait, f.max_wait, f.avg_bounded_slowdown);
}

void print_header() {
  std::printf("%-22s %8s %6s %6s %10s %10s %8s %10s %10s %9s\n", "", "JOBS", "NEVER", "KILLED", "UTIL", "AVG_WAIT",
              "MED_WAIT", "P95_WAIT", "MAX_WAIT", "AVG_BSLD");
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("bsim options");
  std::string trace_path, envdir, estimate_text = "user", csv_path, swf_path, queue_name;
  std::size_t limit = 0;
  int hosts = -1, slots = 1;
  opts.add_options()("help,h", "this help")("trace", po::value(&trace_path), "SWF trace (.swf or .swf.gz)")(
      "conf,c", po::value(&envdir), "directory of lsf.conf (default: $LSF_ENVDIR)")("jobs", po::value(&limit),
                                                                                    "simulate the first N jobs only")(
      "queue", po::value(&queue_name), "the queue every job goes to (default: DEFAULT_QUEUE)")(
      "hosts", po::value(&hosts), "N identical hosts (0: the configuration's hosts)")("slots", po::value(&slots),
                                                                                      "slots per host (default 1)")(
      "estimate", po::value(&estimate_text), "run limit the scheduler sees: user, exact or a factor K")(
      "csv", po::value(&csv_path), "write the schedule, one job per line")(
      "swf", po::value(&swf_path), "write the schedule as an SWF trace")("by-user", "a row per user")(
      "by-queue", "a row per queue")("quiet,q", "no progress");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "bsim: %s\n", e.what());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (trace_path.empty()) {
    std::fprintf(stderr, "bsim: --trace FILE is required\n");
    return 2;
  }
  auto estimate = parse_estimate(estimate_text);
  if (!estimate) {
    std::fprintf(stderr, "bsim: --estimate %s: user, exact or a positive factor\n", estimate_text.c_str());
    return 2;
  }
  if (slots < 1) {
    std::fprintf(stderr, "bsim: --slots must be at least 1\n");
    return 2;
  }
  if (envdir.empty())
    if (const char* e = std::getenv("LSF_ENVDIR")) envdir = e;
  if (envdir.empty()) {
    std::fprintf(stderr, "bsim: no configuration: give -c DIR or set LSF_ENVDIR\n");
    return 2;
  }
  config::LoadOptions load;
  load.envdir = envdir;
  load.now = config::local_week_instant();
  auto loaded = config::load_cluster_config(load);
  for (const auto& d : loaded.diagnostics.items())
    if (d.severity == config::Severity::kError) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  if (!loaded.usable()) {
    std::fprintf(stderr, "bsim: the configuration in %s has errors\n", envdir.c_str());
    return 1;
  }

  bsim::SwfTrace trace;
  try {
    trace = bsim::read_swf(trace_path, limit);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bsim: %s\n", e.what());
    return 1;
  }

  sched::sim::HostModel model;
  model.slots = slots;
  if (hosts >= 0) {
    model.hosts = hosts;
  } else if (trace.max_procs || trace.max_nodes) {
    std::int64_t procs = trace.max_procs ? *trace.max_procs : *trace.max_nodes;
    model.hosts = static_cast<int>((procs + slots - 1) / slots);
  } else {
    std::fprintf(stderr, "bsim: the trace has no MaxProcs or MaxNodes header: give --hosts\n");
    return 2;
  }
  auto cluster = sched::sim::model_cluster(*loaded.config, model);
  const int queue =
      queue_name.empty() ? default_queue(*loaded.config, *cluster.policy) : cluster.policy->queue_index(queue_name);
  if (queue < 0) {
    std::fprintf(stderr, "bsim: %s\n",
                 queue_name.empty() ? "the configuration has no queue" : ("no queue " + queue_name).c_str());
    return 1;
  }

  // Jobs that never ran in the log (cancelled: no runtime) are not replayed.
  std::vector<sched::sim::Job> jobs;
  std::vector<const bsim::SwfJob*> source;
  std::size_t skipped = 0;
  for (const auto& s : trace.jobs) {
    std::int64_t procs = s.req_procs > 0 ? s.req_procs : s.alloc_procs;
    if (s.run < 0 || procs <= 0) {
      ++skipped;
      continue;
    }
    sched::sim::Job j;
    j.id = s.id;
    j.submit = s.submit;
    j.runtime = s.run;
    j.procs = static_cast<int>(procs);
    j.queue = queue;
    j.user = "user" + std::to_string(s.user);
    j.project = "group" + std::to_string(s.group);
    switch (estimate->kind) {
      case Estimate::kUser:
        j.run_limit = s.req_time > 0 ? s.req_time : 0;
        break;
      case Estimate::kExact:
        j.run_limit = std::max<std::int64_t>(1, s.run);
        break;
      case Estimate::kFactor:
        j.run_limit = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(estimate->factor * s.run)));
        break;
    }
    jobs.push_back(std::move(j));
    source.push_back(&s);
  }
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].submit < jobs[b].submit; });
  std::vector<sched::sim::Job> sorted;
  std::vector<const bsim::SwfJob*> sorted_source;
  for (size_t i : order) {
    sorted.push_back(jobs[i]);
    sorted_source.push_back(source[i]);
  }

  const bool show_progress = !vm.count("quiet") && isatty(STDERR_FILENO);
  auto progress = [&](double f) {
    if (show_progress) std::fprintf(stderr, "\rbsim: %3.0f%% of %zu jobs submitted", f * 100, sorted.size());
  };
  sched::sim::Result result;
  try {
    result = sched::sim::simulate(cluster, sorted, {}, progress);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nbsim: %s\n", e.what());
    return 1;
  }
  if (show_progress) std::fprintf(stderr, "\n");

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    csv << "job,submit,start,end,wait,run,procs,killed,first_host\n";
    for (const auto& o : result.jobs) {
      csv << o.id << ',' << o.submit << ',' << o.start << ',' << o.end << ','
          << (o.start >= 0 ? o.start - o.submit : -1) << ',' << (o.start >= 0 ? o.end - o.start : -1) << ',' << o.procs
          << ',' << (o.killed ? 1 : 0) << ',' << (o.hosts.empty() ? "" : o.hosts.front()) << '\n';
    }
    if (!csv) {
      std::fprintf(stderr, "bsim: cannot write %s\n", csv_path.c_str());
      return 1;
    }
  }
  if (!swf_path.empty()) {
    std::ofstream swf(swf_path);
    swf << "; Simulated by bsim from " << trace_path << "\n";
    for (size_t i = 0; i < result.jobs.size(); ++i) {
      bsim::SwfJob s = *sorted_source[i];
      const auto& o = result.jobs[i];
      s.wait = o.start >= 0 ? o.start - o.submit : -1;
      s.run = o.start >= 0 ? o.end - o.start : -1;
      s.alloc_procs = o.procs;
      swf << bsim::swf_line(s) << '\n';
    }
    if (!swf) {
      std::fprintf(stderr, "bsim: cannot write %s\n", swf_path.c_str());
      return 1;
    }
  }

  std::vector<std::string> queue_names;
  for (const auto& q : cluster.policy->queues) queue_names.push_back(q.name);
  auto summary = sched::sim::summarize(result, sorted, sched::sim::total_slots(cluster, model), queue_names);
  std::printf("Trace %s: %zu jobs simulated (%zu without a runtime left out), %lld passes\n", trace_path.c_str(),
              sorted.size(), skipped, static_cast<long long>(result.passes));
  std::printf("Cluster: %zu hosts, %lld slots; makespan %lld s\n\n", cluster.hosts.size(),
              static_cast<long long>(sched::sim::total_slots(cluster, model)),
              static_cast<long long>(summary.all.makespan));
  print_header();
  print_figures("all", summary.all);
  if (vm.count("by-queue"))
    for (const auto& [name, f] : summary.by_queue) print_figures(("queue " + name).c_str(), f);
  if (vm.count("by-user"))
    for (const auto& [name, f] : summary.by_user) print_figures(name.c_str(), f);
  return 0;
}
