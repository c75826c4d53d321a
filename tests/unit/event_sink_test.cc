// The event sink components record through (daemons/mbatchd/event_sink.h): a record is
// stamped, applied to the state and written; a reply waits until it is durable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "daemons/mbatchd/event_sink.h"
#include "event_records.h"

using namespace lsf;
using lsf::testing::job_new;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST(EventSink, MemorySinkStampsAppliesAndKeeps) {
  mbd::ClusterState state;
  mbd::MemoryEventSink sink(state);
  auto a = job_new(1), b = job_new(2);
  sink.record(a);
  sink.record(b, 5);
  ASSERT_EQ(sink.records.size(), 2u);
  EXPECT_EQ(sink.records[0].seq(), 1);
  EXPECT_EQ(sink.records[1].seq(), 2);
  EXPECT_EQ(sink.records[0].time(), sink.clock);
  EXPECT_EQ(sink.records[1].time(), 5);
  EXPECT_NE(state.find_job({2, 0}), nullptr);
  EXPECT_TRUE(sink.apply_errors.empty());
}

TEST(EventSink, LogSinkWritesAndRepliesWhenDurable) {
  fs::path dir = fs::temp_directory_path() / ("lsfsched-sink-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    mbd::ClusterState state;
    bool failed = false;
    mbd::LogEventSink sink(state, std::make_shared<spdlog::logger>("sink_test"), [&] { failed = true; });
    mbd::EventLogWriter writer(dir, 0, [](std::function<void()> f) { f(); });
    ASSERT_EQ(writer.open_error(), "");
    sink.attach(&writer);
    EXPECT_EQ(sink.refusal(), "");
    EXPECT_FALSE(sink.refusing());
    auto r = job_new(7);
    sink.record(r);
    EXPECT_EQ(r.seq(), 1);
    EXPECT_NE(state.find_job({7, 0}), nullptr);

    std::mutex mu;
    std::condition_variable cv;
    std::optional<wire::StatusCode> status;
    sink.reply_when_durable(
        [&](wire::ReplyEnvelope reply) {
          std::lock_guard l(mu);
          status = reply.status();
          cv.notify_all();
        },
        net::ok_reply());
    std::unique_lock l(mu);
    cv.wait(l, [&] { return status.has_value(); });
    EXPECT_EQ(*status, wire::STATUS_OK);
    EXPECT_FALSE(failed);
    l.unlock();
    writer.stop();
    EXPECT_GT(fs::file_size(dir / "lsb.events"), 0u);
  }
  fs::remove_all(dir);
}

#ifndef NDEBUG
// Whichever component records, a record off the state's thread aborts in debug builds.
TEST(EventSinkDeathTest, LogSinkRecordsOnlyOnTheStateThread) {
  mbd::ClusterState state;
  daemon::ThreadOwner owner;
  owner.bind();
  mbd::LogEventSink sink(
      state, std::make_shared<spdlog::logger>("sink_test"), [] {}, &owner);
  EXPECT_DEATH(
      {
        std::thread other([&] {
          auto r = job_new(1);
          sink.record(r);
        });
        other.join();
      },
      "touched off its owning thread");
}
#endif
