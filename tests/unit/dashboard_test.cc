// The dashboard's JSON: valid JSON (read back by protobuf's JSON parser), names that
// cannot break out of their strings, pending reasons grouped, the history ring.
#include <gtest/gtest.h>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/dashboard.h"
#include "daemons/mbatchd/json_text.h"
#include "event_records.h"
#include "libsched/model/policy.h"

using namespace lsf;
using lsf::testing::job_new;
using lsf::testing::job_start;

namespace {

google::protobuf::Struct parse(const std::string& json) {
  google::protobuf::Struct out;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &out);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return out;
}

}  // namespace

TEST(DashboardJson, StringsAreEscapedForJsonAndForThePage) {
  EXPECT_EQ(mbd::json_string("a\"b\\c\n<script>&\x01"), "\"a\\\"b\\\\c\\n\\u003cscript\\u003e\\u0026\\u0001\"");
  auto s = parse("{\"x\":" + mbd::json_string("q\"</script>\t") + "}");
  EXPECT_EQ(s.fields().at("x").string_value(), "q\"</script>\t");
}

TEST(DashboardJson, StateIsJsonWithQueuesReasonsAndHistory) {
  config::ClusterConfig cfg;
  for (const char* name : {"normal", "short\"q"}) {
    config::Queue q;
    q.name = name;
    cfg.queues.push_back(q);
  }
  mbd::ClusterState state;
  state.sync_config(cfg, sched::build_policy(cfg));
  for (int id = 1; id <= 3; ++id) ASSERT_EQ(state.apply(job_new(id, "alice", "normal")).message(), "");
  ASSERT_EQ(state.apply(job_start(1, "hostA")).message(), "");
  auto busy = std::make_shared<const std::string>("Job slot limit reached");
  state.set_pending_reason({2, 0}, busy);
  state.set_pending_reason({3, 0}, busy);

  mbd::PassCounters passes;
  passes.passes = 2;
  passes.total_took = std::chrono::microseconds(3000);
  passes.recent.push_back({100, 1.5, 2, 2, 1});
  mbd::DashboardHistory history;
  history.sample(100, state, passes);
  mbd::MetricsInput metrics;
  metrics.cluster = "c1";
  metrics.state = &state;
  metrics.hosts = {{"hostA", "ok", 4, 1, 0, 0}};
  metrics.health.passes = &passes;
  mbd::DashboardInput in;
  in.metrics = &metrics;
  in.master = "hostA";
  in.now = 123;
  in.queue_priorities = {{"short\"q", 40}, {"normal", 30}};
  in.pending_reasons = mbd::group_pending_reasons(state, 10);
  in.history = &history.samples();
  ASSERT_EQ(in.pending_reasons.size(), 1u);
  EXPECT_EQ(in.pending_reasons[0], (std::pair<std::string, int>{"Job slot limit reached", 2}));

  auto s = parse(mbd::dashboard_state_json(in));
  EXPECT_EQ(s.fields().at("cluster").string_value(), "c1");
  EXPECT_EQ(s.fields().at("jobs").struct_value().fields().at("PEND").number_value(), 2);
  EXPECT_EQ(s.fields().at("jobs").struct_value().fields().at("RUN").number_value(), 1);
  const auto& queues = s.fields().at("queues").list_value();
  ASSERT_EQ(queues.values_size(), 2);
  EXPECT_EQ(queues.values(0).struct_value().fields().at("name").string_value(), "short\"q");  // by priority
  EXPECT_EQ(queues.values(1).struct_value().fields().at("slots").struct_value().fields().at("RUN").number_value(), 1);
  const auto& h = s.fields().at("history").list_value();
  ASSERT_EQ(h.values_size(), 1);
  EXPECT_EQ(h.values(0).struct_value().fields().at("pass_ms").number_value(), 1.5);  // 3 ms over 2 passes
  EXPECT_EQ(h.values(0).struct_value().fields().at("run").struct_value().fields().at("normal").number_value(), 1);
  EXPECT_EQ(s.fields().at("passes").struct_value().fields().at("recent").list_value().values_size(), 1);
  EXPECT_EQ(s.fields().at("slot_pools").list_value().values_size(), 0);  // no SLOT_POOL queue

  auto hosts = parse("{\"h\":" + mbd::dashboard_hosts_json(metrics.hosts, {{0.5, 0.25, 1000, 2000}}) + "}");
  const auto& row = hosts.fields().at("h").list_value().values(0).struct_value().fields();
  EXPECT_EQ(row.at("name").string_value(), "hostA");
  EXPECT_EQ(row.at("ut").number_value(), 0.25);
}

TEST(DashboardHistory, KeepsTheLastHourOfSamples) {
  mbd::ClusterState state;
  mbd::PassCounters passes;
  mbd::DashboardHistory history;
  for (std::size_t k = 0; k < mbd::DashboardHistory::kSamples + 5; ++k)
    history.sample(static_cast<std::int64_t>(k), state, passes);
  ASSERT_EQ(history.samples().size(), mbd::DashboardHistory::kSamples);
  EXPECT_EQ(history.samples().front().time, 5);
  EXPECT_EQ(history.samples().back().pass_ms, 0);  // no pass ran
}
