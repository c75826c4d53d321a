// bsim: runs a workload trace through the real scheduling pass on a virtual clock, under
// an LSF configuration, and says what schedule came out.
//
//   bsim --trace FILE.swf[.gz] [-c LSF_ENVDIR] [--queue Q] [--compare DIR[:QUEUE] ...]
//        | --scenario FILE.yaml [--queue Q]
//        [--map-queue N=Q ...] [--map-partition N=Q ...] [--filter standard]
//        [--jobs N] [--hosts N] [--slots M] [--estimate user|exact|K]
//        [--csv FILE] [--swf FILE] [--plot PREFIX] [--by-user] [--by-queue] [-q]
//
// Each trace job is submitted at its submit time to --queue (default: DEFAULT_QUEUE)
// with -n its processors and -W what --estimate says (the user's request, its real
// runtime, or K times that), and runs for its real runtime unless -W kills it first.
// Hosts: --hosts N of --slots M each; by default MaxProcs (or MaxNodes) hosts of one slot
// from the trace header; --hosts 0 takes the configuration's hosts. --map-queue and
// --map-partition send jobs of a trace queue or partition number elsewhere (partition
// first). --filter standard cleans the trace as the archived backfilling studies did
// (trace_filter.h). --compare runs the trace once per configuration (and queue) named
// and prints a row for each.
// --scenario replays a scheduling-pass scenario (tests/scenarios): its configuration and
// hosts, its steps' submissions, each running for its `runtime` (else its -W).
#include <malloc.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <boost/program_options.hpp>

#include "cli/bsim/scenario.h"
#include "cli/bsim/svg_plot.h"
#include "cli/bsim/swf_trace.h"
#include "cli/bsim/trace_filter.h"
#include "cli/bsim/trace_jobs.h"
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

struct Options {
  Estimate estimate;
  // SWF queue and partition numbers -> LSF queue names (--map-queue, --map-partition).
  std::map<std::int64_t, std::string> queue_map, partition_map;
  std::string trace_path;
  int hosts = -1;
  int slots = 1;
  bool progress = false;
  bool warned = false;  // duplicate ids are reported once, not once per --compare run
};

// One simulation of the trace under one configuration and queue.
struct Run {
  std::string label;
  std::vector<sched::sim::Job> jobs;  // by submit time
  std::vector<const bsim::SwfJob*> source;
  std::size_t skipped = 0;  // without a runtime in the log
  std::size_t hosts = 0;
  std::int64_t slots = 0;
  sched::sim::Result result;
  sched::sim::Summary summary;
  bsim::Series queue_length, busy;  // after every pass
};

int default_queue(const config::ClusterConfig& config, const sched::SchedPolicy& policy) {
  for (const auto& name : config.params.default_queues)
    if (int q = policy.queue_index(name); q >= 0) return q;
  return policy.queues.empty() ? -1 : 0;
}

// What is replayed: a trace, or a scenario's submissions.
struct Workload {
  const bsim::SwfTrace* trace = nullptr;
  const bsim::Scenario* scenario = nullptr;
};

// The scheduler's -W for a job that really runs `runtime` and asked for `requested`.
std::int64_t run_limit_of(const Estimate& e, std::int64_t requested, std::int64_t runtime) {
  switch (e.kind) {
    case Estimate::kUser:
      return requested > 0 ? requested : 0;
    case Estimate::kExact:
      return std::max<std::int64_t>(1, runtime);
    case Estimate::kFactor:
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(e.factor * static_cast<double>(runtime))));
  }
  return 0;
}

// Errors go to stderr; nullopt when the run could not be made.
std::optional<Run> simulate(const std::string& envdir, const std::string& queue_name, const Workload& work,
                            Options& opt, const std::string& label) {
  config::LoadOptions load;
  load.envdir = envdir;
  // A fixed instant, not the clock: the same input gives the same output whenever it
  // runs (`#if time` blocks see Sunday 00:00, as the pass's windows do).
  load.now = config::WeekInstant{};
  auto loaded = config::load_cluster_config(load);
  for (const auto& d : loaded.diagnostics.items())
    if (d.severity == config::Severity::kError) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  if (!loaded.usable()) {
    std::fprintf(stderr, "bsim: the configuration in %s has errors\n", envdir.c_str());
    return std::nullopt;
  }
  sched::sim::HostModel model;
  model.slots = opt.slots;
  if (opt.hosts >= 0) {
    model.hosts = opt.hosts;
  } else if (work.scenario) {
    model.hosts = 0;  // the scenario's own hosts
  } else if (work.trace->max_procs || work.trace->max_nodes) {
    const auto& trace = *work.trace;
    std::int64_t procs = trace.max_procs ? *trace.max_procs : *trace.max_nodes;
    model.hosts = static_cast<int>((procs + opt.slots - 1) / opt.slots);
  } else {
    std::fprintf(stderr, "bsim: the trace has no MaxProcs or MaxNodes header: give --hosts\n");
    return std::nullopt;
  }
  auto cluster = sched::sim::model_cluster(*loaded.config, model);
  const int queue =
      queue_name.empty() ? default_queue(*loaded.config, *cluster.policy) : cluster.policy->queue_index(queue_name);
  if (queue < 0) {
    std::fprintf(stderr, "bsim: %s\n",
                 queue_name.empty() ? "the configuration has no queue" : ("no queue " + queue_name).c_str());
    return std::nullopt;
  }

  // Where mapped trace queues and partitions go; a name the configuration lacks is an error.
  std::map<std::int64_t, int> by_queue, by_partition;
  for (const auto& [maps, into, option] : {std::tuple{&opt.queue_map, &by_queue, "--map-queue"},
                                           std::tuple{&opt.partition_map, &by_partition, "--map-partition"}}) {
    for (const auto& [number, name] : *maps) {
      int q = cluster.policy->queue_index(name);
      if (q < 0) {
        std::fprintf(stderr, "bsim: %s %lld=%s: no queue %s\n", option, static_cast<long long>(number), name.c_str(),
                     name.c_str());
        return std::nullopt;
      }
      (*into)[number] = q;
    }
  }

  Run run;
  run.label = label;
  run.hosts = cluster.hosts.size();
  run.slots = sched::sim::total_slots(cluster, model);
  if (work.scenario) {
    for (const auto& s : work.scenario->jobs) {
      sched::sim::Job j;
      j.id = s.id;
      j.submit = s.submit;
      j.runtime = s.runtime;
      j.run_limit = run_limit_of(opt.estimate, s.run_limit, s.runtime);
      j.procs = s.procs;
      j.queue = s.queue.empty() ? queue : cluster.policy->queue_index(s.queue);
      if (j.queue < 0) {
        std::fprintf(stderr, "bsim: job %lld: no queue %s\n", static_cast<long long>(s.id), s.queue.c_str());
        return std::nullopt;
      }
      j.user = s.user;
      j.project = s.project;
      run.jobs.push_back(std::move(j));
    }
  } else {
    auto replayed = bsim::trace_jobs(*work.trace, [&](const bsim::SwfJob& s, sched::sim::Job& j) {
      j.queue = queue;
      if (auto p = by_partition.find(s.partition); p != by_partition.end())
        j.queue = p->second;
      else if (auto q = by_queue.find(s.queue); q != by_queue.end())
        j.queue = q->second;
      j.run_limit = run_limit_of(opt.estimate, s.req_time, s.run);
    });
    run.jobs = std::move(replayed.jobs);
    run.source = std::move(replayed.source);
    run.skipped = replayed.skipped;
    // The simulator numbers jobs in submit order, so a reused id changes nothing in the
    // schedule; it is said, since the CSV and SWF written then name two jobs alike.
    if (!replayed.duplicates.empty() && !opt.warned) {
      opt.warned = true;
      constexpr size_t kShown = 5;
      for (size_t i = 0; i < std::min(kShown, replayed.duplicates.size()); ++i) {
        const auto& [again, first] = replayed.duplicates[i];
        std::fprintf(stderr, "bsim: warning: %s:%zu: job %lld again (first on line %zu)\n", opt.trace_path.c_str(),
                     again->line, static_cast<long long>(again->id), first->line);
      }
      if (replayed.duplicates.size() > kShown)
        std::fprintf(stderr, "bsim: warning: %zu more jobs reuse an id\n", replayed.duplicates.size() - kShown);
      std::fprintf(stderr, "bsim: warning: jobs are told apart by their place in submit order\n");
    }
  }

  run.queue_length.label = run.busy.label = label;
  auto observe = [&](std::int64_t now, const sched::ClusterView& view, const sched::PassResult&) {
    std::size_t busy = 0;
    for (const auto& r : view.running)
      if (r.state == sched::RunState::kRun) busy += r.hosts.size();
    const double days = static_cast<double>(now) / 86400.0;
    run.queue_length.points.emplace_back(days, static_cast<double>(view.pending.size()));
    run.busy.points.emplace_back(days,
                                 run.slots ? 100.0 * static_cast<double>(busy) / static_cast<double>(run.slots) : 0.0);
  };
  auto progress = [&](double f) {
    if (opt.progress)
      std::fprintf(stderr, "\rbsim: %s%s%3.0f%% of %zu jobs submitted", label.c_str(), label.empty() ? "" : ": ",
                   f * 100, run.jobs.size());
  };
  try {
    run.result = sched::sim::simulate(cluster, run.jobs, observe, progress);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nbsim: %s\n", e.what());
    return std::nullopt;
  }
  if (opt.progress) std::fprintf(stderr, "\n");
  std::vector<std::string> queue_names;
  for (const auto& q : cluster.policy->queues) queue_names.push_back(q.name);
  run.summary = sched::sim::summarize(run.result, run.jobs, run.slots, queue_names);
  return run;
}

bool write_csv(const std::string& path, const Run& run) {
  std::ofstream csv(path);
  csv << "job,submit,start,end,wait,run,procs,killed,first_host\n";
  for (size_t i = 0; i < run.result.jobs.size(); ++i) {
    const auto& o = run.result.jobs[i];
    // A trace's jobs by their id in the trace, not the simulator's number.
    const std::int64_t id = i < run.source.size() ? run.source[i]->id : o.id;
    csv << id << ',' << o.submit << ',' << o.start << ',' << o.end << ',' << (o.start >= 0 ? o.start - o.submit : -1)
        << ',' << (o.start >= 0 ? o.end - o.start : -1) << ',' << o.procs << ',' << (o.killed ? 1 : 0) << ','
        << o.first_host << '\n';
  }
  return static_cast<bool>(csv);
}

bool write_swf(const std::string& path, const std::string& trace_path, const Run& run) {
  std::ofstream swf(path);
  swf << "; Simulated by bsim from " << trace_path << "\n";
  for (size_t i = 0; i < run.result.jobs.size(); ++i) {
    bsim::SwfJob s = *run.source[i];
    const auto& o = run.result.jobs[i];
    s.wait = o.start >= 0 ? o.start - o.submit : -1;
    s.run = o.start >= 0 ? o.end - o.start : -1;
    s.alloc_procs = o.procs;
    swf << bsim::swf_line(s) << '\n';
  }
  return static_cast<bool>(swf);
}

// Three charts: jobs waiting and slots busy over time, and the share of jobs that
// waited at most x hours; a line per run.
bool write_plots(const std::string& prefix, const std::vector<Run>& runs) {
  std::vector<bsim::Series> queue, busy, waits;
  for (const auto& r : runs) {
    queue.push_back(r.queue_length);
    busy.push_back(r.busy);
    bsim::Series cdf;
    cdf.label = r.label;
    std::vector<double> w;
    for (const auto& o : r.result.jobs)
      if (o.start >= 0) w.push_back(static_cast<double>(o.start - o.submit) / 3600.0);
    std::sort(w.begin(), w.end());
    for (size_t i = 0; i < w.size(); ++i)
      cdf.points.emplace_back(w[i], 100.0 * static_cast<double>(i + 1) / static_cast<double>(w.size()));
    waits.push_back(std::move(cdf));
  }
  const std::pair<std::string, std::string> files[] = {
      {prefix + ".queue.svg", bsim::line_chart("Jobs waiting", "days", "pending jobs", queue)},
      {prefix + ".util.svg", bsim::line_chart("Utilization", "days", "% of slots busy", busy)},
      {prefix + ".wait.svg", bsim::line_chart("Waits", "hours waited", "% of jobs that waited at most", waits)},
  };
  for (const auto& [path, text] : files) {
    std::ofstream out(path);
    out << text;
    if (!out) {
      std::fprintf(stderr, "bsim: cannot write %s\n", path.c_str());
      return false;
    }
  }
  return true;
}

// The scenario's configuration files in a new temporary directory (its path).
std::string write_scenario_config(const bsim::Scenario& scenario) {
  std::string dir = (std::filesystem::temp_directory_path() / "bsim-scenario.XXXXXX").string();
  if (!::mkdtemp(dir.data())) throw std::runtime_error("cannot make a temporary directory: " + dir);
  for (const auto& [rel, text] : scenario.files) {
    std::filesystem::path p = std::filesystem::path(dir) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + p.string());
  }
  return dir;
}

void print_header(int width) {
  std::printf("%-*s %8s %6s %6s %10s %10s %8s %10s %10s %9s\n", width, "", "JOBS", "NEVER", "KILLED", "UTIL",
              "AVG_WAIT", "MED_WAIT", "P95_WAIT", "MAX_WAIT", "AVG_BSLD");
}

void print_figures(int width, const std::string& label, const sched::sim::Figures& f) {
  std::printf("%-*s %8lld %6lld %6lld %10.3f %10.0f %8.0f %10.0f %10.0f %9.2f\n", width, label.c_str(),
              static_cast<long long>(f.jobs), static_cast<long long>(f.never), static_cast<long long>(f.killed),
              f.utilization, f.avg_wait, f.median_wait, f.p95_wait, f.max_wait, f.avg_bounded_slowdown);
}

}  // namespace

int main(int argc, char** argv) {
  // Every event's pass makes and frees vectors as long as the queue; glibc would hand
  // the top of the heap back to the kernel after each and fault the pages in again.
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  po::options_description opts("bsim options");
  std::string trace_path, scenario_path, envdir, estimate_text = "user", csv_path, swf_path, queue_name, plot_prefix,
                                                 filter;
  std::vector<std::string> compare, map_queue, map_partition;
  std::size_t limit = 0;
  Options opt;
  opts.add_options()("help,h", "this help")("trace", po::value(&trace_path), "SWF trace (.swf or .swf.gz)")(
      "scenario", po::value(&scenario_path), "a scheduling scenario (YAML): its cluster and submissions")(
      "conf,c", po::value(&envdir), "directory of lsf.conf (default: $LSF_ENVDIR)")(
      "queue", po::value(&queue_name), "the queue every job goes to (default: DEFAULT_QUEUE)")(
      "compare", po::value(&compare)->composing(), "DIR[:QUEUE]: a run per configuration, side by side")(
      "map-queue", po::value(&map_queue)->composing(), "N=QUEUE: jobs of the trace's queue N go to QUEUE")(
      "map-partition", po::value(&map_partition)->composing(), "N=QUEUE: jobs of partition N go to QUEUE")(
      "filter", po::value(&filter), "standard: clean the trace as the archived backfilling studies did")(
      "jobs", po::value(&limit), "simulate the first N jobs only")("hosts", po::value(&opt.hosts),
                                                                   "N identical hosts (0: the configuration's hosts)")(
      "slots", po::value(&opt.slots), "slots per host (default 1)")(
      "estimate", po::value(&estimate_text), "run limit the scheduler sees: user, exact or a factor K")(
      "csv", po::value(&csv_path), "write the schedule, one job per line")("swf", po::value(&swf_path),
                                                                           "write the schedule as an SWF trace")(
      "plot", po::value(&plot_prefix), "write PREFIX.queue.svg, PREFIX.util.svg and PREFIX.wait.svg")(
      "by-user", "a row per user")("by-queue", "a row per queue")("quiet,q", "no progress");
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
  if (trace_path.empty() == scenario_path.empty()) {
    std::fprintf(stderr, "bsim: give --trace FILE or --scenario FILE\n");
    return 2;
  }
  if (!scenario_path.empty() && (!envdir.empty() || !compare.empty() || !swf_path.empty())) {
    std::fprintf(stderr,
                 "bsim: --scenario brings its own configuration and is no trace: not with -c, --compare "
                 "or --swf\n");
    return 2;
  }
  auto estimate = parse_estimate(estimate_text);
  if (!estimate) {
    std::fprintf(stderr, "bsim: --estimate %s: user, exact or a positive factor\n", estimate_text.c_str());
    return 2;
  }
  opt.estimate = *estimate;
  for (const auto& [list, into, option] : {std::tuple{&map_queue, &opt.queue_map, "--map-queue"},
                                           std::tuple{&map_partition, &opt.partition_map, "--map-partition"}}) {
    for (const auto& entry : *list) {
      auto eq = entry.find('=');
      char* end = nullptr;
      long long number = eq == std::string::npos ? 0 : std::strtoll(entry.c_str(), &end, 10);
      if (eq == std::string::npos || eq == 0 || end != entry.c_str() + eq || eq + 1 == entry.size()) {
        std::fprintf(stderr, "bsim: %s %s: give NUMBER=QUEUE\n", option, entry.c_str());
        return 2;
      }
      (*into)[number] = entry.substr(eq + 1);
    }
  }
  if (opt.slots < 1) {
    std::fprintf(stderr, "bsim: --slots must be at least 1\n");
    return 2;
  }
  if (!compare.empty() && (!csv_path.empty() || !swf_path.empty())) {
    std::fprintf(stderr, "bsim: --csv and --swf write one schedule; not with --compare\n");
    return 2;
  }
  if (compare.empty() && scenario_path.empty()) {
    if (envdir.empty())
      if (const char* e = std::getenv("LSF_ENVDIR")) envdir = e;
    if (envdir.empty()) {
      std::fprintf(stderr, "bsim: no configuration: give -c DIR or set LSF_ENVDIR\n");
      return 2;
    }
  }
  opt.progress = !vm.count("quiet") && isatty(STDERR_FILENO);
  opt.trace_path = trace_path;
  if (!filter.empty() && (filter != "standard" || trace_path.empty())) {
    std::fprintf(stderr, "bsim: --filter %s: the one filter is `standard`, for a --trace\n", filter.c_str());
    return 2;
  }

  bsim::SwfTrace trace;
  bsim::Scenario scenario;
  Workload work;
  std::string scenario_dir;  // the scenario's configuration, written out for the loader
  try {
    if (scenario_path.empty()) {
      trace = bsim::read_swf(trace_path, limit);
      work.trace = &trace;
      if (!filter.empty()) {
        auto f = bsim::filter_standard(trace);
        std::printf(
            "Filter standard: %zu of %zu jobs kept; dropped %zu without processors, %zu wider than MaxProcs, "
            "%zu without a runtime, %zu without a requested time, %zu submitted before the start; %zu runtimes cut "
            "to the requested time\n",
            f.kept, f.read, f.no_procs, f.too_wide, f.no_runtime, f.no_request, f.before_start, f.capped);
      }
    } else {
      scenario = bsim::read_scenario(scenario_path);
      if (limit > 0 && scenario.jobs.size() > limit) scenario.jobs.resize(limit);
      work.scenario = &scenario;
      scenario_dir = write_scenario_config(scenario);
      envdir = scenario_dir + "/conf";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bsim: %s\n", e.what());
    return 1;
  }

  std::vector<Run> runs;
  if (compare.empty()) {
    auto run = simulate(envdir, queue_name, work, opt, queue_name);
    if (!scenario_dir.empty()) std::filesystem::remove_all(scenario_dir);
    if (!run) return 1;
    runs.push_back(std::move(*run));
  } else {
    for (const auto& entry : compare) {
      auto colon = entry.rfind(':');
      std::string dir = colon == std::string::npos ? entry : entry.substr(0, colon);
      std::string queue = colon == std::string::npos ? queue_name : entry.substr(colon + 1);
      auto run = simulate(dir, queue, work, opt, entry);
      if (!run) return 1;
      runs.push_back(std::move(*run));
    }
  }

  const Run& first = runs.front();
  if (!csv_path.empty() && !write_csv(csv_path, first)) {
    std::fprintf(stderr, "bsim: cannot write %s\n", csv_path.c_str());
    return 1;
  }
  if (!swf_path.empty() && !write_swf(swf_path, trace_path, first)) {
    std::fprintf(stderr, "bsim: cannot write %s\n", swf_path.c_str());
    return 1;
  }
  if (!plot_prefix.empty() && !write_plots(plot_prefix, runs)) return 1;

  if (work.trace)
    std::printf("Trace %s: %zu jobs simulated (%zu without a runtime left out)\n", trace_path.c_str(),
                first.jobs.size(), first.skipped);
  else
    std::printf("Scenario %s: %zu jobs simulated\n", scenario_path.c_str(), first.jobs.size());
  std::printf("Cluster: %zu hosts, %lld slots; makespan %lld s; %lld passes\n\n", first.hosts,
              static_cast<long long>(first.slots), static_cast<long long>(first.summary.all.makespan),
              static_cast<long long>(first.result.passes));
  int width = 22;
  for (const auto& r : runs) width = std::max(width, static_cast<int>(r.label.size()));
  print_header(width);
  for (const auto& r : runs) {
    print_figures(width, compare.empty() ? "all" : r.label, r.summary.all);
    if (vm.count("by-queue"))
      for (const auto& [name, f] : r.summary.by_queue) print_figures(width, "  queue " + name, f);
    if (vm.count("by-user"))
      for (const auto& [name, f] : r.summary.by_user) print_figures(width, "  " + name, f);
  }
  return 0;
}
