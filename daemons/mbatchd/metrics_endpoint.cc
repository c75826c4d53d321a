// mbatchd's HTTP listener (lsf.conf LSB_METRICS_PORT, LSB_METRICS_ADDRESS,
// LSB_METRICS_TOKEN_FILE) and what it serves: /metrics (metrics.h). It is served by
// mbatchd itself rather than by an exporter that polls over RPC: the figures are read
// from counts mbatchd keeps as state changes, on the state thread, without a copy of the
// state crossing a socket or a second process to run and secure.
//
// Failing to listen or to read the token is logged and shown by badmin perfmon view;
// mbatchd serves its cluster without the endpoint rather than not at all.
#include <openssl/crypto.h>

#include <fstream>
#include <sstream>

#include "daemons/common/http_server.h"
#include "daemons/mbatchd/mbatchd.h"
#include "daemons/mbatchd/metrics.h"
#include "libconfig/host_resolution.h"

namespace lsf::mbd {

void Mbatchd::start_metrics() {
  const auto& conf = config_->lsf_conf;
  if (!conf.metrics_port) return;
  if (!conf.metrics_token_file.empty()) {
    std::ifstream in(conf.metrics_token_file);
    std::stringstream text;
    text << in.rdbuf();
    std::string token = text.str();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front()))) token.erase(0, 1);
    if (!in || token.empty() || token.size() > 4096) {
      metrics_error_ = "LSB_METRICS_TOKEN_FILE " + conf.metrics_token_file + ": cannot read a token from it";
      log_->error("metrics not served: {}", metrics_error_);
      return;
    }
    metrics_token_ = token;
  }
  auto server = net::HttpServer::start(io_, conf.metrics_address, static_cast<std::uint16_t>(*conf.metrics_port),
                                       [this](const net::HttpRequest& r) { return on_http(r); });
  if (!server) {
    metrics_error_ = server.error();
    log_->error("metrics not served: {}", metrics_error_);
    return;
  }
  metrics_server_ = std::move(*server);
  const std::string host =
      conf.metrics_address.find(':') != std::string::npos ? "[" + conf.metrics_address + "]" : conf.metrics_address;
  metrics_url_ = "http://" + host + ":" + std::to_string(metrics_server_->port()) + "/metrics";
  log_->info("metrics at {}{}", metrics_url_, metrics_token_.empty() ? "" : " (token required)");
}

net::HttpResponse Mbatchd::on_http(const net::HttpRequest& request) {
  net::HttpResponse response;
  if (!metrics_token_.empty()) {
    const std::string given = request.header("authorization");
    const std::string expected = "Bearer " + metrics_token_;
    if (given.size() != expected.size() || CRYPTO_memcmp(given.data(), expected.data(), given.size()) != 0) {
      response.status = 401;
      response.body = "a token is required: Authorization: Bearer <the token in LSB_METRICS_TOKEN_FILE>\n";
      response.headers.emplace_back("WWW-Authenticate", "Bearer");
      return response;
    }
  }
  if (request.path == "/metrics") {
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = render_metrics(metrics_input());
    return response;
  }
  response.status = 404;
  response.body = request.path + ": not found (this listener serves /metrics)\n";
  return response;
}

HealthMetrics Mbatchd::health_metrics() const {
  HealthMetrics h;
  h.uptime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count();
  h.submissions_total = job_service_.submissions_total();
  h.passes = &scheduling_.counters();
  if (event_log_) h.event_log = event_log_->stats();
  if (h.event_log.last_rotation > 0)
    h.snapshot_age_s = static_cast<double>(std::max<std::int64_t>(0, std::time(nullptr) - h.event_log.last_rotation));
  for (const auto& [name, link] : hosts_.links())
    if (link.registered && !link.lost) ++h.sbatchds;
  h.connections = server_ ? server_->connections() : 0;
  h.resident_bytes = resident_memory_bytes();
  h.requests = request_stats_.rows();
  return h;
}

MetricsInput Mbatchd::metrics_input() const {
  MetricsInput in;
  in.cluster = config_->cluster_name;
  in.state = &state_;
  in.policy = config_index_.policy.get();
  in.guarantees = &scheduling_.guarantees();
  in.throttles = &scheduling_.throttles();
  for (const auto& h : config_->hosts) {
    if (!h.server) continue;
    HostMetrics m;
    m.name = h.name;
    m.status = hosts_.host_status(h.name);
    const HostLink* link = hosts_.link(h.name);
    const int mxj = hosts_.host_max_slots(h.name);
    m.slots = mxj >= 0 ? mxj : link ? static_cast<int>(link->load.ncpus()) : 0;
    if (auto it = state_.hosts().find(h.name); it != state_.hosts().end()) {
      const JobCounts& c = it->second.counts;
      m.used_slots = c.run + c.ssusp + c.ususp;
      m.gpus_used = it->second.gpus_used;
    }
    if (link) m.gpus = link->load.gpus_size();
    in.hosts.push_back(std::move(m));
  }
  for (const auto& g : config_->host_groups) {
    config::HostListItem item;
    item.name = g.name;
    const auto members = config::resolve_host_list(*config_, {item});
    in.host_groups.emplace_back(g.name, std::vector<std::string>(members.begin(), members.end()));
  }
  in.health = health_metrics();
  return in;
}

void Mbatchd::fill_health(wire::PerfmonReply& out) const {
  const HealthMetrics h = health_metrics();
  out.set_pass_p50_ms(h.passes->took_seconds.quantile(0.5) * 1000);
  out.set_pass_p99_ms(h.passes->took_seconds.quantile(0.99) * 1000);
  out.set_log_records(h.event_log.records);
  out.set_log_syncs(h.event_log.syncs);
  out.set_log_bytes(h.event_log.bytes);
  out.set_log_sync_p99_ms(h.event_log.sync_seconds.quantile(0.99) * 1000);
  out.set_snapshot_age_s(h.snapshot_age_s < 0 ? -1 : static_cast<std::int64_t>(h.snapshot_age_s));
  out.set_sbatchds(h.sbatchds);
  out.set_connections(static_cast<int>(h.connections));
  out.set_resident_bytes(h.resident_bytes);
  out.set_metrics_url(metrics_url_);
  out.set_metrics_error(metrics_error_);
  out.set_jobs_in_memory(static_cast<int>(state_.jobs().size()));
  for (const auto& row : h.requests) {
    auto* r = out.add_requests();
    r->set_name(row.name);
    r->set_count(row.seconds.count());
    r->set_p50_ms(row.seconds.quantile(0.5) * 1000);
    r->set_p99_ms(row.seconds.quantile(0.99) * 1000);
    r->set_max_ms(row.seconds.max() * 1000);
  }
}

}  // namespace lsf::mbd
