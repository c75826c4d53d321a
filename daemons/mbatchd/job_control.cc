// JobService's control of jobs: bkill, bstop, bresume and bkill -s (signals to the
// job's host and the state changes they mean), btop and bbot (a pending job's place
// in its queue) and brun (a pending job started now, past every policy).
#include <algorithm>
#include <csignal>
#include <map>

#include "daemons/mbatchd/job_groups.h"
#include "daemons/mbatchd/job_service.h"
#include "libconfig/text.h"
#include "libsched/pending_reason.h"

namespace lsf::mbd {
namespace {

int signal_number(const std::string& name) {
  static const std::pair<const char*, int> names[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"KILL", SIGKILL}, {"USR1", SIGUSR1},
      {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"STOP", SIGSTOP}, {"CONT", SIGCONT}, {"TSTP", SIGTSTP},
      {"ALRM", SIGALRM}, {"ABRT", SIGABRT}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"WINCH", SIGWINCH}};
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::toupper(c); });
  if (n.rfind("SIG", 0) == 0) n = n.substr(3);
  for (auto [s, v] : names)
    if (n == s) return v;
  if (auto v = config::parse_int(n); v && *v > 0 && *v < 65) return static_cast<int>(*v);
  return -1;
}

}  // namespace

void JobService::on_signal_jobs(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.signal_jobs();
  const auto& caller = request.caller();
  int sig = 0;
  if (q.action() == wire::JOB_ACTION_SIGNAL) {
    sig = signal_number(q.signal_name());
    if (sig < 0) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, q.signal_name() + ": Bad signal name"));
  }
  auto reply = net::ok_reply();
  auto* out = reply.mutable_signal_jobs();
  auto add_result = [&](const sched::JobKey& key, bool ok, const std::string& message) {
    auto* r = out->add_results();
    r->mutable_job()->set_job_id(key.id);
    r->mutable_job()->set_index(key.index);
    r->set_ok(ok);
    r->set_message(message);
  };
  // bkill 0: every unfinished job of the user (or of everyone for -u all).
  if (!q.job_group().empty() && !ctx_.state.job_groups().count(q.job_group()))
    return respond(net::error_reply(wire::STATUS_NOT_FOUND, "Job group <" + q.job_group() + "> does not exist"));
  std::vector<Job*> targets = named_jobs(q.jobs(), q.user().empty() ? caller.user_name() : q.user(), out);
  // -g: only the jobs of that group and the groups below it.
  if (!q.job_group().empty())
    std::erase_if(targets, [&](const Job* j) { return !in_job_group(j->spec().job_group(), q.job_group()); });
  if (targets.empty() && q.jobs_size() > 0 && out->results_size() == 0) {
    auto* r = out->add_results();
    r->set_ok(false);
    r->set_message("No unfinished job found");
  }
  bool changed = false;
  for (Job* job : targets) {
    const std::string label = "Job <" + job_label(job->key) + ">";
    const bool admin = permissions_.acts_as_admin(caller, *job);
    if (!admin && job->user() != caller.user_name()) {
      add_result(job->key, false, label + ": User permission denied");
      continue;
    }
    if (job->finished()) {
      add_result(job->key, false, label + ": Job has already finished");
      continue;
    }
    // An administrator acting on another user's job is named as such in its reasons.
    const bool by_admin = admin && job->user() != caller.user_name();
    ActionOutcome o;
    switch (q.action()) {
      case wire::JOB_ACTION_KILL:
        o = kill_job(*job, q.remove(), by_admin);
        break;
      case wire::JOB_ACTION_STOP:
        o = stop_job(*job, by_admin);
        break;
      case wire::JOB_ACTION_RESUME:
        o = resume_job(*job);
        break;
      case wire::JOB_ACTION_SIGNAL:
        o = signal_job(*job, sig);
        break;
      default:
        return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "unknown job action"));
    }
    changed = changed || o.changed;
    add_result(job->key, o.ok, label + (o.ok ? " " : ": ") + o.message);
  }
  if (changed) hooks_.request_pass();
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

JobService::ActionOutcome JobService::kill_job(Job& job, bool remove, bool by_admin) {
  std::string reason = by_admin ? "TERM_ADMIN" : "TERM_OWNER";
  bool changed = false;
  if (job.pending()) {
    hooks_.finish_job(job, wire::JOB_EXIT, 0, 0, 0, reason);
    changed = true;
  } else if (remove) {
    // bkill -r: the job leaves the system now; its host is still told to kill it,
    // and whatever it reports later about the job is ignored.
    reason = by_admin ? "TERM_FORCE_ADMIN" : "TERM_FORCE_OWNER";
    hooks_.signal_on_host(job, SIGKILL, reason);
    hooks_.finish_job(job, wire::JOB_EXIT, SIGKILL, job.cpu_time, job.max_rss_kb, reason);
    changed = true;
  } else {
    // SIGINT, SIGTERM, then SIGKILL, so the job can clean up; -r above does not wait.
    hooks_.terminate_on_host(job, reason);
  }
  return {true, "is being terminated", changed};
}

JobService::ActionOutcome JobService::stop_job(Job& job, bool by_admin) {
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  if (job.state == wire::JOB_PEND) {
    st->set_state(wire::JOB_PSUSP);
  } else if (job.state == wire::JOB_RUN || job.state == wire::JOB_SSUSP) {
    st->set_state(wire::JOB_USUSP);
    st->set_reason(by_admin ? "The job was suspended by LSF admin or root" : "The job was suspended by user");
    hooks_.signal_on_host(job, SIGSTOP, {});
  } else {
    return {true, "is being stopped", false};  // stopped already
  }
  ctx_.sink.record(ev);
  return {true, "is being stopped", true};
}

JobService::ActionOutcome JobService::resume_job(Job& job) {
  if (job.state != wire::JOB_PSUSP && job.state != wire::JOB_USUSP) return {false, "Job is not suspended", false};
  wire::EventRecord ev;
  auto* st = ev.mutable_job_status();
  st->set_job_id(job.key.id);
  st->set_index(job.key.index);
  // A job its owner resumes goes to SSUSP: the system resumes it when the host's
  // load is within the scheduling thresholds, so a resume cannot overload a host.
  st->set_state(job.state == wire::JOB_PSUSP ? wire::JOB_PEND : wire::JOB_SSUSP);
  if (job.state == wire::JOB_USUSP) st->set_reason(sched::reason::kSuspResumeWait);
  ctx_.sink.record(ev);
  return {true, "is being resumed", true};
}

JobService::ActionOutcome JobService::signal_job(Job& job, int sig) {
  if (job.pending()) return {false, "Job has not started yet", false};
  hooks_.signal_on_host(job, sig, sig == SIGKILL ? "TERM_OWNER" : "");
  return {true, "is being signaled", false};
}

// btop / bbot: the job takes the given position among its queue's pending jobs,
// counted from the top or the bottom. Users move their own jobs; administrators any.
void JobService::on_job_move(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.job_move();
  const auto& caller = request.caller();
  sched::JobKey key{q.job().job_id(), q.job().index()};
  Job* job = ctx_.state.find_job(key);
  if (!job && key.index == 0) {
    auto elements = ctx_.state.elements(key.id);
    if (!elements.empty()) job = ctx_.state.find_job(elements.front()->key);
  }
  const std::string label = "Job <" + job_label(key) + ">";
  if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, label + ": No matching job found"));
  if (!permissions_.may_control(caller, *job))
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, label + ": User permission denied"));
  if (!job->pending()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": Job has already started"));
  const int n = std::max(1, q.position());
  auto reply = net::ok_reply();
  reply.mutable_job_move()->set_message(label + " has been moved to position " + std::to_string(n) + " from " +
                                        (q.top() ? "top." : "bottom."));
  auto move = [&](std::int64_t id, std::int64_t position) {
    for (const Job* e : ctx_.state.elements(id)) {  // every element of an array moves together
      if (!e->pending() || e->position == position) continue;
      wire::EventRecord ev;
      auto* m = ev.mutable_job_move();
      m->set_job_id(e->key.id);
      m->set_index(e->key.index);
      m->set_position(position);
      ctx_.sink.record(ev);
    }
  };
  if (!permissions_.acts_as_admin(caller, *job)) {
    // A user reorders only their own jobs, as LSF: they swap the places their jobs
    // already hold in the queue, so no one else's job moves back.
    std::map<std::int64_t, std::int64_t> place;  // job id -> its first place
    for (const auto& [k, j] : ctx_.state.pending()) {
      if (j->queue != job->queue || j->user() != job->user()) continue;
      auto [it, fresh] = place.emplace(j->key.id, j->position);
      if (!fresh) it->second = std::min(it->second, j->position);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> order(place.begin(), place.end());  // (id, place)
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    std::vector<std::int64_t> places, ids;
    for (const auto& [id, at] : order) {
      places.push_back(at);
      if (id != job->key.id) ids.push_back(id);
    }
    const size_t at = std::min<size_t>(static_cast<size_t>(n - 1), ids.size());
    ids.insert(q.top() ? ids.begin() + static_cast<long>(at) : ids.end() - static_cast<long>(at), job->key.id);
    for (size_t i = 0; i < ids.size(); ++i) move(ids[i], places[i]);
    hooks_.request_pass();
    return ctx_.sink.reply_when_durable(respond, std::move(reply));
  }

  // The queue's other pending jobs in their current order.
  std::vector<const Job*> others;
  for (const auto& [k, j] : ctx_.state.pending())
    if (j->queue == job->queue && j->key.id != job->key.id) others.push_back(j);
  std::sort(others.begin(), others.end(), [](const Job* a, const Job* b) {
    return a->position != b->position ? a->position < b->position : a->key < b->key;
  });
  std::int64_t position;
  if (others.empty()) {
    position = job->position;
  } else if (q.top()) {
    size_t at = std::min<size_t>(n - 1, others.size());
    position = at == 0 ? others.front()->position - 1 : others[at - 1]->position;
  } else {
    size_t at = std::min<size_t>(n - 1, others.size());
    position = at == 0 ? others.back()->position + 1 : others[others.size() - at]->position;
  }
  move(job->key.id, position);
  hooks_.request_pass();
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

// brun: start a pending job now on the named hosts, past every scheduling policy.
// Administrators only. Slots go as `host#n` says, else all on the first host.
void JobService::on_force_run(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.force_run();
  const auto& caller = request.caller();
  sched::JobKey key{q.job().job_id(), q.job().index()};
  const std::string label = "Job <" + job_label(key) + ">";
  Job* job = ctx_.state.find_job(key);
  if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, label + ": No matching job found"));
  if (job->state != wire::JOB_PEND)
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + (job->finished() ? ": Job has already finished"
                                                                                       : ": Job has already started")));
  std::vector<std::string> hosts;
  for (const auto& item : q.hosts()) {
    auto hash = item.find('#');
    std::string name = item.substr(0, hash);
    int n = 0;
    if (hash != std::string::npos) {
      try {
        n = std::stoi(item.substr(hash + 1));
      } catch (...) {
        n = 0;
      }
      if (n < 1) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, item + ": Bad number of processors"));
    }
    if (!ctx_.conf().find_host(name))
      return respond(
          net::error_reply(wire::STATUS_BAD_REQUEST, name + ": Bad host name, host group name or cluster name"));
    if (unreachable(hooks_.status_of(name)))
      return respond(net::error_reply(wire::STATUS_BAD_REQUEST, name + ": Host is not available"));
    for (int i = 0; i < n; ++i) hosts.push_back(name);
  }
  if (q.hosts().empty()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, "brun: -m host is required"));
  int slots = job->slots();
  if (hosts.empty()) hosts.assign(slots, q.hosts(0).substr(0, q.hosts(0).find('#')));
  if (static_cast<int>(hosts.size()) < slots)
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": Too few processors specified for the job"));
  hosts.resize(slots);

  wire::EventRecord ev;
  auto* e = ev.mutable_job_start();
  e->set_job_id(key.id);
  e->set_index(key.index);
  for (const auto& h : hosts) e->add_exec_hosts(h);
  e->set_forced(q.force());
  ctx_.sink.record(ev);
  ctx_.log->info("job {} forced to run on {} by {}", job_label(key), hosts.front(), caller.user_name());
  hooks_.when_durable([this, key](bool ok) {
    if (ok) hooks_.start_on_hosts({key});
  });
  auto reply = net::ok_reply();
  reply.mutable_force_run()->set_message(label + " is being forced to run.");
  ctx_.sink.reply_when_durable(respond, std::move(reply));
}

}  // namespace lsf::mbd
