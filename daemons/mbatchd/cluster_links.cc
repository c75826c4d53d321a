// MultiCluster links, mbatchd to mbatchd. As a provider, every SBD_SLEEP_TIME this
// mbatchd offers each consumer named in its exports what the export plan gives it; an
// answer means the consumer is reached, and only a reached consumer's part is handed
// over (until then the provider keeps it). As a consumer it keeps each provider's last
// offer. The address of a cluster is the first entry of its Servers in lsf.shared:
// `host`, on this cluster's mbatchd port as in LSF, or `host:port` (an extension, for
// clusters sharing one machine). Requests are signed with the key the pair shares.
//
// The rest of the ClusterLinks component (cluster_links.h): jobs on what is offered,
// lease_jobs.cc; shared leases, shared_leases.cc; the export plan, exports.cc.
#include <algorithm>
#include <set>
#include <variant>

#include "daemons/mbatchd/cluster_links.h"
#include "libconfig/text.h"

namespace lsf::mbd {
namespace {

// A provider's offer older than this many report intervals means it is gone.
constexpr int kOfferLifetime = 3;

std::set<std::string> consumers_of(const config::ClusterConfig& config) {
  std::set<std::string> out;
  for (const auto& e : config.host_exports)
    for (const auto& d : e.distribution) out.insert(d.name);
  for (const auto& e : config.shared_resource_exports)
    for (const auto& d : e.distribution) out.insert(d.name);
  out.erase(config.cluster_name);
  for (auto it = out.begin(); it != out.end();) it = config.is_peer_cluster(*it) ? std::next(it) : out.erase(it);
  return out;
}

}  // namespace

ClusterLinks::ClusterLinks(ComponentContext ctx, ClusterLinksHooks hooks, ClusterTransport transport)
    : ctx_(std::move(ctx)), hooks_(std::move(hooks)), transport_(transport), timer_(transport.io) {}

void ClusterLinks::start() { check_clusters(); }

std::pair<std::string, std::uint16_t> ClusterLinks::cluster_address(const std::string& cluster, std::size_t n) const {
  for (const auto& c : conf().clusters) {
    if (c.name != cluster || c.servers.empty()) continue;
    const std::string& server = c.servers[n % c.servers.size()];
    const auto colon = server.rfind(':');
    const std::uint16_t own = hooks_.own_port();
    if (colon == std::string::npos) return {server, own};
    const auto port = config::parse_int(server.substr(colon + 1));
    if (!port || *port <= 0 || *port > 65535) return {};
    return {server.substr(0, colon), static_cast<std::uint16_t>(*port)};
  }
  return {};
}

void ClusterLinks::check_clusters() {
  const auto delay = std::chrono::duration<double>(conf().params.mc_reclaim_delay * 60);
  if (std::chrono::steady_clock::now() - last_reclaim_ >= delay) {
    last_reclaim_ = std::chrono::steady_clock::now();
    reclaim_shared();
  }
  offer_to_consumers();
  timer_.expires_after(hooks_.report_interval());
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_clusters();
  });
}

void ClusterLinks::offer_to_consumers() {
  auto consumers = consumers_of(conf());
  // A consumer whose exports were all withdrawn still hears which of its jobs must go.
  for (const auto& h : holdings()) consumers.insert(h.consumer);
  if (consumers.empty()) return;
  // Planned as if every consumer were reached; each gets only its own part.
  const auto plan = export_plan(std::set<std::string, std::less<>>(consumers.begin(), consumers.end()));
  const sched::ClusterView view = hooks_.view();
  auto resource = [&](const std::string& host, std::string_view name) {
    for (const auto& h : view.hosts)
      if (h.name == host)
        if (auto it = h.resources.find(name); it != h.resources.end())
          if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
    return std::string();
  };
  for (const auto& consumer : consumers) {
    wire::RequestEnvelope request;
    auto* offer = request.mutable_lease_offer();
    offer->set_provider(conf().cluster_name);
    offer->set_refuses_spanning(!conf().takes_spanning_jobs_from(consumer));
    for (const auto& g : plan.hosts) {
      if (g.cluster != consumer) continue;
      auto* h = offer->add_hosts();
      h->set_host(g.host);
      h->set_slots(offered_slots(g));
      h->set_whole_host(g.whole_host);
      h->set_shared(g.shared);
      h->set_mem_mb(g.mem_mb);
      h->set_swp_mb(g.swp_mb);
      h->set_type(resource(g.host, "type"));
      h->set_model(resource(g.host, "model"));
      h->set_status(std::string(to_string(hooks_.status_of(g.host))));
    }
    for (const auto& r : plan.resources) {
      if (r.cluster != consumer) continue;
      auto* o = offer->add_resources();
      o->set_name(r.resource);
      o->set_instances(r.instances);
    }
    for (const auto& key : withdrawn_jobs(consumer, plan)) {
      auto* w = offer->add_withdrawn();
      w->set_job_id(lease_job_owner(key.id).second);
      w->set_index(key.index);
    }
    call_cluster(consumer, std::move(request), [this, consumer](const net::CallResult& result) {
      auto& link = links_[consumer];
      const bool reached = result.ok();
      if (reached != link.reached || (!reached && result.message() != link.last_error))
        reached ? ctx_.log->info("cluster {} reached: exports are offered to it", consumer)
                : ctx_.log->warn("cluster {} not reached ({}); its exports stay with this cluster", consumer,
                                 result.message());
      const bool changed = reached != link.reached;
      link.reached = reached;
      link.last_error = reached ? std::string() : result.message();
      bool held_changed = false;
      if (reached && result.reply) {
        const auto& answer = result.reply->lease_offer();
        consumer_demand_[consumer] = answer.pending_slots();
        std::vector<wire::HeldSlots> held(answer.held().begin(), answer.held().end());
        auto& before = held_slots_[consumer];
        held_changed = held.size() != before.size() ||
                       !std::equal(held.begin(), held.end(), before.begin(), [](const auto& a, const auto& b) {
                         return a.SerializeAsString() == b.SerializeAsString();
                       });
        before = std::move(held);
      }
      if (changed || held_changed) {
        update_lent_slots();  // a shared lease's share is held for a consumer reached
        hooks_.request_pass();
      }
    });
  }
}

void ClusterLinks::call_cluster(const std::string& cluster, wire::RequestEnvelope request,
                                std::function<void(const net::CallResult&)> done) {
  auto& link = links_[cluster];
  const std::size_t server = link.server;
  const auto where = cluster_address(cluster, server);
  const std::string address = where.first;
  const std::uint16_t port = where.second;
  auto key = transport_.pair_keys.find(cluster);
  std::string why;
  if (address.empty())
    why = "no address: Servers for cluster " + cluster + " in lsf.shared names no host (or a bad port)";
  else if (key == transport_.pair_keys.end())
    why = "no key: " + std::string(net::kPairKeyPrefix) + cluster + " is not in lsf.sudoers";
  if (!why.empty()) {
    net::CallResult r;
    r.error = why;
    net::asio::post(transport_.io, [done, r] { done(r); });
    return;
  }
  if (!link.strand)
    link.strand = std::make_unique<net::asio::strand<net::asio::thread_pool::executor_type>>(
        net::asio::make_strand(transport_.outbound.get_executor()));
  if (!link.client || link.address != address || link.port != port) {
    link.address = address;
    link.port = port;
    link.client = std::make_shared<net::RpcClient>(address, port, std::chrono::seconds(5));
    link.client->set_cluster_key(conf().cluster_name, key->second, cluster);
  }
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  *request.mutable_caller() = net::current_identity();
  auto client = link.client;
  net::asio::post(
      *link.strand, [this, client, cluster, server, address, port, request = std::move(request), done]() mutable {
        auto result = client->call(request);
        // The other mbatchd restarted since the last call: its end of the kept connection is
        // gone, and the request never reached it. Once more, on a new connection.
        if (!result.reply && result.error.rfind("connection closed", 0) == 0) result = client->call(std::move(request));
        net::asio::post(transport_.io, [this, cluster, server, address, port, done, result = std::move(result)] {
          const bool not_master = result.reply && result.reply->status() == wire::STATUS_NOT_MASTER;
          auto& l = links_[cluster];
          if ((!result.reply || not_master) && l.server == server) {
            l.server = server + 1;
            const auto next = cluster_address(cluster, l.server);
            if (next.first != address || next.second != port)
              ctx_.log->debug("cluster {}: no master at {}:{} ({}); trying {}:{} next", cluster, address, port,
                              not_master ? "not the master" : result.error, next.first, next.second);
          }
          done(result);
        });
      });
}

void ClusterLinks::on_lease_offer(const wire::RequestEnvelope& request, const net::Peer& peer,
                                  const net::Responder& respond) {
  const auto& offer = request.lease_offer();
  if (offer.provider() != peer.cluster || !conf().is_peer_cluster(peer.cluster))
    return respond(net::error_reply(wire::STATUS_PERMISSION_DENIED,
                                    "cluster " + peer.cluster + " may not offer resources as " + offer.provider()));
  auto& link = links_[peer.cluster];
  if (link.last_offer == std::chrono::steady_clock::time_point{})
    ctx_.log->info("cluster {} offers {} host(s) and {} shared resource(s)", peer.cluster, offer.hosts_size(),
                   offer.resources_size());
  // What is offered changed (hosts, slots, status): jobs waiting for it may start now.
  bool changed = link.offer.hosts_size() != offer.hosts_size() || link.offer.resources_size() != offer.resources_size();
  for (int i = 0; !changed && i < offer.hosts_size(); ++i)
    changed = offer.hosts(i).SerializeAsString() != link.offer.hosts(i).SerializeAsString();
  link.offer = offer;
  if (changed) hooks_.request_pass();
  const auto now = std::chrono::steady_clock::now();
  // The provider offers at its own SBD_SLEEP_TIME, which may be longer than ours.
  if (link.last_offer != std::chrono::steady_clock::time_point{})
    link.offer_gap = std::chrono::duration_cast<std::chrono::milliseconds>(now - link.last_offer);
  link.last_offer = now;
  if (offer.withdrawn_size() > 0) recall_withdrawn(peer.cluster, offer);
  // Signals that could not reach the provider's hosts: it answers again, so try again.
  for (const auto& h : offer.hosts()) hooks_.resend_signals(h.host() + "@" + peer.cluster);
  auto reply = net::ok_reply();
  reply.mutable_lease_offer()->set_consumer(conf().cluster_name);
  reply.mutable_lease_offer()->set_pending_slots(demand_for_provider(peer.cluster));
  for (auto& held : held_on(peer.cluster)) *reply.mutable_lease_offer()->add_held() = std::move(held);
  respond(reply);
}

bool ClusterLinks::offer_is_current(const Link& link) const {
  return link.last_offer != std::chrono::steady_clock::time_point{} &&
         std::chrono::steady_clock::now() - link.last_offer <
             kOfferLifetime * std::max(hooks_.report_interval(), link.offer_gap);
}

void ClusterLinks::on_clusters(const wire::RequestEnvelope&, const net::Responder& respond) {
  auto reply = net::ok_reply();
  auto* out = reply.mutable_clusters();
  out->set_cluster_name(conf().cluster_name);
  const auto plan = export_plan();
  for (const auto& consumer : consumers_of(conf())) {
    auto* l = out->add_leases();
    l->set_remote_cluster(consumer);
    l->set_resource_flow("EXPORT");
    auto it = links_.find(consumer);
    bool leased = false;
    for (const auto& h : holdings()) leased = leased || h.consumer == consumer;
    l->set_status(leased ? "ok" : it != links_.end() && it->second.reached ? "conn" : "disc");
    std::set<std::string> hosts;
    int slots = 0;
    for (const auto& g : plan.hosts)
      if (g.cluster == consumer) {
        hosts.insert(g.host);
        slots += g.slots;
      }
    l->set_hosts(static_cast<int>(hosts.size()));
    l->set_slots(slots);
  }
  // Providers: the clusters queues borrow from by name, and any that offer.
  std::set<std::string> providers;
  for (const auto& q : conf().queues)
    for (const auto& item : q.hosts)
      if (!item.cluster.empty() && item.cluster != conf().cluster_name) providers.insert(item.cluster);
  for (const auto& [name, link] : links_)
    if (link.last_offer != std::chrono::steady_clock::time_point{}) providers.insert(name);
  for (const auto& provider : providers) {
    auto* l = out->add_leases();
    l->set_remote_cluster(provider);
    l->set_resource_flow("IMPORT");
    auto it = links_.find(provider);
    const bool current = it != links_.end() && offer_is_current(it->second);
    // A lease exists once a job of ours runs on what the provider offers, on any of its hosts.
    bool leased = false;
    for (const auto& [key, job] : ctx_.state.started())
      for (const auto& h : job->exec_hosts) leased = leased || borrowed_from(h) == provider;
    l->set_status(leased ? "ok" : current ? "conn" : "disc");
    if (!current) continue;
    int slots = 0;
    for (const auto& h : it->second.offer.hosts()) slots += h.slots();
    l->set_hosts(it->second.offer.hosts_size());
    l->set_slots(slots);
  }
  respond(reply);
}

}  // namespace lsf::mbd
