// Sends sbatchd's reports to mbatchd from a thread of its own, in order, retrying each
// until mbatchd acknowledges it: a report is never lost to an mbatchd restart, and the
// daemon's own thread never waits on the network. With master candidates it asks
// where the master is after each call that got no answer, so reports follow a takeover.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "daemons/common/rpc_client.h"

namespace lsf::sbd {

class MbdReporter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  using OnReply = std::function<void(const wire::ReplyEnvelope&)>;
  // Where mbatchd is now (net::MasterLocator): host and port.
  using Locate = std::function<std::pair<std::string, std::uint16_t>()>;

  // Signs what it sends with `key` when there is one. Without `locate`, the master
  // stays at `host` and `port`.
  MbdReporter(std::string host, std::uint16_t port, std::chrono::milliseconds timeout,
              std::optional<net::ClusterKey> key, Post post, Locate locate = {});
  ~MbdReporter();

  // Retried until answered; `on_reply` runs on the daemon's thread.
  void send(wire::RequestEnvelope request, OnReply on_reply);
  // Sent once, only when nothing else is waiting (load reports are soon stale).
  void send_if_idle(wire::RequestEnvelope request, OnReply on_reply);
  void stop();

 private:
  struct Item {
    wire::RequestEnvelope request;
    OnReply on_reply;
    bool retry = true;
  };
  void run();
  // After a call without an answer: a client for where the master is now.
  void follow_master();
  void new_client();

  static constexpr std::chrono::milliseconds kConnectTimeout{2000};

  std::unique_ptr<net::RpcClient> client_;
  std::string host_;
  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  std::optional<net::ClusterKey> key_;
  Locate locate_;
  Post post_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lsf::sbd
