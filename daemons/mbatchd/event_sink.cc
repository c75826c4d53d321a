#include "daemons/mbatchd/event_sink.h"

namespace lsf::mbd {
namespace {

// A full disk refuses every change; the log says so this often, not once per request.
constexpr std::chrono::seconds kRefusalLogInterval{60};

std::int64_t wall_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

LogEventSink::LogEventSink(ClusterState& state, std::shared_ptr<spdlog::logger> log, std::function<void()> on_failure,
                           const daemon::ThreadOwner* owner)
    : state_(state), log_(std::move(log)), on_failure_(std::move(on_failure)), owner_(owner) {}

std::int64_t LogEventSink::now() const { return wall_seconds(); }

void LogEventSink::record(wire::EventRecord& event, std::int64_t at) {
  if (owner_) owner_->check("mbatchd's state (record)");
  event.set_time(at > 0 ? at : now());
  event.set_seq(state_.last_seq() + 1);
  event.set_epoch(epoch_);
  if (auto applied = state_.apply(event); !applied) log_->error("internal: {}", applied.message());
  writer_->append(event);
}

void LogEventSink::append_acct(std::string line) { writer_->append_acct(std::move(line)); }

void LogEventSink::reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply) {
  writer_->when_durable([this, respond, reply = std::move(reply)](bool ok) mutable {
    if (!ok) {
      // A superseded master says so, so that sbatchds and commands go to the new one.
      reply = writer_->failed_by_fence()
                  ? net::error_reply(wire::STATUS_NOT_MASTER, "not the master any more: " + writer_->failure())
                  : net::error_reply(wire::STATUS_INTERNAL, "cannot write the event log: " + writer_->failure());
      respond(std::move(reply));
      return on_failure_();
    }
    respond(std::move(reply));
  });
}

std::string LogEventSink::refusal() {
  std::string cause = writer_->refusal();
  if (cause.empty()) {
    if (refusing_) {
      log_->info("the event log has room again; changes are accepted ({} refused meanwhile)", refused_);
      refusing_ = false;
      refused_ = 0;
      last_refusal_log_ = {};
    }
    return {};
  }
  refusing_ = true;
  note_refusal("cannot write the event log: " + cause);
  return "cannot write the event log: " + cause;
}

void LogEventSink::note_refusal(const std::string& cause) {
  ++refused_;
  auto t = std::chrono::steady_clock::now();
  if (last_refusal_log_ != std::chrono::steady_clock::time_point{} && t - last_refusal_log_ < kRefusalLogInterval)
    return;
  log_->error("{}; refusing changes until there is room ({} refused so far)", cause, refused_);
  last_refusal_log_ = t;
}

void MemoryEventSink::record(wire::EventRecord& event, std::int64_t at) {
  event.set_time(at > 0 ? at : now());
  event.set_seq(state_.last_seq() + 1);
  if (auto applied = state_.apply(event); !applied) apply_errors.push_back(applied.message());
  records.push_back(event);
}

}  // namespace lsf::mbd
