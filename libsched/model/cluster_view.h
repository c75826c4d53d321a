// The read-only picture of the cluster a scheduling pass works on. mbatchd builds it
// from its state (a snapshot, so the pass can run while requests are served); the
// simulator and the tests build it by hand. Plain values only: no sockets, files or
// clocks reach libsched.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libconfig/resreq.h"
#include "libconfig/select_expr.h"

namespace lsf::sched {

// A job or one element of a job array (index 0 for plain jobs), as LSF names it: 12[3].
struct JobKey {
  std::int64_t id = 0;
  std::int32_t index = 0;
  auto operator<=>(const JobKey&) const = default;
};

struct HostView {
  std::string name;
  // "ok", or the closed_*/unavail/unreach status that keeps jobs off the host.
  std::string status = "ok";
  int max_slots = -1;  // MXJ; -1: unlimited
  int used_slots = 0;  // running and suspended jobs' slots
  bool running_exclusive = false;
  // Static resources and current load by name (r1m, mem, type, model, fs ...).
  std::map<std::string, config::ResourceValue, std::less<>> resources;
};

struct QueueView {
  std::string name;
  int priority = 1;
  bool dispatching = true;          // open to dispatch: active and window open
  std::string inactive_reason;      // when not dispatching
  std::vector<std::string> hosts;   // host names; empty: every host
  bool accepts_exclusive = false;
  int qjob_limit = -1;              // slots the queue may use; -1: unlimited
  int used_slots = 0;
};

enum class DependencyState { kNone, kSatisfied, kWaiting, kNever };

struct JobView {
  JobKey key;
  int queue = 0;                    // index into ClusterView::queues
  std::int64_t order = 0;           // submission order: FCFS within a queue
  int slots = 1;                    // -n
  std::vector<std::string> asked_hosts;  // -m as host names; empty: any
  bool exclusive = false;
  std::shared_ptr<const config::ResourceRequirement> res_req;  // job merged with queue; may be null
  std::int64_t begin_time = 0;
  DependencyState dependency = DependencyState::kNone;
  bool held = false;                // PSUSP
  int array_limit = 0;              // %n of `name[1-100]%n`; 0: none (key.id is the array)
};

struct ClusterView {
  std::vector<HostView> hosts;
  std::vector<QueueView> queues;
  std::vector<JobView> pending;
  std::map<std::int64_t, int> array_running;  // running elements per array with a limit
};

}  // namespace lsf::sched
