// EventSink: what mbatchd's components record state changes through. A change is an
// EventRecord: stamped (time, sequence number), applied to the ClusterState, appended
// to lsb.events; a reply that reports it waits until it is durable.
//
// Owns: LogEventSink owns the refusal bookkeeping (whether changes are being refused,
// how many, when that was last logged); the state and the writer are the caller's.
// MemoryEventSink owns the records it was given (tests).
// Thread: the state thread (the io_context) only; the writer's own thread is behind
// EventLogWriter. Given the state's ThreadOwner, LogEventSink asserts it on every record
// in debug builds, whichever component records.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include "daemons/common/rpc_server.h"
#include "daemons/common/thread_owner.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/event_log_writer.h"

namespace lsf::mbd {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Wall-clock seconds, as records are stamped.
  virtual std::int64_t now() const = 0;
  // Stamps (with `at`, when the event happened earlier, else now), applies, appends.
  // Callers check refusal() before the first change of a request; records made on
  // mbatchd's own account go into the log's reserve.
  virtual void record(wire::EventRecord& event, std::int64_t at = 0) = 0;
  // A line of lsb.acct, written with the records before it.
  virtual void append_acct(std::string line) = 0;
  // Empty while state changes may be made; else the refusal to send ("cannot write the
  // event log: No space left on device").
  virtual std::string refusal() = 0;
  // Sends `reply` once everything recorded before is durable; an error if it never is.
  virtual void reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply) = 0;
};

// The sink mbatchd runs with: ClusterState and lsb.events.
class LogEventSink : public EventSink {
 public:
  // `on_failure`: a write the state already reflects failed (mbatchd stops, once).
  // `owner`: the thread that may touch `state` (none: unchecked).
  LogEventSink(ClusterState& state, std::shared_ptr<spdlog::logger> log, std::function<void()> on_failure,
               const daemon::ThreadOwner* owner = nullptr);
  // The writer exists once mbatchd starts; records before that are a bug.
  void attach(EventLogWriter* writer) { writer_ = writer; }
  // The master's term, stamped on every record from now on (master_role.h).
  void set_epoch(std::int64_t epoch) { epoch_ = epoch; }

  std::int64_t now() const override;
  void record(wire::EventRecord& event, std::int64_t at = 0) override;
  void append_acct(std::string line) override;
  // Logs the refusal once per interval, not per request, and when it ends.
  std::string refusal() override;
  void reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply) override;
  bool refusing() const { return refusing_; }
  // Counts a refused change and logs `cause` at most once per interval.
  void note_refusal(const std::string& cause);

 private:
  ClusterState& state_;
  std::shared_ptr<spdlog::logger> log_;
  std::function<void()> on_failure_;
  const daemon::ThreadOwner* owner_;
  EventLogWriter* writer_ = nullptr;
  std::int64_t epoch_ = 0;
  bool refusing_ = false;  // changes are being refused; logged when it ends
  std::uint64_t refused_ = 0;
  std::chrono::steady_clock::time_point last_refusal_log_{};
};

// For tests: applies to a ClusterState and keeps the records; durable at once.
class MemoryEventSink : public EventSink {
 public:
  explicit MemoryEventSink(ClusterState& state) : state_(state) {}
  std::int64_t now() const override { return clock; }
  void record(wire::EventRecord& event, std::int64_t at = 0) override;
  void append_acct(std::string line) override { acct.push_back(std::move(line)); }
  std::string refusal() override { return refusing; }
  void reply_when_durable(const net::Responder& respond, wire::ReplyEnvelope reply) override {
    respond(std::move(reply));
  }

  std::int64_t clock = 1'700'000'000;
  std::string refusing;  // what refusal() says
  std::vector<wire::EventRecord> records;
  std::vector<std::string> acct;
  std::vector<std::string> apply_errors;

 private:
  ClusterState& state_;
};

}  // namespace lsf::mbd
