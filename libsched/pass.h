// The scheduling pass: cluster view + now -> decisions. Deterministic: the same view
// gives the same decisions, whoever calls it (mbatchd, the simulator, tests).
//
// The pass is a pipeline of modules named as in lsb.modules (libsched/modules/); this
// header is all a caller needs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libsched/model/cluster_view.h"
#include "libsched/modules/schmod_aps.h"        // ApsScore
#include "libsched/modules/schmod_guarantee.h"  // GuaranteeReport
#include "libsched/modules/schmod_throttle.h"   // ThrottleUse

namespace lsf::sched {

struct Dispatch {
  JobKey job;
  std::vector<std::string> hosts;  // one entry per slot, grouped by host
  // The same as (index in the view's hosts, slots there), for callers that keep their
  // hosts' table (the simulator) and would otherwise look every name up again.
  std::vector<std::pair<int, int>> slots;
  GpuAllocation gpus;           // the devices chosen for it, host by host; empty: it asked for none
  std::int64_t estimate_s = 0;  // what plans took it to run (JobView::estimate_s)
};

// Slots held for a pending parallel job (SLOT_RESERVE); later jobs may use them only
// by backfill, when their run limit ends before `estimated_start`. Under
// RESERVATION_MODEL = PLAN nothing is held now: `hosts` is empty and the job has booked
// `estimated_start` on the profile of free slots.
struct Reservation {
  JobKey job;
  std::vector<std::string> hosts;    // one entry per reserved slot
  std::int64_t since = 0;            // when the reservation began
  std::int64_t estimated_start = 0;  // 0: cannot be estimated (running jobs without run limits)
};

struct Suspend {
  JobKey job;
  SuspendCause cause = SuspendCause::kNone;
  std::string reason;
};

struct Resume {
  JobKey job;
};

// One host-level reason with the hosts it applies to (bjobs -l names them). Hosts are
// indexes into the pass's table of host names, which every reason of the pass shares:
// a pass composes hundreds of these over thousands of hosts. They are in the order the
// pass came upon them (the same for the same input), not sorted: whoever shows them
// sorts, once, when asked.
struct HostReason {
  std::string reason;
  std::vector<int> hosts;
  std::shared_ptr<const std::vector<std::string>> names;
  const std::string& name(int host) const { return (*names)[static_cast<size_t>(host)]; }
};
using HostReasons = std::vector<HostReason>;

struct PendingReason {
  JobKey job;
  // Without LSF's leading space and trailing ';'. Shared: 100,000 jobs pending for the
  // same reason hold one string.
  std::shared_ptr<const std::string> text;
  std::shared_ptr<const HostReasons> hosts;  // null when the reason is the job's own
  // Held back by a policy rather than waiting its turn: Maui's BLOCKED (a throttle such
  // as IDLE_JOBS refused it), where other pending jobs are IDLE, eligible.
  bool blocked = false;
  // Jobs that started after its turn in this pass, passing it over (Maui's bypass
  // count, the APS factor BYPASS); 0 for jobs refused before host matching (held,
  // blocked, over a limit), which nothing passes over.
  int bypassed = 0;
  // The job's index in the view's `pending`: a caller that keeps its own record of each
  // job beside the view finds it without a lookup per job (100,000 per pass).
  int view_index = -1;
};

struct PassStats {
  int jobs_pending = 0;
  int jobs_considered = 0;  // got as far as host matching
  int dispatched = 0;
  int reserved = 0;
  int preempted = 0;
  int classes = 0;       // requirement classes matched against hosts
  int host_matches = 0;  // (class, host) pairs evaluated
};

struct PassResult {
  std::vector<Dispatch> dispatches;
  std::vector<Reservation> reservations;
  std::vector<Suspend> suspends;
  std::vector<Resume> resumes;
  std::vector<PendingReason> reasons;
  // Modules' own reports, each type defined in its module's header.
  std::vector<GuaranteeReport> guarantees;  // schmod_guarantee: every guarantee pool, in configuration order
  std::vector<ThrottleUse> throttles;       // schmod_throttle: every throttled consumer with something counted
  std::vector<ApsScore> aps;                // schmod_aps: every pending job of an APS queue
  PassStats stats;
};

PassResult schedule(const ClusterView& view, std::int64_t now);

// A pending job as it runs once dispatched to `hosts` at `now`: what callers that keep
// their own view between passes (the simulator, tests, benchmarks) put in `running`.
RunningJobView started(const JobView& job, std::vector<std::string> hosts, std::int64_t now);

// What the next pass must know of the job's reservation in this one (null: none).
void carry_reservation(JobView& job, const Reservation* r);

}  // namespace lsf::sched
