// showq: the queue as Maui and Moab users read it, in three parts: ACTIVE jobs
// (started), IDLE jobs (pending and eligible for scheduling) and BLOCKED jobs (pending
// but held back: by a policy such as a throttle of lsb.resources, by a hold, or until
// their begin time or dependency comes).
//
//   showq [-r | -i | -b] [-u user] [-json]
//
// The layout is Maui's (UIFormatShowAllJobs): a job name column of 18, user 8, state 10,
// processors 5, time 11 and date 20; active jobs soonest to end first, pending jobs in
// the order bjobs lists them.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/aps_views.h"
#include "cli/cli_support.h"
#include "cli/output_format.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

const char* kUsage = "Usage: showq [-r | -i | -b] [-u user_name] [-json]\n";

struct Row {
  std::string name, user, state;
  int procs = 0;
  std::int64_t limit = 0;  // run limit (WCLIMIT), seconds; 0: none
  std::int64_t time = 0;   // active: start time; pending: submit time (QUEUETIME)
  std::int64_t left = -1;  // active: seconds to the run limit; -1: no limit
};

struct Queue {
  std::vector<Row> active, idle, blocked;
  int busy_procs = 0, total_procs = 0, busy_nodes = 0, total_nodes = 0;
};

// Maui's duration: [-][D:]H:MM:SS.
std::string duration(std::int64_t s) {
  if (s < 0) return "-";
  char buf[40];
  std::int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
  if (d > 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld:%02lld", static_cast<long long>(d), static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(sec));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
                  static_cast<long long>(sec));
  return buf;
}

// Maui's state of a pending job outside the idle part.
const char* blocked_state(wire::PendingClass c) {
  switch (c) {
    case wire::PENDING_HELD:
      return "UserHold";
    case wire::PENDING_DEFERRED:
      return "Deferred";
    default:
      return "Idle";  // held by a policy: Maui keeps the state Idle and lists it blocked
  }
}

Queue build(const wire::JobsReply& jobs, const wire::HostsReply& hosts, const wire::QueuesReply& queues,
            std::int64_t now) {
  std::map<std::string, std::int64_t> queue_limit;
  for (const auto& q : queues.queues()) queue_limit[q.name()] = q.run_limit_s();
  Queue out;
  // Idle jobs in the order they are considered: by absolute priority where a queue has
  // APS_PRIORITY (Maui lists its idle jobs by priority), else as bjobs lists them.
  std::vector<wire::JobInfo> ordered(jobs.jobs().begin(), jobs.jobs().end());
  cli::sort_by_aps(ordered);
  for (const auto& j : ordered) {
    Row r;
    r.name = cli::job_id_text(j.job_id(), j.index());
    r.user = j.user();
    r.limit = j.spec().run_limit_s() > 0 ? j.spec().run_limit_s() : queue_limit[j.queue()];
    switch (j.state()) {
      case wire::JOB_RUN:
      case wire::JOB_SSUSP:
      case wire::JOB_USUSP:
        r.state = j.state() == wire::JOB_RUN ? "Running" : "Suspended";
        r.procs = j.exec_hosts_size();
        r.time = j.start_time();
        r.left = r.limit > 0 ? std::max<std::int64_t>(0, r.limit - (now - j.start_time())) : -1;
        out.active.push_back(r);
        break;
      case wire::JOB_PEND:
      case wire::JOB_PSUSP:
        r.procs = std::max(1, j.spec().min_processors());
        r.time = j.submit_time();
        if (j.pending_class() == wire::PENDING_ELIGIBLE) {
          r.state = "Idle";
          out.idle.push_back(r);
        } else {
          r.state = blocked_state(j.pending_class());
          out.blocked.push_back(r);
        }
        break;
      default:
        break;
    }
  }
  // Soonest to end first; jobs without a run limit last.
  std::stable_sort(out.active.begin(), out.active.end(), [](const Row& a, const Row& b) {
    return (a.left < 0 ? INT64_MAX : a.left) < (b.left < 0 ? INT64_MAX : b.left);
  });
  for (const auto& h : hosts.hosts()) {
    if (!h.server() || h.status() == "unavail" || h.status() == "unreach") continue;
    ++out.total_nodes;
    out.total_procs += std::max(0, h.max_slots());
    out.busy_procs += h.run();
    out.busy_nodes += h.run() > 0;
  }
  return out;
}

double percent(int part, int whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

void header(const char* title, const char* time_column, const char* date_column) {
  std::printf("%s\n", title);
  std::printf("%-18s %8s %10s %5s %11s %20s\n\n", "JOBNAME", "USERNAME", "STATE", "PROC", time_column, date_column);
}

void rows(const std::vector<Row>& list, bool active) {
  for (const auto& r : list)
    std::printf("%-18s %8s %10s %5d %11s  %19s\n", r.name.c_str(), r.user.c_str(), r.state.c_str(), r.procs,
                duration(active ? r.left : (r.limit > 0 ? r.limit : -1)).c_str(), cli::long_time(r.time).c_str());
}

const char* plural(size_t n) { return n == 1 ? "" : "s"; }

void print_text(const Queue& q, bool active, bool idle, bool blocked) {
  if (active) {
    header("ACTIVE JOBS--------------------", "REMAINING", "STARTTIME");
    rows(q.active, true);
    std::string lead = std::to_string(q.active.size()) + " Active Job" + plural(q.active.size()) + "   ";
    std::printf("\n%s%d of %d Processors Active (%.2f%%)\n", lead.c_str(), q.busy_procs, q.total_procs,
                percent(q.busy_procs, q.total_procs));
    if (q.total_nodes != q.total_procs)
      std::printf("%s%d of %d Nodes Active      (%.2f%%)\n", std::string(lead.size(), ' ').c_str(), q.busy_nodes,
                  q.total_nodes, percent(q.busy_nodes, q.total_nodes));
    std::printf("\n");
  }
  if (idle) {
    header("IDLE JOBS----------------------", "WCLIMIT", "QUEUETIME");
    rows(q.idle, false);
    std::printf("\n%zu Idle Job%s\n\n", q.idle.size(), plural(q.idle.size()));
  }
  if (blocked) {
    header("BLOCKED JOBS----------------", "WCLIMIT", "QUEUETIME");
    rows(q.blocked, false);
    std::printf("\n");
  }
  if (active && idle && blocked)
    std::printf("Total Jobs: %zu   Active Jobs: %zu   Idle Jobs: %zu   Blocked Jobs: %zu\n",
                q.active.size() + q.idle.size() + q.blocked.size(), q.active.size(), q.idle.size(), q.blocked.size());
}

void print_json(const Queue& q, bool active, bool idle, bool blocked) {
  auto list = [](const char* key, const std::vector<Row>& rows, bool is_active) {
    std::cout << "  " << cli::json_quote(key) << ": [";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::cout << (i ? ",\n" : "\n") << "    {\"JOBNAME\": " << cli::json_quote(r.name)
                << ", \"USERNAME\": " << cli::json_quote(r.user) << ", \"STATE\": " << cli::json_quote(r.state)
                << ", \"PROC\": " << r.procs;
      if (is_active)
        std::cout << ", \"REMAINING\": " << r.left << ", \"STARTTIME\": " << r.time;
      else
        std::cout << ", \"WCLIMIT\": " << r.limit << ", \"QUEUETIME\": " << r.time;
      std::cout << "}";
    }
    std::cout << (rows.empty() ? "]" : "\n  ]");
  };
  std::cout << "{\n";
  bool first = true;
  auto next = [&] {
    if (!first) std::cout << ",\n";
    first = false;
  };
  if (active) next(), list("ACTIVE", q.active, true);
  if (idle) next(), list("IDLE", q.idle, false);
  if (blocked) next(), list("BLOCKED", q.blocked, false);
  next();
  std::cout << "  \"SUMMARY\": {\"ACTIVE_JOBS\": " << q.active.size() << ", \"IDLE_JOBS\": " << q.idle.size()
            << ", \"BLOCKED_JOBS\": " << q.blocked.size() << ", \"PROCESSORS_ACTIVE\": " << q.busy_procs
            << ", \"PROCESSORS\": " << q.total_procs << ", \"NODES_ACTIVE\": " << q.busy_nodes
            << ", \"NODES\": " << q.total_nodes << "}\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("r", "")("i", "")("b", "")("u", po::value<std::string>(), "")("json", "");
  po::positional_options_description pos;
  auto vm = cli::parse_options("showq", argc, argv, opts, pos, kUsage);
  if (vm.count("r") + vm.count("i") + vm.count("b") > 1) {
    std::cerr << "showq: -r, -i and -b cannot be used together\n" << kUsage;
    return 255;
  }
  const bool some = vm.count("r") || vm.count("i") || vm.count("b");
  const bool active = !some || vm.count("r"), idle = !some || vm.count("i"), blocked = !some || vm.count("b");

  cli::Session session("showq");
  wire::RequestEnvelope jobs_req;
  jobs_req.mutable_jobs()->set_user(vm.count("u") ? vm["u"].as<std::string>() : "all");
  auto jobs = cli::fetch_jobs(session, "showq", jobs_req);
  wire::RequestEnvelope hosts_req;
  hosts_req.mutable_hosts();
  auto hosts = cli::require_ok("showq", session.call(hosts_req)).hosts();
  wire::RequestEnvelope queues_req;
  queues_req.mutable_queues();
  auto queues = cli::require_ok("showq", session.call(queues_req)).queues();

  Queue q = build(jobs, hosts, queues, static_cast<std::int64_t>(std::time(nullptr)));
  if (vm.count("json"))
    print_json(q, active, idle, blocked);
  else
    print_text(q, active, idle, blocked);
  return 0;
}
