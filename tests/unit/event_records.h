// Event records the mbatchd unit tests build their state from.
#pragma once

#include <cstdint>
#include <string>

#include "lsf.pb.h"

namespace lsf::testing {

// A plain job of `user`'s in `queue`, running `true`.
inline wire::EventRecord job_new(std::int64_t id, const std::string& user = "alice",
                                 const std::string& queue = "normal") {
  wire::EventRecord r;
  auto* e = r.mutable_job_new();
  e->set_job_id(id);
  e->set_user(user);
  e->mutable_spec()->set_command("true");
  e->set_queue(queue);
  return r;
}

// The job dispatched to `host`.
inline wire::EventRecord job_start(std::int64_t id, const std::string& host) {
  wire::EventRecord r;
  r.mutable_job_start()->set_job_id(id);
  r.mutable_job_start()->add_exec_hosts(host);
  return r;
}

// The job now in `state` (suspended, resumed, ended).
inline wire::EventRecord job_status(std::int64_t id, wire::JobState state) {
  wire::EventRecord r;
  r.mutable_job_status()->set_job_id(id);
  r.mutable_job_status()->set_state(state);
  return r;
}

}  // namespace lsf::testing
