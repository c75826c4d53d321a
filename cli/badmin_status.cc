// badmin mbdrestart, hist and showstatus: restarting mbatchd, the history of queue,
// host and mbatchd events, and a summary of the cluster as mbatchd sees it.
#include "cli/badmin_status.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

#include "cli/cli_support.h"
#include "cli/output_format.h"

namespace lsf::cli {
namespace {

const char* op_text(wire::ControlOp op) {
  switch (op) {
    case wire::CONTROL_OPEN:
      return "opened";
    case wire::CONTROL_CLOSE:
      return "closed";
    case wire::CONTROL_ACTIVATE:
      return "activated";
    case wire::CONTROL_INACTIVATE:
      return "inactivated";
    default:
      return "changed";
  }
}

std::string row(const std::string& label, const std::string& value) {
  std::string line = "   " + label;
  if (line.size() < 36) line.append(36 - line.size(), ' ');
  return line + value + "\n";
}

// An object as LSF's -json output writes one: one "KEY":value per line. Values are
// JSON already (numbers, quoted strings, arrays).
using JsonFields = std::vector<std::pair<std::string, std::string>>;

std::string json_object(const JsonFields& fields, const std::string& indent = "  ") {
  std::string out = "{\n";
  for (std::size_t i = 0; i < fields.size(); ++i)
    out += indent + json_quote(fields[i].first) + ":" + fields[i].second + (i + 1 < fields.size() ? ",\n" : "\n");
  return out + indent.substr(2) + "}";
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string megabytes(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

int mbdrestart(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a != "-f" && a != "-v") {
      std::cerr << "badmin mbdrestart: unknown option " << a << "\n";
      return 2;
    }
  }
  Session session("badmin");
  wire::RequestEnvelope req;
  req.mutable_reconfig()->set_restart(true);
  std::cout << "\nChecking configuration files ...\n\n";
  const auto reply = require_ok("badmin", session.call(req));
  const auto& r = reply.reconfig();
  for (const auto& e : r.errors()) std::cout << e << "\n";
  if (!r.applied()) {
    std::cout
        << "\nThere are fatal errors.\n\nmbatchd is not restarted; fix the errors and run badmin mbdrestart again.\n";
    return 1;
  }
  std::cout << (r.warnings_size() > 0 ? "\nThere are warning errors.\n\n" : "No errors found.\n\n")
            << "MBD restart initiated\n";
  // Master failover: the role goes back to a preferred candidate instead.
  if (!reply.message().empty()) std::cout << reply.message() << "\n";
  return 0;
}

int hist(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cerr << "badmin hist: unknown argument " << args[0] << "\n";
    return 2;
  }
  Session session("badmin");
  wire::RequestEnvelope req;
  req.mutable_history()->set_cluster(true);
  const auto reply = fetch_history(session, "badmin", req);
  for (const auto& e : reply.events()) {
    std::string text;
    if (e.has_queue_ctrl()) {
      const auto& q = e.queue_ctrl();
      text = "Queue <" + q.queue() + "> " + op_text(q.op()) + " by user or administrator <" + q.user() + ">.";
    } else if (e.has_host_ctrl()) {
      const auto& h = e.host_ctrl();
      text = "Host <" + h.host() + "> " + op_text(h.op()) + " by administrator <" + h.user() + ">" +
             (h.comment().empty() ? "" : " with comment \"" + h.comment() + "\"") + ".";
    } else if (e.has_job_group()) {
      const auto& g = e.job_group();
      const std::string limit = g.limit() < 0 ? "no limit" : "limit " + std::to_string(g.limit());
      text = g.op() == wire::JGRP_ADD ? "Job group <" + g.path() + "> added by user <" + g.user() + "> (" + limit + ")."
             : g.op() == wire::JGRP_DEL
                 ? "Job group <" + g.path() + "> deleted by user <" + g.user() + ">."
                 : "Job group <" + g.path() + "> modified by user <" + g.user() + "> (" + limit + ").";
    } else if (e.has_mbd_start()) {
      text = "mbatchd started on host <" + e.mbd_start().master() + "> for cluster <" + e.mbd_start().cluster() + ">.";
    } else {
      continue;
    }
    print_wrapped(long_time(e.time()) + ": " + text, 21);
  }
  return 0;
}

int showstatus(const std::vector<std::string>& args) {
  const bool json = args.size() == 1 && args[0] == "-json";
  if (!args.empty() && !json) {
    std::cerr << "badmin showstatus: unknown argument " << args[0] << "\n";
    return 2;
  }
  Session session("badmin");
  wire::RequestEnvelope info_req, hosts_req, jobs_req, users_req, config_req;
  info_req.mutable_cluster_info();
  hosts_req.mutable_hosts();
  jobs_req.mutable_jobs()->set_user("all");
  users_req.mutable_users()->add_names("all");
  config_req.mutable_config_info();
  wire::RequestEnvelope perfmon_req;
  perfmon_req.mutable_perfmon();
  const auto health = require_ok("badmin", session.call(perfmon_req)).perfmon();
  const auto info = require_ok("badmin", session.call(info_req)).cluster_info();
  const auto hosts = require_ok("badmin", session.call(hosts_req)).hosts();
  const auto jobs = fetch_jobs(session, "badmin", jobs_req);
  const auto users = require_ok("badmin", session.call(users_req)).users();
  const auto config = require_ok("badmin", session.call(config_req)).config_info();

  int ok = 0, closed = 0, unreach = 0, unavail = 0, cpus = 0;
  for (const auto& h : hosts.hosts()) {
    cpus += h.load().ncpus();
    if (h.status() == "ok")
      ++ok;
    else if (h.status() == "unreach")
      ++unreach;
    else if (h.status() == "unavail")
      ++unavail;
    else
      ++closed;
  }
  int run = 0, susp = 0, pend = 0;
  for (const auto& j : jobs.jobs()) {
    if (j.state() == wire::JOB_RUN) ++run;
    if (j.state() == wire::JOB_USUSP || j.state() == wire::JOB_SSUSP) ++susp;
    if (j.state() == wire::JOB_PEND || j.state() == wire::JOB_PSUSP) ++pend;
  }
  int active_users = 0;
  for (const auto& u : users.users())
    if (!u.group() && u.njobs() > 0) ++active_users;

  std::string candidates;
  for (const auto& c : info.master_candidates()) candidates += (candidates.empty() ? "" : " ") + c;
  // LSB_LOCALDIR: whether the copy in LSB_SHAREDIR holds everything the primary does.
  std::string event_log = info.event_log().empty() ? std::string("-") : info.event_log();
  if (!info.event_log_replica().empty())
    event_log += " (duplicated to " + info.event_log_replica() +
                 (info.replica_behind_since() == 0 ? std::string(": up to date)")
                                                   : ": behind since " + long_time(info.replica_behind_since()) + ": " +
                                                         info.replica_behind_cause() + ")");
  if (json) {
    auto str = [](const std::string& v) { return json_quote(v); };
    auto num = [](std::int64_t v) { return std::to_string(v); };
    std::string list = "[";
    for (const auto& c : info.master_candidates()) list += (list.size() > 1 ? "," : "") + json_quote(c);
    list += "]";
    const JsonFields fields = {
        {"COMMAND", str("badmin showstatus")},
        {"CLUSTER_NAME", str(info.cluster_name())},
        {"MASTER_HOST", str(info.master_name())},
        {"MASTER_CANDIDATES", list},
        {"MASTER_TERM", num(info.master_epoch())},
        {"EVENT_LOG", str(info.event_log())},
        {"EVENT_LOG_REPLICA", str(info.event_log_replica())},
        {"REPLICA_BEHIND_SINCE", num(info.replica_behind_since())},
        {"VERSION", str(info.version())},
        {"SERVERS", num(hosts.hosts_size())},
        {"SERVERS_OK", num(ok)},
        {"SERVERS_CLOSED", num(closed)},
        {"SERVERS_UNREACHABLE", num(unreach)},
        {"SERVERS_UNAVAILABLE", num(unavail)},
        {"CPUS", num(cpus)},
        {"JOBS", num(run + susp + pend)},
        {"JOBS_RUNNING", num(run)},
        {"JOBS_SUSPENDED", num(susp)},
        {"JOBS_PENDING", num(pend)},
        {"USERS", num(users.users_size())},
        {"USER_GROUPS", num(config.user_groups_size())},
        {"ACTIVE_USERS", num(active_users)},
        {"MBATCHD_START_TIME", num(info.mbatchd_start_time())},
        {"MBATCHD_PID", num(info.mbatchd_pid())},
        {"LAST_RECONFIG_TIME", num(info.last_reconfig_time())},
        {"PASSES", num(static_cast<std::int64_t>(health.passes()))},
        {"PASS_P50_MS", ms(health.pass_p50_ms())},
        {"PASS_P99_MS", ms(health.pass_p99_ms())},
        {"EVENT_LOG_RECORDS", num(static_cast<std::int64_t>(health.log_records()))},
        {"EVENT_LOG_SYNC_P99_MS", ms(health.log_sync_p99_ms())},
        {"EVENT_LOG_BYTES", num(static_cast<std::int64_t>(health.log_bytes()))},
        {"SNAPSHOT_AGE_S", num(health.snapshot_age_s())},
        {"SBATCHDS", num(health.sbatchds())},
        {"CONNECTIONS", num(health.connections())},
        {"RESIDENT_BYTES", num(health.resident_bytes())},
        {"METRICS_URL", str(health.metrics_url())},
    };
    std::cout << json_object(fields) << "\n";
    return 0;
  }
  std::cout << "LSF runtime mbatchd information\n"
            << row("Cluster name:", info.cluster_name()) << row("Master host:", info.master_name())
            << row("Master candidates:", candidates.empty() ? std::string("-") : candidates)
            << row("Master term:", info.master_epoch() > 0 ? std::to_string(info.master_epoch()) + " since " +
                                                                 long_time(info.master_since())
                                                           : std::string("-"))
            << row("Event log:", event_log) << row("Version:", info.version()) << "\n"
            << row("Number of servers:", std::to_string(hosts.hosts_size())) << row("     Ok:", std::to_string(ok))
            << row("     Closed:", std::to_string(closed)) << row("     Unreachable:", std::to_string(unreach))
            << row("     Unavailable:", std::to_string(unavail)) << row("Number of CPUs:", std::to_string(cpus)) << "\n"
            << row("Number of jobs:", std::to_string(run + susp + pend)) << row("     Running:", std::to_string(run))
            << row("     Suspended:", std::to_string(susp)) << row("     Pending:", std::to_string(pend)) << "\n"
            << row("Number of users:", std::to_string(users.users_size()))
            << row("Number of user groups:", std::to_string(config.user_groups_size()))
            << row("Number of active users:", std::to_string(active_users)) << "\n"
            << row("Latest mbatchd start:", long_time(info.mbatchd_start_time()))
            << row("Active mbatchd PID:", std::to_string(info.mbatchd_pid()))
            << row("Latest mbatchd reconfig:",
                   info.last_reconfig_time() > 0 ? long_time(info.last_reconfig_time()) : std::string("-"))
            << "\n"
            << row("Scheduling passes:", std::to_string(health.passes()) + " (p50 " + ms(health.pass_p50_ms()) +
                                             " ms, p99 " + ms(health.pass_p99_ms()) + " ms)")
            << row("Event log:", std::to_string(health.log_records()) + " records written, " +
                                     std::to_string(health.log_bytes()) + " bytes, sync p99 " +
                                     ms(health.log_sync_p99_ms()) + " ms")
            << row("Last snapshot:", health.snapshot_age_s() < 0 ? std::string("none since start")
                                                                 : std::to_string(health.snapshot_age_s()) + " s ago")
            << row("sbatchds registered:", std::to_string(health.sbatchds()))
            << row("Open connections:", std::to_string(health.connections()))
            << row("mbatchd memory:", megabytes(health.resident_bytes()))
            << row("Metrics and dashboard:",
                   health.metrics_url().empty() ? std::string("off (LSB_METRICS_PORT)") : health.metrics_url());
  return 0;
}

// badmin perfmon view: what the scheduling passes cost and did, and mbatchd's health
// (the figures Slurm's sdiag gives, and /metrics serves). The counters are always kept
// (a pass reports them anyway), so `start` and `stop` have nothing to do.
int perfmon(const std::vector<std::string>& args) {
  std::string what = args.empty() ? "view" : args[0];
  if (what == "start" || what == "stop") {
    std::cout << "mbatchd keeps performance counters at all times; use badmin perfmon view.\n";
    return 0;
  }
  if (what != "view") {
    std::cerr << "badmin perfmon: " << what << ": unknown subcommand (view)\n";
    return 2;
  }
  const bool json = args.size() > 1 && args[1] == "-json";
  Session session("badmin");
  wire::RequestEnvelope req;
  req.mutable_perfmon();
  const auto reply = require_ok("badmin", session.call(req));
  const auto& p = reply.perfmon();
  const double avg_ms = p.passes() ? p.total_pass_us() / 1000.0 / static_cast<double>(p.passes()) : 0;
  const std::string metrics = !p.metrics_url().empty()     ? p.metrics_url()
                              : !p.metrics_error().empty() ? "not served: " + p.metrics_error()
                                                           : std::string("off (LSB_METRICS_PORT)");
  if (json) {
    auto num = [](auto v) { return std::to_string(v); };
    std::string requests = "[";
    for (const auto& r : p.requests()) {
      requests += std::string(requests.size() > 1 ? "," : "") + "\n    " +
                  json_object({{"TYPE", json_quote(r.name())},
                               {"COUNT", num(r.count())},
                               {"P50_MS", ms(r.p50_ms())},
                               {"P99_MS", ms(r.p99_ms())},
                               {"MAX_MS", ms(r.max_ms())}},
                              "      ");
    }
    requests += p.requests_size() ? "\n  ]" : "]";
    const JsonFields fields = {
        {"COMMAND", json_quote("badmin perfmon view")},
        {"UPTIME_S", num(p.uptime_s())},
        {"PASSES", num(p.passes())},
        {"LAST_PASS_MS", ms(p.last_pass_us() / 1000.0)},
        {"AVERAGE_PASS_MS", ms(avg_ms)},
        {"MAX_PASS_MS", ms(p.max_pass_us() / 1000.0)},
        {"PASS_P50_MS", ms(p.pass_p50_ms())},
        {"PASS_P99_MS", ms(p.pass_p99_ms())},
        {"PENDING", num(p.jobs_pending())},
        {"CONSIDERED", num(p.jobs_considered())},
        {"DISPATCHED", num(p.dispatched())},
        {"RESERVED", num(p.reserved())},
        {"PREEMPTED", num(p.preempted())},
        {"CLASSES", num(p.classes())},
        {"JOBS_DISPATCHED", num(p.jobs_dispatched_total())},
        {"JOB_SUBMISSIONS", num(p.submissions_total())},
        {"JOBS_IN_MEMORY", num(p.jobs_in_memory())},
        {"EVENT_LOG_RECORDS", num(p.log_records())},
        {"EVENT_LOG_SYNCS", num(p.log_syncs())},
        {"EVENT_LOG_SYNC_P99_MS", ms(p.log_sync_p99_ms())},
        {"EVENT_LOG_BYTES", num(p.log_bytes())},
        {"SNAPSHOT_AGE_S", num(p.snapshot_age_s())},
        {"SBATCHDS", num(p.sbatchds())},
        {"CONNECTIONS", num(p.connections())},
        {"RESIDENT_BYTES", num(p.resident_bytes())},
        {"METRICS_URL", json_quote(p.metrics_url())},
        {"METRICS_ERROR", json_quote(p.metrics_error())},
        {"REQUESTS", requests},
    };
    std::cout << json_object(fields) << "\n";
    return 0;
  }
  auto line = [](const std::string& label, const std::string& value) {
    std::printf("%-40s %s\n", label.c_str(), value.c_str());
  };
  line("Metrics", "Value");
  line("Up time", std::to_string(p.uptime_s()) + " s");
  line("Job submission requests", std::to_string(p.submissions_total()));
  line("Jobs dispatched", std::to_string(p.jobs_dispatched_total()));
  line("Jobs in memory", std::to_string(p.jobs_in_memory()));
  line("Scheduling passes", std::to_string(p.passes()));
  line("Last pass duration", ms(p.last_pass_us() / 1000.0) + " ms");
  line("Average pass duration", ms(avg_ms) + " ms");
  line("Longest pass duration", ms(p.max_pass_us() / 1000.0) + " ms");
  line("Pass duration p50 / p99", ms(p.pass_p50_ms()) + " / " + ms(p.pass_p99_ms()) + " ms");
  line("Last pass: pending jobs", std::to_string(p.jobs_pending()));
  line("Last pass: jobs considered", std::to_string(p.jobs_considered()));
  line("Last pass: jobs dispatched", std::to_string(p.dispatched()));
  line("Last pass: jobs reserving", std::to_string(p.reserved()));
  line("Last pass: jobs preempted", std::to_string(p.preempted()));
  line("Last pass: requirement classes", std::to_string(p.classes()));
  line("Last pass: host matches", std::to_string(p.host_matches()));
  line("Event log records written", std::to_string(p.log_records()));
  line("Event log syncs (p99)", std::to_string(p.log_syncs()) + " (" + ms(p.log_sync_p99_ms()) + " ms)");
  line("Event log size", std::to_string(p.log_bytes()) + " bytes");
  line("Last snapshot",
       p.snapshot_age_s() < 0 ? std::string("none since start") : std::to_string(p.snapshot_age_s()) + " s ago");
  line("sbatchds registered", std::to_string(p.sbatchds()));
  line("Open connections", std::to_string(p.connections()));
  line("Resident memory", megabytes(p.resident_bytes()));
  line("Metrics endpoint", metrics);
  if (p.requests_size() > 0) {
    std::printf("\n%-24s %10s %10s %10s %10s\n", "REQUEST", "COUNT", "P50_MS", "P99_MS", "MAX_MS");
    for (const auto& r : p.requests())
      std::printf("%-24s %10llu %10.3f %10.3f %10.3f\n", r.name().c_str(), static_cast<unsigned long long>(r.count()),
                  r.p50_ms(), r.p99_ms(), r.max_ms());
  }
  return 0;
}

}  // namespace lsf::cli
