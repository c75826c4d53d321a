// Jobs on leased hosts (MultiCluster resource leasing, exclusive leases).
//
// The consumer puts each host a provider offers into its view as `host@provider`, with
// the slots offered, and schedules it as its own for the queues that name it
// (`allremote`, `all@provider`, `host@provider`) and jobs that ask for it (-m). What it
// would send the host's sbatchd (start, signals, limits, bpeek, input) goes to the
// provider's mbatchd, which holds the cluster key its sbatchds trust, and which passes
// it on and returns the sbatchd's answer.
//
// The provider gives a leased job an id of its own, out of the range of its own jobs:
// kLeaseIdBase times the consumer's place in lsf.shared, plus the consumer's job id. The
// sbatchd's reports on such an id go back to the consumer, and are acknowledged to the
// sbatchd only once the consumer has them, so nothing about a leased job is kept at the
// provider that a restart could lose: an sbatchd registering again names its leased
// jobs. While a consumer runs a job on a host, everything exported to it there is its
// alone: the provider's own jobs do not get those slots.
#include <algorithm>
#include <csignal>
#include <set>

#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {
namespace {

// Above any job id a cluster gives its own jobs (LSF's MAX_JOBID is at most 2^31).
constexpr std::int64_t kLeaseIdBase = 1'000'000'000'000;

bool ends_a_run(wire::JobEvent e) {
  return e == wire::JOB_EVENT_FINISH || e == wire::JOB_EVENT_START_FAILED || e == wire::JOB_EVENT_PRE_EXEC_FAILED;
}

}  // namespace

std::string Mbatchd::borrowed_from(const std::string& host) const {
  const auto at = host.rfind('@');
  if (at == std::string::npos || host.compare(at + 1, std::string::npos, config_->cluster_name) == 0) return {};
  return host.substr(at + 1);
}

std::int64_t Mbatchd::lease_job_id(const std::string& consumer, std::int64_t id) const {
  for (size_t i = 0; i < config_->clusters.size(); ++i)
    if (config_->clusters[i].name == consumer) return kLeaseIdBase * static_cast<std::int64_t>(i + 1) + id;
  return 0;
}

std::pair<std::string, std::int64_t> Mbatchd::lease_job_owner(std::int64_t local_id) const {
  const std::int64_t n = local_id / kLeaseIdBase;
  if (n < 1 || n > static_cast<std::int64_t>(config_->clusters.size())) return {};
  return {config_->clusters[static_cast<size_t>(n - 1)].name, local_id % kLeaseIdBase};
}

bool Mbatchd::is_lease_job_id(std::int64_t id) { return id >= kLeaseIdBase; }

// --- consumer

void Mbatchd::add_borrowed_hosts(sched::ClusterView& view) const {
  for (const auto& [provider, link] : cluster_links_) {
    if (!offer_is_current(link)) continue;
    for (const auto& h : link.offer.hosts()) {
      sched::HostView hv;
      hv.name = h.host() + "@" + provider;
      hv.cluster = provider;
      hv.leased_slots = h.slots();
      hv.spans_clusters = !link.offer.refuses_spanning();
      hv.ncpus = std::max(1, h.slots());
      hv.status = status_of(hv.name);
      // The pass works out closed_Full and the rest from what this cluster runs there.
      if (sched::closed_by_pass(hv.status)) hv.status = sched::HostStatus::kOk;
      hv.resources["hname"] = hv.name;
      if (!h.type().empty()) hv.resources["type"] = h.type();
      if (!h.model().empty()) hv.resources["model"] = h.model();
      if (h.mem_mb() > 0) hv.resources["maxmem"] = static_cast<double>(h.mem_mb());
      if (h.swp_mb() > 0) hv.resources["maxswp"] = static_cast<double>(h.swp_mb());
      if (auto it = last_dispatch().find(hv.name); it != last_dispatch().end()) hv.last_dispatch = it->second;
      view.hosts.push_back(std::move(hv));
    }
  }
}

std::map<std::string, wire::OfferedHost> Mbatchd::borrowed_hosts() const {
  std::map<std::string, wire::OfferedHost> out;
  for (const auto& [provider, link] : cluster_links_)
    if (offer_is_current(link))
      for (const auto& h : link.offer.hosts()) out.emplace(h.host() + "@" + provider, h);
  return out;
}

std::string Mbatchd::borrowed_host_status(const std::string& host) const {
  const std::string provider = borrowed_from(host);
  auto link = cluster_links_.find(provider);
  if (link == cluster_links_.end() || !offer_is_current(link->second))
    return std::string(to_string(HostStatus::kUnreach));
  const std::string name = host.substr(0, host.size() - provider.size() - 1);
  for (const auto& h : link->second.offer.hosts())
    if (h.host() == name) {
      // Closed by this cluster's administrator (badmin hclose host@cluster) or the provider's.
      if (auto st = state_.hosts().find(host); st != state_.hosts().end() && st->second.admin_closed)
        return std::string(to_string(HostStatus::kClosedAdm));
      return h.status().empty() ? "ok" : h.status();
    }
  return std::string(to_string(HostStatus::kUnavail));  // no longer offered
}

void Mbatchd::relay_to_provider(const std::string& host, wire::RequestEnvelope request,
                                std::function<void(const net::CallResult&)> done) {
  const std::string provider = borrowed_from(host);
  wire::RequestEnvelope outer;
  auto* relay = outer.mutable_lease_relay();
  relay->set_host(host.substr(0, host.size() - provider.size() - 1));
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  *relay->mutable_request() = std::move(request);
  call_cluster(provider, std::move(outer), std::move(done));
}

// --- provider

void Mbatchd::on_lease_relay(const wire::RequestEnvelope& request, const net::Peer& peer,
                             const net::Responder& respond) {
  const auto& relay = request.lease_relay();
  const std::string& consumer = peer.cluster;
  const auto plan = export_plan(std::set<std::string, std::less<>>{consumer});
  std::set<std::string> exported;
  for (const auto& g : plan.hosts)
    if (g.cluster == consumer) exported.insert(g.host);
  auto refuse = [&](const std::string& why) {
    log_->warn("refused a request of cluster {} for host {}: {}", consumer, relay.host(), why);
    respond(net::error_reply(wire::STATUS_PERMISSION_DENIED, why));
  };
  if (lease_job_id(consumer, 0) == 0) return refuse("cluster " + consumer + " is not in lsf.shared");
  wire::RequestEnvelope inner = relay.request();
  auto map = [&](std::int64_t id) { return lease_job_id(consumer, id); };
  using R = wire::RequestEnvelope;
  // Only what is exported takes new jobs; a job already running on a host taken back
  // can still be signalled (that is how it is killed), peeked at and given input.
  if (!exported.count(relay.host())) {
    std::int64_t id = 0;
    if (inner.request_case() == R::kSignalJob) id = inner.signal_job().job_id();
    if (inner.request_case() == R::kPeek) id = inner.peek().job().job_id();
    if (inner.request_case() == R::kJobInput) id = inner.job_input().job().job_id();
    bool runs_there = false;
    for (auto it = leased_jobs_.lower_bound({map(id), 0});
         id > 0 && it != leased_jobs_.end() && it->first.id == map(id); ++it)
      runs_there = runs_there || (it->second.consumer == consumer && it->second.host == relay.host());
    if (!runs_there) return refuse("host " + relay.host() + " is not exported to cluster " + consumer);
  }
  std::vector<wire::JobLaunch> started;
  switch (inner.request_case()) {
    case R::kStartJobs:
      // The consumer names this cluster's hosts host@provider, its own bare, and other
      // providers' host@cluster: as the job runs, this cluster's bare, the rest @cluster.
      for (auto& launch : *inner.mutable_start_jobs()->mutable_launches()) {
        bool spans = false;
        for (auto& h : *launch.mutable_exec_hosts()) {
          const auto at = h.rfind('@');
          if (at == std::string::npos) {
            h += "@" + consumer;
          } else if (h.compare(at + 1, std::string::npos, config_->cluster_name) == 0) {
            h.resize(at);
            if (!exported.count(h)) return refuse("host " + h + " is not exported to cluster " + consumer);
            continue;
          }
          spans = true;
        }
        if (spans && !config_->takes_spanning_jobs_from(consumer))
          return refuse("RECV_FROM=N: cluster " + consumer + " may not run jobs that span clusters here");
        launch.set_job_id(map(launch.job_id()));
        launch.set_queue(launch.queue() + "@" + consumer);
        started.push_back(launch);
        started.back().mutable_spec()->clear_env();  // bjobs does not show it
      }
      break;
    case R::kSignalJob:
      inner.mutable_signal_job()->set_job_id(map(inner.signal_job().job_id()));
      break;
    case R::kModifyLimits:
      inner.mutable_modify_limits()->set_job_id(map(inner.modify_limits().job_id()));
      break;
    case R::kPeek:
      inner.mutable_peek()->mutable_job()->set_job_id(map(inner.peek().job().job_id()));
      break;
    case R::kJobInput:
      inner.mutable_job_input()->mutable_job()->set_job_id(map(inner.job_input().job().job_id()));
      break;
    default:
      return refuse("not a request for a host's sbatchd");
  }
  std::vector<sched::JobKey> keys;
  if (!started.empty()) {
    for (auto& launch : started) {
      keys.push_back({launch.job_id(), launch.index()});
      add_leased_job(consumer, relay.host(), std::move(launch));
    }
    update_lent_slots();
    log_->info("cluster {} starts {} job(s) on {}", consumer, started.size(), relay.host());
  }
  call_host(relay.host(), std::move(inner), [this, respond, started = keys](const net::CallResult& r) {
    if (!r.ok() && !started.empty()) {
      for (const auto& key : started) leased_jobs_.erase(key);
      update_lent_slots();
      request_pass();
    }
    if (r.reply) return respond(*r.reply);
    respond(net::error_reply(wire::STATUS_UNAVAILABLE, r.message()));
  });
  if (!started.empty()) request_pass();
}

void Mbatchd::forward_lease_reports(const std::vector<wire::JobStatusRequest>& reports,
                                    std::function<void(std::string)> done) {
  std::map<std::string, wire::RequestEnvelope> by_consumer;
  std::map<std::string, std::vector<sched::JobKey>> ended;
  for (const auto& r : reports) {
    const auto [consumer, id] = lease_job_owner(r.job_id());
    if (consumer.empty()) continue;  // a consumer no longer in lsf.shared: nobody to tell
    auto* out = by_consumer[consumer].mutable_job_status_batch()->add_reports();
    *out = r;
    out->set_job_id(id);
    out->set_host_name(r.host_name() + "@" + config_->cluster_name);
    if (ends_a_run(r.event())) ended[consumer].push_back({r.job_id(), r.index()});
    if (auto it = leased_jobs_.find({r.job_id(), r.index()}); it != leased_jobs_.end()) {
      if (r.event() == wire::JOB_EVENT_STOPPED) it->second.stopped = true;
      if (r.event() == wire::JOB_EVENT_RESUMED) it->second.stopped = false;
    }
  }
  if (by_consumer.empty()) return done({});
  auto left = std::make_shared<size_t>(by_consumer.size());
  auto failure = std::make_shared<std::string>();
  for (auto& [consumer, request] : by_consumer) {
    call_cluster(consumer, std::move(request),
                 [this, consumer = consumer, keys = ended[consumer], left, failure, done](const net::CallResult& r) {
                   if (r.ok()) {
                     for (const auto& key : keys) leased_jobs_.erase(key);
                     if (!keys.empty()) {
                       update_lent_slots();
                       request_pass();
                     }
                   } else {
                     *failure = "cluster " + consumer + " not reached: " + r.message();
                   }
                   if (--*left == 0) done(*failure);
                 });
  }
}

void Mbatchd::update_lent_slots() {
  lent_slots_.clear();
  std::set<std::pair<std::string, std::string>> leased;  // (host, consumer)
  std::set<std::string, std::less<>> consumers, reached;
  for (const auto& h : holdings()) {
    leased.insert({h.host, h.consumer});
    consumers.insert(h.consumer);
  }
  for (const auto& [name, link] : cluster_links_)
    if (link.reached) reached.insert(name);
  if (consumers.empty() && reached.empty()) return;
  consumers.insert(reached.begin(), reached.end());
  // A consumer that runs jobs here holds its lease even while the offers do not reach
  // it; a shared lease's share is the consumer's whenever it is reached.
  for (const auto& g : export_plan(consumers).hosts)
    if (leased.count({g.host, g.cluster}) || (g.shared && reached.count(g.cluster)))
      lent_slots_[g.host] += offered_slots(g);
}

void Mbatchd::add_leased_job(const std::string& consumer, const std::string& host, wire::JobLaunch launch) {
  LeasedJob& lj = leased_jobs_[{launch.job_id(), launch.index()}];
  lj.consumer = consumer;
  lj.host = host;
  lj.launch = std::move(launch);
}

std::vector<Mbatchd::Holding> Mbatchd::holdings() const {
  std::vector<Holding> out;
  for (const auto& [key, lj] : leased_jobs_) {
    std::map<std::string, int> per_host;
    for (const auto& h : lj.launch.exec_hosts())
      if (h.find('@') == std::string::npos) ++per_host[h];
    if (per_host.empty()) per_host[lj.host] = 1;
    for (const auto& [host, n] : per_host) out.push_back({lj.consumer, host, n, lj.launch.start_time(), key});
  }
  for (const auto& [consumer, held] : held_slots_)
    for (const auto& h : held)
      if (const auto id = lease_job_id(consumer, h.job().job_id()); id > 0)
        out.push_back({consumer, h.host(), h.slots(), h.start_time(), {id, h.job().index()}});
  return out;
}

std::vector<wire::HeldSlots> Mbatchd::held_on(const std::string& provider) const {
  std::vector<wire::HeldSlots> out;
  for (const auto& [key, job] : state_.started()) {
    if (job->exec_hosts.empty() || borrowed_from(job->exec_hosts.front()) == provider) continue;
    std::map<std::string, int> per_host;
    for (const auto& h : job->exec_hosts)
      if (borrowed_from(h) == provider) ++per_host[h.substr(0, h.size() - provider.size() - 1)];
    for (const auto& [host, n] : per_host) {
      auto& held = out.emplace_back();
      held.mutable_job()->set_job_id(key.id);
      held.mutable_job()->set_index(key.index);
      held.set_host(host);
      held.set_slots(n);
      held.set_start_time(job->start_time);
    }
  }
  return out;
}

std::vector<sched::JobKey> Mbatchd::withdrawn_jobs(const std::string& consumer,
                                                   const sched::mc::ExportPlan& plan) const {
  std::map<std::string, int> exported;
  for (const auto& g : plan.hosts)
    if (g.cluster == consumer) exported[g.host] += g.slots;
  const auto held = holdings();
  std::map<std::string, std::vector<const Holding*>> on_host;
  for (const auto& h : held)
    if (h.consumer == consumer) on_host[h.host].push_back(&h);
  std::vector<sched::JobKey> out;
  for (auto& [host, jobs] : on_host) {
    // A host the provider cannot reach is not exported, but its jobs cannot be killed
    // either: they wait for it as the provider's own do.
    if (unreachable(status_of(host))) continue;
    int used = 0;
    for (const auto* j : jobs) used += j->slots;
    auto it = exported.find(host);
    int left = used - (it == exported.end() ? 0 : it->second);
    if (left <= 0) continue;
    // Newest first: they lose the least work.
    std::sort(jobs.begin(), jobs.end(), [](const Holding* a, const Holding* b) {
      return std::make_pair(a->start_time, a->job) > std::make_pair(b->start_time, b->job);
    });
    for (const auto* j : jobs) {
      if (left <= 0) break;
      out.push_back(j->job);
      left -= j->slots;
    }
  }
  // A job over the plan on two hosts is named once.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Mbatchd::recall_withdrawn(const std::string& provider, const wire::LeaseOfferRequest& offer) {
  for (const auto& ref : offer.withdrawn()) {
    Job* job = state_.find_job({ref.job_id(), ref.index()});
    if (!job || job->pending() || job->finished() || job->exec_hosts.empty()) continue;
    const bool there = std::any_of(job->exec_hosts.begin(), job->exec_hosts.end(),
                                   [&](const std::string& h) { return borrowed_from(h) == provider; });
    if (!there || requeue_after_kill_.count(job->key)) continue;
    // Killed, then requeued ahead of the waiting jobs when its end is reported.
    requeue_after_kill_[job->key] = {false, true};
    signal_on_host(*job, SIGKILL, "TERM_MC_RECALL");
    log_->info("job {} on {}: cluster {} withdrew the host; killed and requeued", job_label(job->key),
               job->exec_hosts.front(), provider);
  }
}

void Mbatchd::add_leased_jobs(const wire::JobsRequest& q, const std::string& user, wire::JobsReply& out) const {
  if (leased_jobs_.empty() || q.only_finished() || q.only_pending()) return;
  std::set<sched::JobKey> named;
  for (const auto& ref : q.jobs()) named.insert({ref.job_id(), ref.index()});
  for (const auto& [key, lj] : leased_jobs_) {
    const auto& l = lj.launch;
    if (!named.empty() && !named.count(key) && !named.count({key.id, 0})) continue;
    if (named.empty() && user != "all" && l.user() != user) continue;
    if (q.only_running() && lj.stopped) continue;
    if (q.only_suspended() && !lj.stopped) continue;
    if (!q.queue().empty() && l.queue() != q.queue()) continue;
    if (!q.host().empty() && lj.host != q.host()) continue;
    wire::JobInfo& info = *out.add_jobs();
    info.set_job_id(key.id);
    info.set_index(key.index);
    info.set_user(l.user());
    // The consumer knows whether its owner or its system stopped it; the provider only
    // that it is stopped.
    info.set_state(lj.stopped ? wire::JOB_USUSP : wire::JOB_RUN);
    info.set_queue(l.queue());
    info.set_job_name(l.job_name());
    *info.mutable_spec() = l.spec();
    const auto owner = lease_job_owner(key.id);
    info.mutable_spec()->set_from_host(l.spec().from_host() + "@" + owner.first + ":" + std::to_string(owner.second));
    info.set_submit_time(l.start_time());
    info.set_start_time(l.start_time());
    for (const auto& h : l.exec_hosts()) info.add_exec_hosts(h);
  }
}

}  // namespace lsf::mbd
