// Job groups: bgadd, bgdel, bgmod, bjgroup, and the groups bsub -g and bmod -g create
// on the way. A group is a path ("/risk/portfolio1"); the groups above it exist too.
// Changes go through the event log (JOB_GROUP records) and snapshots, so groups and
// their limits survive a restart as LSF's do.
#include <algorithm>
#include <array>

#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {
namespace {

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 ? std::string() : path.substr(0, slash);
}

}  // namespace

bool in_job_group(const std::string& job_group, const std::string& path) {
  return job_group == path ||
         (job_group.size() > path.size() && job_group.starts_with(path) && job_group[path.size()] == '/');
}

daemon::Status check_job_group_path(const std::string& path) {
  auto bad = [&](const std::string& why) { return "Bad job group name <" + path + ">: " + why; };
  if (path.empty() || path[0] != '/') return daemon::fail(bad("a job group is a full path from /"));
  if (path == "/") return daemon::fail(bad("the root group takes no jobs or limits here"));
  if (path.back() == '/') return daemon::fail(bad("no trailing /"));
  for (size_t at = 1; at < path.size(); ++at) {
    char c = path[at];
    if (c == '/' && path[at - 1] == '/') return daemon::fail(bad("empty path component"));
    if (c != '/' && !std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return daemon::fail(bad("letters, digits, _ - and . only"));
  }
  return {};
}

void Mbatchd::ensure_job_group(const std::string& path, const std::string& user) {
  std::vector<std::string> missing;
  for (std::string at = path; !at.empty() && !state_.job_groups().count(at); at = parent_of(at)) missing.push_back(at);
  // Parents first, so a replay adds them in the same order.
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    wire::EventRecord ev;
    auto* e = ev.mutable_job_group();
    e->set_path(*it);
    e->set_op(wire::JGRP_ADD);
    e->set_user(user);
    e->set_limit(-1);
    sink_.record(ev);
  }
}

// bgadd, bgdel, bgmod. Anyone may add a group; its owner, the owner of a group above
// it, or an LSF administrator may change or delete it.
void Mbatchd::on_job_group_control(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.job_group_control();
  const std::string& path = q.path();
  const std::string& user = request.caller().user_name();
  auto refuse = [&](wire::StatusCode status, const std::string& why) { respond(net::error_reply(status, why)); };
  if (auto st = check_job_group_path(path); !st.ok()) return refuse(wire::STATUS_BAD_REQUEST, st.message());
  const auto& groups = state_.job_groups();
  auto it = groups.find(path);
  // The limits above and below a group bound what it may be given (LSF's bgadd/bgmod).
  auto check_limit = [&](int limit) -> daemon::Status {
    if (limit < 0) return {};
    for (std::string up = parent_of(path); !up.empty(); up = parent_of(up))
      if (auto g = groups.find(up); g != groups.end() && g->second.limit >= 0 && limit > g->second.limit)
        return daemon::fail("Job group <" + path + ">: limit " + std::to_string(limit) + " exceeds the limit " +
                            std::to_string(g->second.limit) + " of <" + up + ">");
    for (const auto& [p, g] : groups)
      if (p != path && in_job_group(p, path) && g.limit > limit)
        return daemon::fail("Job group <" + path + ">: limit " + std::to_string(limit) + " is below the limit " +
                            std::to_string(g.limit) + " of <" + p + ">");
    return {};
  };
  auto may_change = [&]() {
    if (permissions_.is_admin(request.caller())) return true;
    for (std::string at = path; !at.empty(); at = parent_of(at))
      if (auto g = groups.find(at); g != groups.end() && g->second.owner == user) return true;
    return false;
  };
  wire::EventRecord ev;
  auto* e = ev.mutable_job_group();
  e->set_path(path);
  e->set_op(q.op());
  e->set_user(user);
  e->set_limit(q.limit() < 0 ? -1 : q.limit());
  switch (q.op()) {
    case wire::JGRP_ADD:
      if (it != groups.end()) return refuse(wire::STATUS_BAD_REQUEST, "Job group <" + path + "> already exists");
      if (auto fits = check_limit(e->limit()); !fits) return refuse(wire::STATUS_BAD_REQUEST, fits.message());
      ensure_job_group(parent_of(path), user);
      break;
    case wire::JGRP_MOD:
      if (it == groups.end()) return refuse(wire::STATUS_NOT_FOUND, "Job group <" + path + "> does not exist");
      if (!may_change()) return refuse(wire::STATUS_PERMISSION_DENIED, "User permission denied");
      if (auto fits = check_limit(e->limit()); !fits) return refuse(wire::STATUS_BAD_REQUEST, fits.message());
      break;
    case wire::JGRP_DEL:
      if (it == groups.end()) return refuse(wire::STATUS_NOT_FOUND, "Job group <" + path + "> does not exist");
      if (!may_change()) return refuse(wire::STATUS_PERMISSION_DENIED, "User permission denied");
      for (const auto& [key, job] : state_.jobs())
        if (!job.finished() && in_job_group(job.spec().job_group(), path))
          return refuse(wire::STATUS_BAD_REQUEST,
                        "Job group <" + path + "> cannot be deleted: it or a group below it has unfinished jobs");
      break;
    default:
      return refuse(wire::STATUS_BAD_REQUEST, "unknown job group operation");
  }
  sink_.record(ev);
  log_->info("job group {} {} by {}", path, wire::JobGroupOp_Name(q.op()), user);
  scheduling_.request_pass();
  sink_.reply_when_durable(respond, net::ok_reply());
}

// bjgroup: each group with its jobs and its subgroups' (finished jobs still known
// count as FINISH), and the started jobs its limit counts.
void Mbatchd::on_job_groups(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& paths = request.job_groups().paths();
  const auto& groups = state_.job_groups();
  for (const auto& p : paths)
    if (!groups.count(p))
      return respond(net::error_reply(wire::STATUS_NOT_FOUND, "Job group <" + p + "> does not exist"));
  // Counts per group of its own jobs, then added up the tree.
  struct Counts {
    std::array<int, 4> jobs{}, slots{};  // PEND (PSUSP too), RUN, SSUSP, USUSP
    int finish = 0;
  };
  std::map<std::string, Counts> own;
  for (const auto& [key, job] : state_.jobs()) {
    const std::string& g = job.spec().job_group();
    if (g.empty()) continue;
    Counts& c = own[g];
    if (job.finished()) {
      ++c.finish;
      continue;
    }
    size_t at = job.pending() ? 0 : job.state == wire::JOB_RUN ? 1 : job.state == wire::JOB_SSUSP ? 2 : 3;
    ++c.jobs[at];
    c.slots[at] += job.started() ? static_cast<int>(job.exec_hosts.size()) : job.slots();
  }
  auto reply = net::ok_reply();
  auto* out = reply.mutable_job_groups();
  for (const auto& [path, group] : groups) {
    if (!paths.empty() &&
        std::none_of(paths.begin(), paths.end(), [&path = path](const auto& p) { return in_job_group(path, p); }))
      continue;
    Counts total;
    for (const auto& [g, c] : own) {
      if (!in_job_group(g, path)) continue;
      for (size_t i = 0; i < 4; ++i) {
        total.jobs[i] += c.jobs[i];
        total.slots[i] += c.slots[i];
      }
      total.finish += c.finish;
    }
    auto* info = out->add_groups();
    info->set_path(path);
    info->set_owner(group.owner);
    info->set_limit(group.limit);
    const bool by_slots = request.job_groups().slots();
    const auto& n = by_slots ? total.slots : total.jobs;
    info->set_pend(n[0]);
    info->set_run(n[1]);
    info->set_ssusp(n[2]);
    info->set_ususp(n[3]);
    info->set_njobs(n[0] + n[1] + n[2] + n[3]);
    info->set_finish(total.finish);
    info->set_started_jobs(total.jobs[1] + total.jobs[2] + total.jobs[3]);
  }
  respond(reply);
}

// Groups on the way to a limit, for the pass: each limited group and every group below
// one (a job's chain must reach its limited ancestors). Empty when no group has a limit.
void Mbatchd::add_job_groups(sched::ClusterView& view, std::unordered_map<std::string, int>& index) const {
  const auto& groups = state_.job_groups();
  std::vector<std::string> limited;
  for (const auto& [path, g] : groups)
    if (g.limit >= 0) limited.push_back(path);
  if (limited.empty()) return;
  for (const auto& [path, g] : groups) {
    if (std::none_of(limited.begin(), limited.end(), [&path = path](const auto& l) { return in_job_group(path, l); }))
      continue;
    sched::JobGroupView v;
    v.path = path;
    v.limit = g.limit;
    // The map sorts a parent before its children, so the parent has its index.
    for (std::string up = parent_of(path); !up.empty(); up = parent_of(up))
      if (auto p = index.find(up); p != index.end()) {
        v.parent = p->second;
        break;
      }
    index.emplace(path, static_cast<int>(view.job_groups.size()));
    view.job_groups.push_back(std::move(v));
  }
  for (const auto& [key, job] : state_.started())
    if (auto g = index.find(job->spec().job_group()); g != index.end())
      ++view.job_groups[static_cast<size_t>(g->second)].started;
}

}  // namespace lsf::mbd
