// bpeek and the keystrokes of bsub -Ip/-Is: the two queries answered by a job's host,
// which mbatchd calls. The queries it answers itself are ConfigQueries's
// (config_queries.h) and JobQueries's (job_queries.h).
#include "daemons/mbatchd/mbatchd.h"
#include "daemons/mbatchd/peek_reply.h"

namespace lsf::mbd {

void Mbatchd::on_peek(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.peek();
  const auto& caller = request.caller();
  const Job* job = nullptr;
  if (q.job().job_id() == 0) {
    // No job given: the caller's most recently submitted started job, as LSF.
    for (const auto& [key, started] : state_.started())
      if (started->user() == caller.user_name() && (!job || key.id >= job->key.id)) job = started;
    if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, "No unfinished job found"));
  } else if (q.job().index() > 0) {
    job = state_.find_job({q.job().job_id(), q.job().index()});
  } else {
    // An array without an element: its first started element, else its first.
    for (const Job* e : state_.elements(q.job().job_id()))
      if (!job || (e->started() && !e->finished() && !(job->started() && !job->finished()))) job = e;
  }
  if (!job) {
    return respond(net::error_reply(
        wire::STATUS_NOT_FOUND, "Job <" + job_label({q.job().job_id(), q.job().index()}) + ">: No matching job found"));
  }
  const std::string label = "Job <" + job_label(job->key) + ">";
  if (!permissions_.may_control(caller, *job))
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, label + ": User permission denied"));
  if (job->pending()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + " : Not yet started."));
  // An interactive job's host keeps its output a while after the end, for bsub -I.
  if ((job->finished() && !job->spec().interactive()) || job->exec_hosts.empty()) {
    auto reply = net::ok_reply();
    reply.mutable_peek()->set_finished(true);
    reply.mutable_peek()->set_next_offset(q.offset());
    return respond(reply);
  }
  wire::RequestEnvelope ask;
  auto* p = ask.mutable_peek();
  p->mutable_job()->set_job_id(job->key.id);
  p->mutable_job()->set_index(job->key.index);
  p->set_offset(q.offset());
  const bool finished_when_asked = job->finished();
  const std::int64_t offset = q.offset();
  hosts_.call_host(job->exec_hosts.front(), std::move(ask),
                   [respond, label, finished_when_asked, offset](const net::CallResult& r) {
                     respond(peek_reply_from_host(r, finished_when_asked, offset, label));
                   });
}

// bsub -Ip/-Is: the owner's keystrokes, for the job's terminal on its first host.
void Mbatchd::on_job_input(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.job_input();
  const sched::JobKey key{q.job().job_id(), q.job().index()};
  const std::string label = "Job <" + job_label(key) + ">";
  const Job* job = state_.find_job(key);
  if (!job) return respond(net::error_reply(wire::STATUS_NOT_FOUND, label + ": No matching job found"));
  // Only the owner types into a job's terminal.
  if (job->user() != request.caller().user_name())
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, label + ": User permission denied"));
  if (!job->spec().pty()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": not a terminal job"));
  if (job->pending()) return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + " : Not yet started."));
  if (job->finished() || job->exec_hosts.empty())
    return respond(net::error_reply(wire::STATUS_BAD_REQUEST, label + ": Job has already finished"));
  wire::RequestEnvelope ask;
  *ask.mutable_job_input() = q;
  hosts_.call_host(job->exec_hosts.front(), std::move(ask), [respond](const net::CallResult& r) {
    if (r.reply) return respond(*r.reply);
    respond(net::error_reply(wire::STATUS_UNAVAILABLE, r.message()));
  });
}

}  // namespace lsf::mbd
