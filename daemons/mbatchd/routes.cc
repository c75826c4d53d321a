// mbatchd's request table: every request type it serves, the handler, who may send it
// and whether it changes state (router.h states the rules). Who may act on the job or
// queue a request names is the other half of the rules, written once in permissions.h.
#include <unistd.h>

#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/mbatchd.h"
#include "daemons/mbatchd/router.h"
#include "libconfig/failover_params.h"

namespace lsf::mbd {

std::unique_ptr<RequestRouter> Mbatchd::make_router() {
  RouterHooks hooks;
  hooks.is_admin = [this](const wire::Identity& caller) { return permissions_.is_admin(caller); };
  hooks.log_refusal = [this] { return sink_.refusal(); };
  hooks.hold = [this] { log_core_.writer().hold(); };
  hooks.release = [this] { log_core_.writer().release(); };
  auto router = std::make_unique<RequestRouter>(log_, std::move(hooks));

  using R = wire::RequestEnvelope;
  using Peer = net::Peer;
  using Respond = net::Responder;
  using Handler = void (Mbatchd::*)(const R&, const Respond&);
  using PeerHandler = void (Mbatchd::*)(const R&, const Peer&, const Respond&);
  auto add = [&](R::RequestCase kind, Sender sender, bool changes, Handler h) {
    Route route;
    route.sender = sender;
    route.changes_state = changes;
    route.handler = [this, h](const R& r, const Peer&, const Respond& respond) { (this->*h)(r, respond); };
    router->add(kind, std::move(route));
  };
  auto add_peer = [&](R::RequestCase kind, Sender sender, bool changes, PeerHandler h) {
    Route route;
    route.sender = sender;
    route.changes_state = changes;
    route.handler = [this, h](const R& r, const Peer& p, const Respond& respond) { (this->*h)(r, p, respond); };
    router->add(kind, std::move(route));
  };
  constexpr bool kChanges = true, kReads = false;
  const auto anyone = Sender::kAnyone, admin = Sender::kAdmin, daemon = Sender::kDaemon;

  Route ping;
  ping.handler = [this](const R&, const Peer&, const Respond& respond) {
    auto reply = net::ok_reply();
    reply.mutable_ping()->set_cluster_name(config_->cluster_name);
    reply.mutable_ping()->set_master_name(options_.host_name);
    respond(reply);
  };
  router->add(R::kPing, std::move(ping));
  Route cluster_info;
  cluster_info.handler = [this](const R&, const Peer&, const Respond& respond) {
    auto reply = net::ok_reply();
    auto* c = reply.mutable_cluster_info();
    c->set_cluster_name(config_->cluster_name);
    c->set_master_name(options_.host_name);
    c->set_version(LSFSCHED_VERSION);
    c->set_mbatchd_pid(static_cast<int>(getpid()));
    c->set_mbatchd_start_time(start_wall_time_);
    c->set_last_reconfig_time(last_reconfig_time_);
    for (const auto& h : config::master_candidates(*config_)) c->add_master_candidates(h);
    if (options_.role) {
      c->set_master_epoch(options_.role->epoch());
      c->set_master_since(start_wall_time_);
    }
    c->set_event_log(event_log_dirs(*config_, options_.host_name).primary.string());
    if (event_log_) {
      const ReplicaState r = event_log_->replica_state();
      c->set_event_log_replica(r.dir.string());
      c->set_replica_behind_since(r.behind_since);
      c->set_replica_behind_cause(r.cause);
    }
    respond(reply);
  };
  router->add(R::kClusterInfo, std::move(cluster_info));

  // Jobs: submission and control, served by job_service_ (job_service.h). Who may act
  // on which job (its owner, an administrator, its queue's ADMINISTRATORS) is decided
  // per job (permissions.h).
  using JobHandler = void (JobService::*)(const R&, const Respond&);
  auto add_job = [&](R::RequestCase kind, Sender sender, JobHandler h) {
    Route route;
    route.sender = sender;
    route.changes_state = kChanges;
    route.handler = [this, h](const R& r, const Peer&, const Respond& respond) { (job_service_.*h)(r, respond); };
    router->add(kind, std::move(route));
  };
  add_job(R::kSubmit, anyone, &JobService::on_submit);
  add_job(R::kSubmitPack, anyone, &JobService::on_submit_pack);
  add(R::kJobInput, anyone, kReads, &Mbatchd::on_job_input);
  add_job(R::kSignalJobs, anyone, &JobService::on_signal_jobs);
  add_job(R::kJobMove, anyone, &JobService::on_job_move);
  add_job(R::kRequeue, anyone, &JobService::on_requeue);
  add_job(R::kSwitchQueue, anyone, &JobService::on_switch);
  add_job(R::kModify, anyone, &JobService::on_modify);
  add_job(R::kMigrate, anyone, &JobService::on_migrate);
  add(R::kJobGroupControl, anyone, kChanges, &Mbatchd::on_job_group_control);
  {
    Route force_run;
    force_run.sender = admin;
    force_run.changes_state = kChanges;
    force_run.handler = [this](const R& r, const Peer&, const Respond& respond) {
      job_service_.on_force_run(r, respond);
    };
    force_run.denied_prefix = [](const R& r) {
      return "Job <" + job_label({r.force_run().job().job_id(), r.force_run().job().index()}) + ">: ";
    };
    router->add(R::kForceRun, std::move(force_run));
  }
  // Hosts, queues and the daemon: administrators (a queue's ADMINISTRATORS too, for
  // their queue, which on_queue_control decides queue by queue).
  add(R::kHostControl, admin, kChanges, &Mbatchd::on_host_control);
  add(R::kQueueControl, anyone, kChanges, &Mbatchd::on_queue_control);
  add(R::kReconfig, admin, kReads, &Mbatchd::on_reconfig);
  // Queries.
  // job_queries_ and config_queries_ answer from the state alone (job_queries.h,
  // config_queries.h).
  auto add_query = [&](R::RequestCase kind, std::function<wire::ReplyEnvelope(const R&)> query) {
    Route route;
    route.handler = [query](const R& r, const Peer&, const Respond& respond) { respond(query(r)); };
    router->add(kind, std::move(route));
  };
  add_query(R::kJobs, [this](const R& r) { return job_queries_.jobs(r); });
  add_query(R::kQueues, [this](const R& r) { return config_queries_.queues(r); });
  add_query(R::kHosts, [this](const R& r) { return config_queries_.hosts(r); });
  add_query(R::kPerfmon, [this](const R& r) {
    auto reply = config_queries_.perfmon(r);
    fill_health(*reply.mutable_perfmon());
    return reply;
  });
  add_query(R::kConfigInfo, [this](const R& r) { return config_queries_.config_info(r); });
  add_query(R::kUsers, [this](const R& r) { return config_queries_.users(r); });
  add_query(R::kHostPartitions, [this](const R& r) { return config_queries_.host_partitions(r); });
  add_query(R::kGuaranteePools, [this](const R& r) { return config_queries_.guarantee_pools(r); });
  add_query(R::kApplications, [this](const R& r) { return config_queries_.applications(r); });
  add(R::kJobGroups, anyone, kReads, &Mbatchd::on_job_groups);
  add(R::kPeek, anyone, kReads, &Mbatchd::on_peek);
  add_query(R::kWaitCondition, [this](const R& r) { return job_queries_.wait_condition(r); });
  {
    Route history, acct;
    history.handler = [this](const R& r, const Peer&, const Respond& respond) { respond(queries_.history(r)); };
    acct.handler = [this](const R& r, const Peer&, const Respond& respond) { respond(queries_.acct(r)); };
    router->add(R::kHistory, std::move(history));
    router->add(R::kAcct, std::move(acct));
  }
  add_query(R::kLimits, [this](const R& r) { return config_queries_.limits(r); });
  add_query(R::kSharedResources, [this](const R& r) { return config_queries_.shared_resources(r); });
  // MultiCluster (cluster_links.h): bhosts -e and bclusters for anyone; offers and
  // relays only from another cluster's mbatchd.
  {
    Route exports, clusters, offer, relay;
    exports.handler = [this](const R& r, const Peer&, const Respond& respond) {
      cluster_links_.on_exports(r, respond);
    };
    clusters.handler = [this](const R& r, const Peer&, const Respond& respond) {
      cluster_links_.on_clusters(r, respond);
    };
    offer.sender = relay.sender = Sender::kCluster;
    offer.handler = [this](const R& r, const Peer& p, const Respond& respond) {
      cluster_links_.on_lease_offer(r, p, respond);
    };
    relay.handler = [this](const R& r, const Peer& p, const Respond& respond) {
      cluster_links_.on_lease_relay(r, p, respond);
    };
    router->add(R::kExports, std::move(exports));
    router->add(R::kClusters, std::move(clusters));
    router->add(R::kLeaseOffer, std::move(offer));
    router->add(R::kLeaseRelay, std::move(relay));
  }
  // sbatchds. Registration and load reports are not refused on a full disk (a host
  // would look down); their few records go into the log's reserve.
  {
    Route register_host, load_report;
    register_host.sender = load_report.sender = daemon;
    register_host.handler = [this](const R& r, const Peer& p, const Respond& respond) {
      hosts_.on_register_host(r, p, respond);
    };
    load_report.handler = [this](const R& r, const Peer&, const Respond& respond) {
      hosts_.on_load_report(r, respond);
    };
    router->add(R::kRegisterHost, std::move(register_host));
    router->add(R::kLoadReport, std::move(load_report));
  }
  add_peer(R::kJobStatus, Sender::kDaemonOrCluster, kChanges, &Mbatchd::on_job_status);
  add_peer(R::kJobStatusBatch, Sender::kDaemonOrCluster, kChanges, &Mbatchd::on_job_status);
  return router;
}

void Mbatchd::handle(wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond) {
  state_thread_.check("mbatchd's state (a request)");
  const int kind = request.request_case();
  const auto began = std::chrono::steady_clock::now();
  router_->dispatch(request, peer, [this, kind, began, respond](wire::ReplyEnvelope reply) {
    request_stats_.observe(kind, std::chrono::steady_clock::now() - began);
    respond(std::move(reply));
  });
}

}  // namespace lsf::mbd
