// Event records the mbatchd unit tests build their state from.
#pragma once

#include <cstdint>

#include "lsf.pb.h"

namespace lsf::testing {

// A plain job of alice's in queue normal, running `true`.
inline wire::EventRecord job_new(std::int64_t id) {
  wire::EventRecord r;
  auto* e = r.mutable_job_new();
  e->set_job_id(id);
  e->set_user("alice");
  e->mutable_spec()->set_command("true");
  e->set_queue("normal");
  return r;
}

}  // namespace lsf::testing
