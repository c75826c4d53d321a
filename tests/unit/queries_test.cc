// The Queries component (daemons/mbatchd/queries.h) answers bhist and badmin hist from
// the event log files, without sockets or an Mbatchd: records go in through the event
// sink as mbatchd writes them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>

#include "daemons/mbatchd/event_sink.h"
#include "daemons/mbatchd/mbatchd.h"  // logdir_of
#include "daemons/mbatchd/queries.h"

using namespace lsf;
namespace fs = std::filesystem;

namespace {

wire::EventRecord job_new(std::int64_t id, const std::string& user) {
  wire::EventRecord r;
  auto* e = r.mutable_job_new();
  e->set_job_id(id);
  e->set_user(user);
  e->mutable_spec()->set_command("true");
  e->set_queue("normal");
  return r;
}

struct LoggedCluster {
  fs::path share = fs::temp_directory_path() / ("lsfsched-queries-" + std::to_string(::getpid()));
  std::shared_ptr<const config::ClusterConfig> config;
  mbd::ClusterState state;

  LoggedCluster() {
    auto c = std::make_shared<config::ClusterConfig>();
    c->cluster_name = "c1";
    c->lsf_conf.lsb_sharedir = share.string();
    config = c;
    fs::create_directories(mbd::logdir_of(*config));
  }
  ~LoggedCluster() { fs::remove_all(share); }

  // Records through the sink mbatchd uses and waits until they are durable.
  void record(std::vector<wire::EventRecord> records) {
    mbd::EventLogWriter writer(
        mbd::logdir_of(*config),
        fs::exists(mbd::logdir_of(*config) / "lsb.events") ? fs::file_size(mbd::logdir_of(*config) / "lsb.events") : 0,
        [](std::function<void()> f) { f(); });
    ASSERT_EQ(writer.open_error(), "");
    mbd::LogEventSink sink(state, std::make_shared<spdlog::logger>("queries_test"), [] {});
    sink.attach(&writer);
    for (auto& r : records) sink.record(r);
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    sink.reply_when_durable(
        [&](wire::ReplyEnvelope) {
          std::lock_guard l(mu);
          done = true;
          cv.notify_all();
        },
        net::ok_reply());
    std::unique_lock l(mu);
    cv.wait(l, [&] { return done; });
    l.unlock();
    writer.stop();
  }
};

wire::RequestEnvelope history(const std::string& caller, void (*fill)(wire::HistoryRequest&) = nullptr) {
  wire::RequestEnvelope r;
  r.mutable_caller()->set_user_name(caller);
  auto* h = r.mutable_history();
  if (fill) fill(*h);
  return r;
}

}  // namespace

TEST(Queries, HistoryShowsTheCallersJobsFromTheLog) {
  LoggedCluster c;
  wire::EventRecord start;
  start.mutable_mbd_start()->set_cluster("c1");
  c.record({start, job_new(1, "alice"), job_new(2, "bob"), job_new(3, "alice")});
  mbd::Queries queries(c.config);

  auto reply = queries.history(history("alice"));
  ASSERT_EQ(reply.status(), wire::STATUS_OK);
  ASSERT_EQ(reply.history().events_size(), 2);
  EXPECT_EQ(reply.history().events(0).job_new().job_id(), 1);
  EXPECT_EQ(reply.history().events(1).job_new().job_id(), 3);

  auto all = queries.history(history("alice", [](wire::HistoryRequest& h) { h.set_user("all"); }));
  EXPECT_EQ(all.history().events_size(), 3);

  auto cluster = queries.history(history("alice", [](wire::HistoryRequest& h) { h.set_cluster(true); }));
  ASSERT_EQ(cluster.history().events_size(), 1);
  EXPECT_TRUE(cluster.history().events(0).has_mbd_start());
}

TEST(Queries, AcctWithoutAFileIsEmpty) {
  LoggedCluster c;
  mbd::Queries queries(c.config);
  wire::RequestEnvelope r;
  r.mutable_caller()->set_user_name("alice");
  r.mutable_acct();
  auto reply = queries.acct(r);
  EXPECT_EQ(reply.status(), wire::STATUS_OK);
  EXPECT_EQ(reply.acct().records_size(), 0);
}
