#include "daemons/sbatchd/mbd_reporter.h"

namespace lsf::sbd {

MbdReporter::MbdReporter(std::string host, std::uint16_t port, std::chrono::milliseconds timeout, Post post)
    : client_(std::move(host), port, timeout), post_(std::move(post)), thread_([this] { run(); }) {}

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
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      item = queue_.front();
    }
    auto result = client_.call(item.request);
    if (result.reply || !item.retry) {
      {
        std::lock_guard lock(mu_);
        queue_.pop_front();
      }
      backoff = std::chrono::milliseconds(50);
      if (result.reply && item.on_reply) post_([cb = item.on_reply, reply = *result.reply] { cb(reply); });
      continue;
    }
    // mbatchd is away: wait, then try the same report again.
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, backoff, [&] { return stopping_; });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace lsf::sbd
