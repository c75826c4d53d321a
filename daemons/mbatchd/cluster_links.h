// ClusterLinks: MultiCluster resource leasing, mbatchd to mbatchd, as LSF's lease model
// has it. As a provider, this cluster plans what lsb.resources exports (HostExport,
// SharedResourceExport), offers each consumer its part every SBD_SLEEP_TIME, runs the
// consumers' jobs on its hosts under ids of its own, passes their reports back, and
// names the jobs that must go when it takes hosts back. As a consumer, it keeps each
// provider's last offer, schedules the hosts offered as `host@provider`, sends what it
// would send their sbatchds through the provider, and requeues the jobs a provider
// withdrew hosts from. Shared leases (TYPE=shared) move slots between the two sides
// every MC_RECLAIM_DELAY minutes.
//
// Reads: lsf.shared's clusters (their order gives lease ids; Servers, the address),
// RemoteClusters, lsb.resources' HostExport and SharedResourceExport, lsb.queues' remote
// hosts, MC_RECLAIM_DELAY; SBD_SLEEP_TIME through the hooks.
//
// Owns: the link to each other cluster (address, connection, its last offer), the
// consumers' jobs this cluster's sbatchds run, the slots consumers declare they hold,
// the slots of each host lent away, the shares of shared leases and each consumer's
// demand, the offers' timer and the cached policy with leased shared resources. None of
// it is logged: after a restart the sbatchds' registrations name the leased jobs again
// and the next round of offers brings the rest back.
// Thread: the state thread (the io_context). Calls to other clusters run on the outbound
// pool, one at a time and in order per cluster; their results come back to the
// io_context before they touch anything here.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemons/common/asio.h"
#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/host_status.h"
#include "libsched/mc/export_plan.h"
#include "libsched/pass.h"

namespace lsf::mbd {

// What ClusterLinks needs from the rest of mbatchd.
struct ClusterLinksHooks {
  // This cluster's hosts and running jobs, without pending jobs and with the
  // configuration's own shared resources: what the export plan is made from.
  std::function<sched::ClusterView()> view;
  // The scheduling policy of the configuration in force; a new object after a reconfig.
  std::function<std::shared_ptr<const sched::SchedPolicy>()> policy;
  std::function<HostStatus(const std::string& host)> status_of;  // one of this cluster's hosts
  std::function<int(const std::string& host)> max_slots;         // its MXJ; negative: none
  // Calls the sbatchd of one of this cluster's hosts; `done` runs on the state thread.
  std::function<void(const std::string& host, wire::RequestEnvelope request,
                     std::function<void(const net::CallResult&)> done)>
      call_host;
  // Kills the job (with `exit_reason`) and requeues it ahead of the waiting jobs once its
  // end is reported; false when it is already to be requeued so.
  std::function<bool(const Job& job, const std::string& exit_reason)> kill_and_requeue;
  // Sends again the signals that could not reach `host` (host@provider) before.
  std::function<void(const std::string& host)> resend_signals;
  std::function<void()> request_pass;
  // SBD_SLEEP_TIME: how often offers go out, and (times three) how long one is good for.
  std::function<std::chrono::milliseconds()> report_interval;
  // This mbatchd's port: another cluster's too, unless its Servers entry names one.
  std::function<std::uint16_t()> own_port;
};

// How calls to other clusters travel: signed with the key the pair shares, made on
// `outbound`, their results posted to `io`. All three outlive the ClusterLinks.
struct ClusterTransport {
  net::asio::io_context& io;
  net::asio::thread_pool& outbound;
  const std::map<std::string, net::ClusterKey>& pair_keys;
};

class ClusterLinks {
 public:
  ClusterLinks(ComponentContext ctx, ClusterLinksHooks hooks, ClusterTransport transport);

  // The first round of offers; then one every report interval.
  void start();

  // --- requests (routes.cc)
  void on_lease_offer(const wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  void on_lease_relay(const wire::RequestEnvelope& request, const net::Peer& peer, const net::Responder& respond);
  void on_clusters(const wire::RequestEnvelope& request, const net::Responder& respond);  // bclusters
  void on_exports(const wire::RequestEnvelope& request, const net::Responder& respond);   // bhosts -e

  // --- provider: offers and exports (cluster_links.cc, exports.cc)
  // Offers each consumer its part of the plan now (after a reconfig, a shared lease's move).
  void offer_to_consumers();
  // The export plan with the given consumers reached; without: those that answered.
  sched::mc::ExportPlan export_plan(const std::set<std::string, std::less<>>& reached) const;
  sched::mc::ExportPlan export_plan() const;
  // Works out again the slots of each host lent away: call when leased jobs or links change.
  void update_lent_slots();
  int lent_slots(const std::string& host) const;  // 0: none

  // --- provider: the consumers' jobs on this cluster's hosts (lease_jobs.cc)
  // A consumer's job id as this cluster's sbatchds know it; 0: unknown consumer.
  std::int64_t lease_job_id(const std::string& consumer, std::int64_t id) const;
  // The consumer and its job id behind a lease id; empty: none in lsf.shared.
  std::pair<std::string, std::int64_t> lease_job_owner(std::int64_t local_id) const;
  static bool is_lease_job_id(std::int64_t id);
  // A job a consumer runs on `host` (the first), as its sbatchd was sent it; `stopped`
  // as the sbatchd reports it (unset: as known before, else running).
  void add_leased_job(const std::string& consumer, const std::string& host, wire::JobLaunch launch,
                      std::optional<bool> stopped = std::nullopt);
  // Whether bjobs finds `ref` among the consumers' jobs: one with its id and an index
  // from `ref.index` up.
  bool is_leased_job(const sched::JobKey& ref) const;
  // The consumers' jobs on this cluster's hosts, for bjobs.
  void add_leased_jobs(const wire::JobsRequest& q, const std::string& user, wire::JobsReply& out) const;
  // Sends sbatchd reports on leased jobs to their consumers; `done` gets ok once all have
  // them, else why not.
  void forward_lease_reports(const std::vector<wire::JobStatusRequest>& reports,
                             std::function<void(daemon::Status)> done);
  // What consumers' running jobs hold of this cluster's hosts, job by job and host by
  // host: the jobs it started for them and the slots they declare besides.
  struct Holding {
    std::string consumer;
    std::string host;
    int slots = 0;
    std::int64_t start_time = 0;
    sched::JobKey job;  // the lease id
  };
  std::vector<Holding> holdings() const;
  // Jobs of `consumer` (by their lease ids) on more slots of a host than `plan` exports
  // to it: the most recently started first, as many as must go.
  std::vector<sched::JobKey> withdrawn_jobs(const std::string& consumer, const sched::mc::ExportPlan& plan) const;

  // --- consumer: hosts borrowed from providers (lease_jobs.cc)
  // The cluster `host` is borrowed from ("hostA@provider": "provider"); empty for our own.
  std::string borrowed_from(const std::string& host) const;
  // Hosts the providers offer now, by the name this cluster knows them by (host@provider).
  std::map<std::string, wire::OfferedHost> borrowed_hosts() const;
  // The borrowed hosts into the pass's view, with when each last got a job.
  void add_borrowed_hosts(sched::ClusterView& view, const std::map<std::string, std::int64_t>& last_dispatch) const;
  // A borrowed host's status by name, as its provider last offered it (a name this
  // cluster does not know is kept); unreach once the provider's offers stop.
  std::string borrowed_host_status(const std::string& host) const;
  // Sends what is meant for a borrowed host's sbatchd to its provider's mbatchd.
  void relay_to_provider(const std::string& host, wire::RequestEnvelope request,
                         std::function<void(const net::CallResult&)> done);
  // The slots its running jobs hold on `provider`'s hosts that the provider did not
  // start there (their first host is another).
  std::vector<wire::HeldSlots> held_on(const std::string& provider) const;

  // --- shared leases and shared resources (shared_leases.cc)
  // The slots a grant offers its consumer: all of them, or its share of a shared lease.
  int offered_slots(const sched::mc::HostGrant& g) const;
  int own_demand_for(const std::string& host) const;           // provider: pending slots that could run there
  int demand_for_provider(const std::string& provider) const;  // consumer: pending slots it could borrow for
  // Moves the idle slots of each shared lease to the side that asks for more.
  void reclaim_shared();
  // The configuration's policy with shared resources as leases change them: instances
  // providers offer this cluster added, instances this cluster exports to reached
  // consumers taken away. The configuration's own when neither applies.
  std::shared_ptr<const sched::SchedPolicy> policy_with_leased_resources() const;

 private:
  // A link to another cluster's mbatchd: as provider, whether the consumer answered
  // the last offer; as consumer, the provider's last offer.
  struct Link {
    std::string address;
    std::uint16_t port = 0;
    // Which of the cluster's Servers (lsf.shared) is called: its master candidates in
    // order. A call that reaches no mbatchd there, or one that is no longer master,
    // moves on to the next for the following call, so the link follows a failover.
    std::size_t server = 0;
    std::unique_ptr<net::asio::strand<net::asio::thread_pool::executor_type>> strand;
    std::shared_ptr<net::RpcClient> client;
    bool reached = false;
    std::string last_error;
    wire::LeaseOfferRequest offer;
    std::chrono::steady_clock::time_point last_offer{};
    std::chrono::milliseconds offer_gap{0};  // between the provider's last two offers
  };
  // A consumer's job this cluster's sbatchd runs, by the id this cluster gave it.
  struct LeasedJob {
    std::string consumer;
    std::string host;        // the first; exec_hosts without '@' are this cluster's
    wire::JobLaunch launch;  // as sent to the sbatchd: lease id, queue@consumer
    bool stopped = false;    // as the sbatchd last reported
  };

  const config::ClusterConfig& conf() const { return ctx_.conf(); }
  // The address of the cluster's `server`th Servers entry (modulo their number).
  std::pair<std::string, std::uint16_t> cluster_address(const std::string& cluster, std::size_t server) const;
  void check_clusters();  // every report interval
  void call_cluster(const std::string& cluster, wire::RequestEnvelope request,
                    std::function<void(const net::CallResult&)> done);
  bool offer_is_current(const Link& link) const;
  // Any host's status: a borrowed one's as its provider offered it.
  HostStatus status_of(const std::string& host) const;
  int consumer_used_slots(const std::string& host, const std::string& consumer) const;
  // Kills and requeues the jobs a provider took its hosts back from.
  void recall_withdrawn(const std::string& provider, const wire::LeaseOfferRequest& offer);

  ComponentContext ctx_;
  ClusterLinksHooks hooks_;
  ClusterTransport transport_;
  std::map<std::string, Link> links_;
  std::map<sched::JobKey, LeasedJob> leased_jobs_;
  // HeldSlots each consumer last declared, replaced by each answer to an offer.
  std::map<std::string, std::vector<wire::HeldSlots>> held_slots_;
  std::map<std::string, int> lent_slots_;
  // Shared leases: each consumer's share of a host, by (host, consumer); each consumer's
  // demand as it last answered an offer; when the shares were last recomputed.
  std::map<std::pair<std::string, std::string>, int> shared_slots_;
  std::map<std::string, int> consumer_demand_;
  std::chrono::steady_clock::time_point last_reclaim_ = std::chrono::steady_clock::now();
  // policy_with_leased_resources(), kept while the configuration's policy (held, so its
  // address is not reused) and the amounts stay.
  mutable std::shared_ptr<const sched::SchedPolicy> leased_policy_, leased_policy_base_;
  mutable std::map<std::string, double> leased_policy_change_;
  net::asio::steady_timer timer_;  // the next round of offers
};

}  // namespace lsf::mbd
