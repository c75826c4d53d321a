// mbatchd's HTTP listener (lsf.conf LSB_METRICS_PORT, LSB_METRICS_ADDRESS,
// LSB_METRICS_TOKEN_FILE) and what it serves: /metrics (metrics.h) and the dashboard:
// its page (dashboard_assets.h) and the JSON the page reads (dashboard.h), with a job's
// bjobs -l and bhist content from the queries those commands use. It is served by
// mbatchd itself rather than by an exporter that polls over RPC: the figures are read
// from counts mbatchd keeps as state changes, on the state thread, without a copy of the
// state crossing a socket or a second process to run and secure.
//
// Failing to listen or to read the token is logged and shown by badmin perfmon view;
// mbatchd serves its cluster without the endpoint rather than not at all.
#include <openssl/crypto.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include <google/protobuf/util/json_util.h>

#include "daemons/common/http_server.h"
#include "daemons/mbatchd/dashboard.h"
#include "daemons/mbatchd/dashboard_assets.h"
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
  log_->info("metrics at {}{}; dashboard at {}", metrics_url_, metrics_token_.empty() ? "" : " (token required)",
             metrics_url_.substr(0, metrics_url_.size() - std::string("metrics").size()));
  history_timer_ = std::make_unique<net::asio::steady_timer>(io_);
  sample_history();
}

namespace {

// "123" or "123[4]": the job (every element) or one element; nullopt for anything else.
std::optional<wire::JobRef> parse_job_ref(std::string_view text) {
  wire::JobRef ref;
  std::int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || id <= 0) return std::nullopt;
  ref.set_job_id(id);
  std::string_view rest(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (rest.empty()) return ref;
  if (rest.size() < 3 || rest.front() != '[' || rest.back() != ']') return std::nullopt;
  int index = 0;
  auto [iend, iec] = std::from_chars(rest.data() + 1, rest.data() + rest.size() - 1, index);
  if (iec != std::errc() || iend != rest.data() + rest.size() - 1 || index <= 0) return std::nullopt;
  ref.set_index(index);
  return ref;
}

std::string query_value(const std::string& query, const std::string& name) {
  std::size_t at = 0;
  while (at <= query.size()) {
    std::size_t end = query.find('&', at);
    if (end == std::string::npos) end = query.size();
    std::string_view kv(query.data() + at, end - at);
    if (kv.substr(0, name.size() + 1) == name + "=") return std::string(kv.substr(name.size() + 1));
    at = end + 1;
  }
  return {};
}

}  // namespace

net::HttpResponse Mbatchd::on_http(const net::HttpRequest& request) {
  net::HttpResponse response;
  // The page, its script and its style sheet hold no data: served to anyone who
  // reaches the port; what they fetch (/api/...) needs the token.
  for (const auto& asset : dashboard_assets()) {
    if (request.path == asset.path || (asset.path == "/" && request.path == "/index.html")) {
      response.content_type = std::string(asset.content_type);
      response.body = std::string(asset.body);
      response.headers.emplace_back("Content-Security-Policy",
                                    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:");
      response.headers.emplace_back("X-Content-Type-Options", "nosniff");
      return response;
    }
  }
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
    refresh_view_reports();
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = render_metrics(metrics_input());
    return response;
  }
  if (request.path.rfind("/api/", 0) == 0) {
    response.content_type = "application/json";
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    if (request.path == "/api/state") {
      refresh_view_reports();
      const MetricsInput metrics = metrics_input();
      DashboardInput in;
      in.metrics = &metrics;
      in.master = options_.host_name;
      in.now = now();
      std::vector<const config::Queue*> queues;
      for (const auto& q : config_->queues) queues.push_back(&q);
      std::stable_sort(queues.begin(), queues.end(),
                       [](const config::Queue* a, const config::Queue* b) { return a->priority > b->priority; });
      for (const auto* q : queues) in.queue_priorities.emplace_back(q->name, q->priority);
      in.pending_reasons = group_pending_reasons(state_, 50);
      in.history = &dashboard_history_.samples();
      response.body = dashboard_state_json(in);
      return response;
    }
    if (request.path == "/api/hosts") {
      const MetricsInput metrics = metrics_input();
      std::vector<HostLoad> loads;
      for (const auto& h : metrics.hosts) {
        HostLoad load;
        if (const HostLink* link = hosts_.link(h.name)) {
          load.r1m = link->load.r1m();
          load.ut = link->load.ut();
          load.mem_mb = link->load.mem_mb();
          load.maxmem_mb = link->load.maxmem_mb();
        }
        loads.push_back(load);
      }
      response.body = dashboard_hosts_json(metrics.hosts, loads);
      return response;
    }
    if (request.path == "/api/job") {
      const auto ref = parse_job_ref(query_value(request.query, "id"));
      if (!ref) {
        response.status = 400;
        response.body = "{\"error\":\"id=JOBID or id=JOBID[INDEX] is required\"}";
        return response;
      }
      wire::RequestEnvelope jobs_request, history_request;
      auto* q = jobs_request.mutable_jobs();
      *q->add_jobs() = *ref;
      q->set_user("all");
      q->set_include_finished(true);
      q->set_details(true);
      auto* h = history_request.mutable_history();
      *h->add_jobs() = *ref;
      h->set_user("all");
      const auto jobs = job_queries_.jobs(jobs_request);
      const auto history = queries_.history(history_request);
      std::string jobs_json, history_json;
      google::protobuf::util::JsonPrintOptions options;
      (void)google::protobuf::util::MessageToJsonString(jobs.jobs(), &jobs_json, options);
      (void)google::protobuf::util::MessageToJsonString(history.history(), &history_json, options);
      response.body = "{\"jobs\":" + jobs_json + ",\"history\":" + history_json + "}";
      return response;
    }
  }
  response.status = 404;
  response.body = request.path + ": not found (this listener serves /, /metrics and /api/)\n";
  return response;
}

void Mbatchd::sample_history() {
  dashboard_history_.sample(now(), state_, scheduling_.counters());
  history_timer_->expires_after(DashboardHistory::kInterval);
  history_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (!ec) sample_history();
  });
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

void Mbatchd::refresh_view_reports() {
  const std::int64_t t = now();
  if (view_reports_.made_at != 0 && t >= view_reports_.made_at && t - view_reports_.made_at < ViewReports::kPeriod)
    return;
  view_reports_ = ViewReports{};
  view_reports_.made_at = t;
  bool fairshare = false, slot_pools = false;
  for (const auto& q : config_->queues) {
    fairshare = fairshare || q.fairshare.has_value();
    slot_pools = slot_pools || !q.slot_pool.empty();
  }
  if (config_index_.policy->limits.empty() && !fairshare && !slot_pools) return;
  // Without pending jobs: what these reports count is what runs.
  const auto view = scheduling_.build_view(false);
  if (!view.policy->limits.empty()) view_reports_.limits = sched::limit_usage(view, t);
  for (const auto& q : config_->queues) {
    if (!q.fairshare) continue;
    const int index = view.policy->queue_index(q.name);
    if (index >= 0) view_reports_.shares.emplace_back(q.name, sched::share_table(view, index, t));
  }
  if (slot_pools) {
    std::vector<int> pending(view.policy->queues.size(), 0);
    for (std::size_t k = 0; k < pending.size(); ++k) {
      auto it = state_.queues().find(view.policy->queues[k].name);
      if (it != state_.queues().end()) pending[k] = it->second.counts.pend;
    }
    view_reports_.pools = sched::slot_pool_usage(view, t, pending);
  }
}

MetricsInput Mbatchd::metrics_input() {
  MetricsInput in;
  in.view_reports = &view_reports_;
  wire::RequestEnvelope clusters_request;
  clusters_request.mutable_clusters();
  cluster_links_.on_clusters(clusters_request, [&in](wire::ReplyEnvelope reply) {
    for (const auto& l : reply.clusters().leases())
      in.leases.push_back({l.remote_cluster(), l.resource_flow(), l.status(), l.hosts(), l.slots()});
  });
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
