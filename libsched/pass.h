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

namespace lsf::sched {

struct Dispatch {
  JobKey job;
  std::vector<std::string> hosts;  // one entry per slot, grouped by host
  // The same as (index in the view's hosts, slots there), for callers that keep their
  // hosts' table (the simulator) and would otherwise look every name up again.
  std::vector<std::pair<int, int>> slots;
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

// A guarantee pool as the pass leaves it (after its dispatches), for bresources -g and
// bsla. Amounts are packages (hosts for a hosts pool, slots for a slots pool).
struct GuaranteeReport {
  std::string pool;
  std::string type;  // as configured: slots, hosts, package[slots=1:mem=1000]
  bool overcommitted = false;
  int total = 0, free = 0;  // on the pool's available hosts
  int slots_total = 0, slots_free = 0;
  double mem_total = 0, mem_free = 0;  // MB; 0 when the hosts report none
  int package_slots = 0;               // 0: the package has no slot part (hosts pools too)
  std::int64_t package_mem = 0;        // MB; 0: no memory part
  // Slots and rusage[mem] of the jobs on the pool's available hosts: the owners' (jobs
  // of classes guaranteed here), loans (what other jobs hold beyond the part nobody is
  // guaranteed) and the rest.
  struct Use {
    int slots = 0;
    double mem = 0;
  };
  Use owner_use, loan_use, other_use;
  struct Owner {
    std::string service_class;
    int guaranteed = 0;
    int used = 0;  // packages its jobs hold on the pool's available hosts
    Use use;
  };
  std::vector<Owner> owners;
  struct Host {
    std::string name;
    bool available = false;
    int total = 0, free = 0;
  };
  std::vector<Host> hosts;  // every member host
};

// What a throttling Limit section (IDLE_JOBS, TOTAL_JOBS, PROC_SECONDS, soft values)
// counts for one consumer as the pass leaves it, for blimits. The member names are
// set for PER_* consumers and empty for a section's consumers together.
struct ThrottleUse {
  size_t limit = 0;  // index into SchedPolicy::limits
  std::string user, queue, project;
  int running = 0;
  int idle = 0;  // pending jobs eligible under it (Maui's IDLE)
  std::int64_t slots = 0;
  std::int64_t proc_seconds = 0;  // running jobs' remaining run limit x slots
};

// A pending job's APS value in a queue with APS_PRIORITY, for bjobs -aps and -prio:
// the weighted sum and each weighted factor's or subfactor's value (after its limit and
// grace period; ADMIN: what bmod -aps "admin=v" adds), as the pass began.
struct ApsScore {
  JobKey job;
  double value = 0;
  bool system = false;  // `value` is what bmod -aps "system=v" set: ahead of every calculated one
  std::vector<std::pair<std::string_view, double>> factors;  // names of static storage
};

struct PassResult {
  std::vector<Dispatch> dispatches;
  std::vector<Reservation> reservations;
  std::vector<Suspend> suspends;
  std::vector<Resume> resumes;
  std::vector<PendingReason> reasons;
  std::vector<GuaranteeReport> guarantees;  // every guarantee pool, in configuration order
  std::vector<ThrottleUse> throttles;       // every throttled consumer with something counted
  std::vector<ApsScore> aps;                // every pending job of an APS queue
  PassStats stats;
};

PassResult schedule(const ClusterView& view, std::int64_t now);

// A pending job as it runs once dispatched to `hosts` at `now`: what callers that keep
// their own view between passes (the simulator, tests, benchmarks) put in `running`.
RunningJobView started(const JobView& job, std::vector<std::string> hosts, std::int64_t now);

// What the next pass must know of the job's reservation in this one (null: none).
void carry_reservation(JobView& job, const Reservation* r);

}  // namespace lsf::sched
