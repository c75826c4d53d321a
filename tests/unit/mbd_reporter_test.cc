// sbatchd's reporter (daemons/sbatchd/mbd_reporter.h) against a real RPC server: a
// report is sent again until mbatchd has made it durable, and only then dropped.
#include "daemons/sbatchd/mbd_reporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "daemons/common/rpc_server.h"

using namespace lsf;

namespace {

// An mbatchd stand-in that answers each job report with the next status of a script.
struct FakeMaster {
  net::asio::io_context io;
  std::unique_ptr<net::RpcServer> server;
  std::thread thread;
  std::mutex mu;
  std::vector<wire::StatusCode> script;  // one per call; OK once it runs out
  int calls = 0;

  FakeMaster() {
    net::ServerOptions o;
    o.trust_unsigned = true;
    server = std::make_unique<net::RpcServer>(
        io, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0),
        [this](wire::RequestEnvelope&, const net::Peer&, const net::Responder& respond) {
          std::lock_guard lock(mu);
          const auto status = calls < static_cast<int>(script.size()) ? script[calls] : wire::STATUS_OK;
          ++calls;
          respond(status == wire::STATUS_OK ? net::ok_reply() : net::error_reply(status, "scripted"));
        },
        o);
    thread = std::thread([this] { io.run(); });
  }
  ~FakeMaster() {
    net::asio::post(io, [this] {
      server->stop();
      io.stop();
    });
    thread.join();
  }
  int call_count() {
    std::lock_guard lock(mu);
    return calls;
  }
};

wire::RequestEnvelope job_finished() {
  wire::RequestEnvelope r;
  auto* s = r.mutable_job_status();
  s->set_job_id(7);
  s->set_host_name("hostA");
  s->set_event(wire::JOB_EVENT_FINISH);
  return r;
}

// Sends one job report through a reporter to `master`; the statuses its caller is told
// of, once told (at most one).
std::vector<wire::StatusCode> answers_to_one_report(FakeMaster& master) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<wire::StatusCode> answers;
  sbd::MbdReporter reporter("127.0.0.1", master.server->port(), std::chrono::seconds(2), std::nullopt,
                            [](std::function<void()> f) { f(); });
  reporter.send(job_finished(), [&](const wire::ReplyEnvelope& reply) {
    std::lock_guard lock(mu);
    answers.push_back(reply.status());
    cv.notify_all();
  });
  {
    std::unique_lock lock(mu);
    cv.wait_for(lock, std::chrono::seconds(20), [&] { return !answers.empty(); });
  }
  // Long enough for a report wrongly sent again to show in the master's count.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  reporter.stop();
  std::lock_guard lock(mu);
  return answers;
}

}  // namespace

// A master whose event log failed answers INTERNAL and restarts from its log, without
// the report: the report must reach the mbatchd that comes back.
TEST(MbdReporter, AReportMbatchdCouldNotMakeDurableIsSentAgain) {
  FakeMaster master;
  master.script = {wire::STATUS_INTERNAL, wire::STATUS_UNAVAILABLE, wire::STATUS_NOT_MASTER};
  EXPECT_EQ(answers_to_one_report(master), std::vector<wire::StatusCode>{wire::STATUS_OK});
  EXPECT_EQ(master.call_count(), 4);
}

// A refusal that sending again cannot change is the report's end.
TEST(MbdReporter, ARefusedReportIsNotSentAgain) {
  FakeMaster master;
  master.script = {wire::STATUS_BAD_REQUEST};
  EXPECT_EQ(answers_to_one_report(master), std::vector<wire::StatusCode>{wire::STATUS_BAD_REQUEST});
  EXPECT_EQ(master.call_count(), 1);
}
