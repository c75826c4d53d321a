#include "daemons/sbatchd/mbd_reporter.h"

#include <algorithm>
#include <vector>

namespace lsf::sbd {
namespace {
constexpr std::size_t kMaxBatch = 512;
}

MbdReporter::MbdReporter(std::string host, std::uint16_t port, std::chrono::milliseconds timeout,
                         std::optional<net::ClusterKey> key, Post post, Locate locate)
    : host_(std::move(host)),
      port_(port),
      timeout_(timeout),
      key_(std::move(key)),
      locate_(std::move(locate)),
      post_(std::move(post)) {
  new_client();
  thread_ = std::thread([this] { run(); });
}

// A connection the master's host does not take at once is given up after a short
// while and tried again: after a network cut, the kernel would otherwise retry the
// handshake only at its own backoff (up to 15 s apart) while the call's whole timeout
// runs, and the host's reports and registration would wait that long.
void MbdReporter::new_client() {
  client_ = std::make_unique<net::RpcClient>(host_, port_, timeout_);
  client_->set_connect_timeout(std::min(timeout_, kConnectTimeout));
  if (key_) client_->set_key(*key_, "mbatchd");
}

void MbdReporter::follow_master() {
  if (!locate_) return;
  auto [host, port] = locate_();
  if (host == host_ && port == port_) return;
  host_ = std::move(host);
  port_ = port;
  new_client();
}

MbdReporter::~MbdReporter() { stop(); }

void MbdReporter::send(wire::RequestEnvelope request, OnReply on_reply) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back({std::move(request), std::move(on_reply), true});
  }
  cv_.notify_one();
}

void MbdReporter::send_if_idle(wire::RequestEnvelope request, OnReply on_reply) {
  {
    std::lock_guard lock(mu_);
    if (!queue_.empty()) return;
    queue_.push_back({std::move(request), std::move(on_reply), false});
  }
  cv_.notify_one();
}

void MbdReporter::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MbdReporter::run() {
  auto backoff = std::chrono::milliseconds(50);
  for (;;) {
    Item item;
    std::size_t taken = 1;
    std::vector<OnReply> callbacks;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      item = queue_.front();
      callbacks.push_back(item.on_reply);
      // Job reports waiting together go in one call: one round trip, one fsync.
      if (item.request.has_job_status() && queue_.size() > 1) {
        wire::RequestEnvelope batch;
        *batch.mutable_caller() = item.request.caller();
        auto* reports = batch.mutable_job_status_batch();
        for (taken = 0; taken < queue_.size() && taken < kMaxBatch && queue_[taken].request.has_job_status(); ++taken) {
          *reports->add_reports() = queue_[taken].request.job_status();
          if (taken > 0) callbacks.push_back(queue_[taken].on_reply);
        }
        item.request = std::move(batch);
      }
    }
    auto result = client_->call(item.request);
    if (!result.reply) follow_master();
    // UNAVAILABLE: mbatchd has the report but could not pass it on (a consumer cluster's
    // job, the consumer away); until it can, the report is sent again. Reports behind it
    // wait: they must arrive in order.
    // NOT_MASTER: a master that was superseded; the report goes to the new one.
    // INTERNAL: mbatchd could not make it durable (its event log failed; it restarts
    // from the log, without it): it is sent again to the mbatchd that comes back.
    const auto status = result.reply ? result.reply->status() : wire::STATUS_UNAVAILABLE;
    const bool delivered = result.reply && status != wire::STATUS_UNAVAILABLE && status != wire::STATUS_NOT_MASTER &&
                           status != wire::STATUS_INTERNAL;
    if (result.reply && result.reply->status() == wire::STATUS_NOT_MASTER) follow_master();
    if (delivered || !item.retry) {
      {
        std::lock_guard lock(mu_);
        for (std::size_t i = 0; i < taken; ++i) queue_.pop_front();
      }
      backoff = std::chrono::milliseconds(50);
      if (result.reply)
        for (auto& cb : callbacks)
          if (cb) post_([cb, reply = *result.reply] { cb(reply); });
      continue;
    }
    // mbatchd is away: wait, then try the same report again.
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, backoff, [&] { return stopping_; });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace lsf::sbd
