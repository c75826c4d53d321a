// /metrics: the text format (escaping, histograms), the HTTP listener's bounds over a
// real socket, the counts ClusterState keeps as jobs change, and what a scrape says.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "daemons/common/histogram.h"
#include "daemons/common/http_server.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/metrics.h"
#include "daemons/mbatchd/metrics_text.h"
#include "event_records.h"
#include "libsched/model/policy.h"

using namespace lsf;
using lsf::testing::job_new;
using lsf::testing::job_start;
using lsf::testing::job_status;

namespace {

wire::EventRecord at(std::int64_t time, wire::EventRecord r) {
  r.set_time(time);
  return r;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

}  // namespace

TEST(MetricsText, LabelValuesCannotBreakALineOrForgeASample) {
  mbd::MetricsText out;
  out.family("lsf_user_jobs", "gauge", "Jobs by user");
  out.sample("lsf_user_jobs", {{"user", "ev\"il\\\nlsf_jobs 99"}}, 3);
  EXPECT_EQ(out.text(),
            "# HELP lsf_user_jobs Jobs by user\n# TYPE lsf_user_jobs gauge\n"
            "lsf_user_jobs{user=\"ev\\\"il\\\\\\nlsf_jobs 99\"} 3\n");
}

TEST(MetricsText, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  net::Histogram h;
  h.observe(0.0002);
  h.observe(0.003);
  h.observe(0.003);
  h.observe(20.0);
  mbd::MetricsText out;
  out.histogram("lsf_x_seconds", {{"type", "jobs"}}, h);
  const std::string& t = out.text();
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_bucket{type=\"jobs\",le=\"0.0005\"} 1")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_bucket{type=\"jobs\",le=\"0.0025\"} 1")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_bucket{type=\"jobs\",le=\"0.005\"} 3")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_bucket{type=\"jobs\",le=\"10\"} 3")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_bucket{type=\"jobs\",le=\"+Inf\"} 4")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_count{type=\"jobs\"} 4")) << t;
  EXPECT_TRUE(has_line(t, "lsf_x_seconds_sum{type=\"jobs\"} 20.0062")) << t;
}

TEST(Histogram, QuantileIsTheBucketBoundNeverPastTheLargestObservation) {
  net::Histogram h;
  EXPECT_EQ(h.quantile(0.99), 0.0);
  for (int i = 0; i < 98; ++i) h.observe(0.002);  // bucket le=0.0025
  h.observe(0.3);                                 // le=0.5
  h.observe(0.4);
  EXPECT_DOUBLE_EQ(h.quantile(0.5), 0.0025);
  EXPECT_DOUBLE_EQ(h.quantile(0.99), 0.4);  // the 0.5 bucket, bounded by the largest seen
  EXPECT_DOUBLE_EQ(h.max(), 0.4);
  h.observe(60);
  EXPECT_DOUBLE_EQ(h.quantile(1.0), 60);  // past the last bound: the largest
}

TEST(HttpRequest, ParsesGetAndRefusesWhatItDoesNotServe) {
  auto ok = net::parse_http_request("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAuthorization:  Bearer t \r\n\r\n");
  ASSERT_TRUE(std::holds_alternative<net::HttpRequest>(ok));
  const auto& r = std::get<net::HttpRequest>(ok);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "x=1");
  EXPECT_EQ(r.header("authorization"), "Bearer t");
  auto status = [](std::string_view head) {
    auto p = net::parse_http_request(head);
    return std::holds_alternative<int>(p) ? std::get<int>(p) : 200;
  };
  EXPECT_EQ(status("POST /metrics HTTP/1.1\r\n\r\n"), 405);
  EXPECT_EQ(status("GET /metrics HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status("GET metrics HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET /a b HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n"), 400);
  EXPECT_EQ(status("HEAD / HTTP/1.0\n\n"), 200);
}

namespace {

// One request over a real socket to `port`; the whole response as read until close.
std::string http_call(std::uint16_t port, const std::string& bytes) {
  net::asio::io_context io;
  net::tcp::socket s(io);
  s.connect({net::asio::ip::make_address("127.0.0.1"), port});
  net::asio::write(s, net::asio::buffer(bytes));
  std::string out;
  boost::system::error_code ec;
  char buf[4096];
  for (;;) {
    std::size_t n = s.read_some(net::asio::buffer(buf), ec);
    out.append(buf, n);
    if (ec) break;
  }
  return out;
}

struct ServerThread {
  net::asio::io_context io;
  std::unique_ptr<net::HttpServer> server;
  std::thread thread;
  explicit ServerThread(net::HttpServerOptions options) {
    auto s = net::HttpServer::start(
        io, "127.0.0.1", 0,
        [](const net::HttpRequest& r) {
          net::HttpResponse resp;
          resp.body = "path=" + r.path + "\n";
          return resp;
        },
        options);
    EXPECT_TRUE(s.ok()) << s.error();
    server = std::move(*s);
    thread = std::thread([this] {
      auto guard = net::asio::make_work_guard(io);
      io.run();
    });
  }
  ~ServerThread() {
    net::asio::post(io, [this] {
      server.reset();
      io.stop();
    });
    thread.join();
  }
};

}  // namespace

TEST(HttpServer, AnswersGetHeadAndBoundsTheHead) {
  net::HttpServerOptions options;
  options.max_head = 512;
  options.timeout = std::chrono::milliseconds(300);
  ServerThread t(options);
  const auto port = t.server->port();
  auto got = http_call(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << got;
  EXPECT_NE(got.find("Content-Length: 14\r\n"), std::string::npos) << got;
  EXPECT_NE(got.find("\r\n\r\npath=/metrics\n"), std::string::npos) << got;
  got = http_call(port, "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_NE(got.find("Content-Length: 14\r\n"), std::string::npos) << got;
  EXPECT_EQ(got.find("path="), std::string::npos) << got;  // no body for HEAD
  got = http_call(port, "DELETE /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 405 ", 0), 0u) << got;
  EXPECT_NE(got.find("Allow: GET, HEAD\r\n"), std::string::npos) << got;
  // A head that never ends is cut off at the bound, not kept growing.
  got = http_call(port, "GET /metrics HTTP/1.1\r\nX-Pad: " + std::string(2000, 'a'));
  EXPECT_EQ(got.rfind("HTTP/1.1 431 ", 0), 0u) << got;
  // A peer that sends half a head and waits is closed at the timeout, unanswered.
  const auto began = std::chrono::steady_clock::now();
  got = http_call(port, "GET /metr");
  EXPECT_EQ(got, "");
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(30));
}

TEST(HttpServer, RefusesAnAddressItCannotBind) {
  net::asio::io_context io;
  auto s = net::HttpServer::start(io, "not-an-address", 0, [](const net::HttpRequest&) { return net::HttpResponse{}; });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("not-an-address"), std::string::npos) << s.error();
}

namespace {

struct TwoQueues {
  config::ClusterConfig cfg;
  mbd::ClusterState state;
  TwoQueues() {
    for (const char* name : {"normal", "short"}) {
      config::Queue q;
      q.name = name;
      cfg.queues.push_back(q);
    }
    config::ClusterHost h;
    h.name = "hostA";
    cfg.hosts.push_back(h);
    state.sync_config(cfg, sched::build_policy(cfg));
  }
};

}  // namespace

// The counts a scrape reads are kept as jobs change, through apply(), and a finished
// job forgotten at CLEAN_PERIOD leaves them.
TEST(ClusterStateTally, JobsByStateQueueAndUserFollowEveryChange) {
  TwoQueues c;
  auto& s = c.state;
  ASSERT_EQ(s.apply(at(100, job_new(1, "alice", "normal"))).message(), "");
  ASSERT_EQ(s.apply(at(100, job_new(2, "alice", "short"))).message(), "");
  ASSERT_EQ(s.apply(at(100, job_new(3, "bob", "normal"))).message(), "");
  ASSERT_EQ(s.apply(at(101, job_start(1, "hostA"))).message(), "");
  ASSERT_EQ(s.apply(at(102, job_start(3, "hostA"))).message(), "");
  ASSERT_EQ(s.apply(at(103, job_status(3, wire::JOB_USUSP))).message(), "");
  ASSERT_EQ(s.apply(at(110, job_status(1, wire::JOB_DONE))).message(), "");
  // PEND PSUSP RUN SSUSP USUSP DONE EXIT
  using T = std::array<int, mbd::StateTally::kStates>;
  EXPECT_EQ(s.tally().jobs, (T{1, 0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(s.queues().at("normal").tally.jobs, (T{0, 0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(s.queues().at("short").tally.jobs, (T{1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(s.user_tallies().at("alice").jobs, (T{1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(s.user_tallies().at("bob").jobs, (T{0, 0, 0, 0, 1, 0, 0}));
  ASSERT_EQ(s.apply(at(120, job_status(3, wire::JOB_EXIT))).message(), "");
  EXPECT_EQ(s.clean_finished(200), 2);  // jobs 1 and 3
  EXPECT_EQ(s.tally().jobs, (T{1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(s.user_tallies().count("bob"), 0u);  // a user with no job is dropped
  EXPECT_EQ(s.queues().at("normal").tally.jobs, (T{}));

  // A restart rebuilds the same counts from the snapshot.
  mbd::ClusterState restored;
  restored.sync_config(c.cfg, sched::build_policy(c.cfg));
  restored.load_snapshot(s.snapshot(300));
  EXPECT_EQ(restored.tally().jobs, s.tally().jobs);
  EXPECT_EQ(restored.queues().at("short").tally.jobs, s.queues().at("short").tally.jobs);
}

TEST(Metrics, AScrapeSaysWhatTheStateHolds) {
  TwoQueues c;
  auto& s = c.state;
  for (int id = 1; id <= 4; ++id)
    ASSERT_EQ(s.apply(at(100, job_new(id, "u" + std::to_string(id), "normal"))).message(), "");
  ASSERT_EQ(s.apply(at(100, job_new(5, "u1", "short"))).message(), "");
  ASSERT_EQ(s.apply(at(101, job_start(1, "hostA"))).message(), "");
  s.queues().at("short").open = false;

  mbd::PassCounters passes;
  passes.passes = 3;
  passes.took_seconds.observe(0.004);
  mbd::MetricsInput in;
  in.cluster = "c1";
  in.state = &s;
  in.top_users = 2;  // u1 (2 jobs) and u2 by name; u3, u4 as "other"
  in.hosts = {{"hostA", "ok", 4, 1, 2, 0}, {"hostB", "unavail", 8, 0, 0, 0}};
  in.host_groups = {{"grp", {"hostA", "hostB"}}};
  in.health.passes = &passes;
  in.health.requests.push_back({"submit", {}});
  in.health.requests.back().seconds.observe(0.0001);
  const std::string t = mbd::render_metrics(in);
  for (const char* line : {
           "lsf_cluster_info{cluster=\"c1\"} 1",
           "lsf_jobs{state=\"PEND\"} 4",
           "lsf_jobs{state=\"RUN\"} 1",
           "lsf_queue_jobs{queue=\"normal\",state=\"PEND\"} 3",
           "lsf_queue_jobs{queue=\"short\",state=\"PEND\"} 1",
           "lsf_queue_open{queue=\"short\"} 0",
           "lsf_queue_open{queue=\"normal\"} 1",
           "lsf_user_jobs{user=\"u1\",state=\"RUN\"} 1",
           "lsf_user_jobs{user=\"u1\",state=\"PEND\"} 1",
           "lsf_user_jobs{user=\"u2\",state=\"PEND\"} 1",
           "lsf_user_jobs{user=\"other\",state=\"PEND\"} 2",
           "lsf_users_with_jobs 4",
           "lsf_hosts{status=\"ok\"} 1",
           "lsf_hosts{status=\"unavail\"} 1",
           "lsf_slots{state=\"total\"} 12",
           "lsf_slots{state=\"used\"} 1",
           "lsf_gpus{state=\"total\"} 2",
           "lsf_host_group_slots{group=\"grp\",state=\"total\"} 12",
           "lsf_sched_passes_total 3",
           "lsf_sched_pass_duration_seconds_bucket{le=\"0.005\"} 1",
           "lsf_mbatchd_request_duration_seconds_count{type=\"submit\"} 1",
       })
    EXPECT_TRUE(has_line(t, line)) << line << "\n" << t;
  EXPECT_EQ(t.find("user=\"u3\""), std::string::npos) << t;
  EXPECT_EQ(t.find("lsf_event_log_snapshot_age_seconds"), std::string::npos);  // none yet
}

TEST(Metrics, GuaranteePoolsAndThrottlesFromTheLastPass) {
  TwoQueues c;
  sched::GuaranteeReport g;
  g.pool = "pool1";
  g.type = "slots";
  g.total = 8;
  g.free = 3;
  g.owner_use.slots = 4;
  g.loan_use.slots = 1;
  g.owners.push_back({"sla1", 6, 4, {}});
  std::vector<sched::GuaranteeReport> guarantees{g};
  config::ClusterConfig cfg;
  sched::SchedPolicy policy;
  policy.limits.push_back({});
  policy.limits.back().name = "maui";
  std::vector<sched::ThrottleUse> throttles{{0, "alice", "", "", 2, 5, 2, 7200}};
  mbd::MetricsInput in;
  in.state = &c.state;
  in.policy = &policy;
  in.guarantees = &guarantees;
  in.throttles = &throttles;
  const std::string t = mbd::render_metrics(in);
  for (const char* line : {
           "lsf_guarantee_pool_resources{pool=\"pool1\",type=\"slots\",state=\"free\"} 3",
           "lsf_guarantee_pool_slots{pool=\"pool1\",use=\"loan\"} 1",
           "lsf_guarantee_owner{pool=\"pool1\",service_class=\"sla1\",what=\"guaranteed\"} 6",
           "lsf_throttle_jobs{limit=\"maui\",user=\"alice\",queue=\"\",project=\"\",state=\"idle\"} 5",
           "lsf_throttle_proc_seconds{limit=\"maui\",user=\"alice\",queue=\"\",project=\"\"} 7200",
       })
    EXPECT_TRUE(has_line(t, line)) << line << "\n" << t;
}

TEST(Metrics, LimitsSharesSlotPoolsAndLeases) {
  TwoQueues c;
  sched::SchedPolicy policy;
  policy.limits.push_back({});
  policy.limits.back().name = "cap";
  policy.limits.back().slots = 100;
  policy.queues.push_back({});
  policy.queues.back().name = "normal";
  mbd::ViewReports reports;
  reports.made_at = 1;
  reports.limits.push_back({0, "alice", "", "", "", 12, 3, {}});
  reports.limits.push_back({7, "ghost", "", "", "", 1, 1, {}});  // a limit gone by a reconfig: left out
  std::vector<sched::ShareRow> rows(60);
  for (int k = 0; k < 60; ++k) {
    rows[static_cast<std::size_t>(k)].name = "user" + std::to_string(k);
    rows[static_cast<std::size_t>(k)].started = k;
    rows[static_cast<std::size_t>(k)].priority = 0.5 * k;
  }
  reports.shares.emplace_back("normal", rows);
  reports.pools.push_back({0, "pool1", 60, 6, 4, 10});
  mbd::MetricsInput in;
  in.state = &c.state;
  in.policy = &policy;
  in.view_reports = &reports;
  in.leases.push_back({"c2", "EXPORT", "ok", 2, 8});
  const std::string t = mbd::render_metrics(in);
  for (const char* line : {
           "lsf_limit_max{limit=\"cap\",what=\"slots\"} 100",
           "lsf_limit_use{limit=\"cap\",user=\"alice\",queue=\"\",project=\"\",host=\"\",what=\"slots\"} 12",
           "lsf_limit_use{limit=\"cap\",user=\"alice\",queue=\"\",project=\"\",host=\"\",what=\"jobs\"} 3",
           "lsf_fairshare_priority{queue=\"normal\",account=\"user59\"} 29.5",
           "lsf_fairshare_started{queue=\"normal\",account=\"user10\"} 10",
           "lsf_slot_pool{pool=\"pool1\",queue=\"normal\",what=\"entitled\"} 6",
           "lsf_mc_lease_slots{remote_cluster=\"c2\",flow=\"EXPORT\",status=\"ok\"} 8",
       })
    EXPECT_TRUE(has_line(t, line)) << line << "\n" << t;
  EXPECT_EQ(t.find("ghost"), std::string::npos);
  // Fifty accounts at most per queue, the most started: user10..user59.
  EXPECT_EQ(t.find("account=\"user9\""), std::string::npos) << t;
  EXPECT_NE(t.find("account=\"user10\""), std::string::npos);
}
