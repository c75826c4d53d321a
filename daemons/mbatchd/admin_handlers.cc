// The administrators' requests mbatchd serves itself: badmin hclose/hopen, badmin
// qopen/qclose/qact/qinact (a queue's ADMINISTRATORS too, for their queue), badmin
// reconfig and mbdrestart. Each change is recorded and answered once durable; the job
// requests are JobService's (job_service.h).
#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"

namespace lsf::mbd {

void Mbatchd::on_host_control(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.host_control();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_control();
  out->set_all_ok(true);
  std::vector<std::string> hosts(q.hosts().begin(), q.hosts().end());
  if (hosts.empty())
    for (const auto& h : config_->hosts) hosts.push_back(h.name);
  const bool close = q.op() == wire::CONTROL_CLOSE;
  // A borrowed host (host@cluster) is closed and opened for this cluster's jobs only;
  // the provider and its other consumers go on using it.
  const auto borrowed = cluster_links_.borrowed_hosts();
  for (const auto& name : hosts) {
    if (!config_->find_host(name) && !borrowed.count(name)) {
      out->add_lines(name + ": Bad host name, host group name or cluster name");
      out->set_all_ok(false);
      continue;
    }
    wire::EventRecord ev;
    auto* e = ev.mutable_host_ctrl();
    e->set_host(name);
    e->set_op(close ? wire::CONTROL_CLOSE : wire::CONTROL_OPEN);
    e->set_user(request.caller().user_name());
    e->set_comment(q.comment());
    sink_.record(ev);
    log_->info("host {} {} by {}", name, close ? "closed" : "opened", request.caller().user_name());
    out->add_lines(std::string(close ? "Close" : "Open") + " <" + name + "> ...... done");
  }
  scheduling_.request_pass();
  sink_.reply_when_durable(respond, std::move(reply));
}

void Mbatchd::on_queue_control(const wire::RequestEnvelope& request, const net::Responder& respond) {
  const auto& q = request.queue_control();
  auto reply = net::ok_reply();
  auto* out = reply.mutable_control();
  out->set_all_ok(true);
  std::vector<std::string> queues(q.queues().begin(), q.queues().end());
  if (queues.empty())
    for (const auto& cq : config_->queues) queues.push_back(cq.name);
  const char* verb = q.op() == wire::CONTROL_OPEN       ? "opened"
                     : q.op() == wire::CONTROL_CLOSE    ? "closed"
                     : q.op() == wire::CONTROL_ACTIVATE ? "activated"
                                                        : "inactivated";
  for (const auto& name : queues) {
    if (!config_->find_queue(name)) {
      out->add_lines("Queue <" + name + ">: No such queue");
      out->set_all_ok(false);
      continue;
    }
    if (!permissions_.is_queue_admin(request.caller(), name)) {
      out->add_lines("Queue <" + name + ">: User permission denied");
      out->set_all_ok(false);
      continue;
    }
    wire::EventRecord ev;
    auto* e = ev.mutable_queue_ctrl();
    e->set_queue(name);
    e->set_op(q.op());
    e->set_user(request.caller().user_name());
    sink_.record(ev);
    log_->info("queue {} {} by {}", name, verb, request.caller().user_name());
    out->add_lines("Queue <" + name + "> is " + verb);
  }
  scheduling_.request_pass();
  sink_.reply_when_durable(respond, std::move(reply));
}

void Mbatchd::on_reconfig(const wire::RequestEnvelope& request, const net::Responder& respond) {
  config::LoadOptions lo;
  lo.envdir = options_.envdir;
  lo.now = config::local_week_instant();
  auto result = config::load_cluster_config(lo);
  auto reply = net::ok_reply();
  auto* out = reply.mutable_reconfig();
  for (const auto& d : result.diagnostics.items()) {
    if (d.severity == config::Severity::kError)
      out->add_errors(d.to_string());
    else
      out->add_warnings(d.to_string());
  }
  if (!result.usable()) {
    log_->warn("reconfig by {} refused: {} error(s); the running configuration is kept", request.caller().user_name(),
               result.diagnostics.error_count());
    return respond(reply);
  }
  if (request.reconfig().restart()) {
    // badmin mbdrestart: the new process reads the configuration and replays the log.
    out->set_applied(true);
    log_->info("mbatchd restart requested by {}", request.caller().user_name());
    if (auto to = switch_back_target(); !to.empty()) {
      lifecycle_.hand_over();
      reply.set_message("the master role goes back to " + to + ", the first master candidate that is up");
      log_->info("handing the master role back to {}", to);
    } else {
      lifecycle_.restart();
    }
    respond(reply);
    stop();
    return;
  }
  if (result.config->cluster_name != config_->cluster_name) {
    out->add_errors("the cluster name changed from " + config_->cluster_name + " to " + result.config->cluster_name +
                    "; restart mbatchd instead");
    return respond(reply);
  }
  config_ = result.config;
  config_index_ = index_config(*config_);
  permissions_ = Permissions(*config_, config_index_);
  scheduling_.reconfigured();
  ++config_generation_;
  state_.sync_config(*config_, config_index_.policy);
  out->set_applied(true);
  last_reconfig_time_ = now();
  log_->info("reconfig by {}: new configuration applied", request.caller().user_name());
  respond(reply);
  // Exports may have changed: leased slots, offers and withdrawals follow now.
  cluster_links_.update_lent_slots();
  cluster_links_.offer_to_consumers();
  scheduling_.request_pass();
}

}  // namespace lsf::mbd
