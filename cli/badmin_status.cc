// badmin mbdrestart, hist and showstatus: restarting mbatchd, the history of queue,
// host and mbatchd events, and a summary of the cluster as mbatchd sees it.
#include "cli/badmin_status.h"

#include <iostream>
#include <map>

#include "cli/cli_support.h"

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
  if (!args.empty()) {
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
                   info.last_reconfig_time() > 0 ? long_time(info.last_reconfig_time()) : std::string("-"));
  return 0;
}

}  // namespace lsf::cli
