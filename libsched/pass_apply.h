// Applying a pass's result: the one rule for what the decisions do to the jobs and hosts
// they name, for every caller that keeps something between passes. mbatchd applies them
// to its own records through an ApplyTarget; the simulator, the scenario tests, the
// other tests and pass_bench apply them to the ClusterView they keep. Both go through
// apply() below, so the simulator runs what mbatchd runs.
//
// The contract, in the order apply() applies things:
//   1. Starts, in the pass's order. target.start(d) starts the pending job on d.hosts
//      or refuses (the job is no longer pending, a host no longer takes jobs, the start
//      cannot be recorded); for a start it made, target.dispatched(host) is told each
//      host of the job once (JOB_ACCEPT_INTERVAL counts from `now` there). Nothing else
//      is done for a refused start.
//   2. Reservations: the pass's list replaces the target's whole. A pending job holds
//      the reservation the pass names for it (the last, should it name two) and no
//      other; a reservation's `since` is kept by the pass itself from the job's last one.
//   3. Suspensions (load, windows, preemption: a preempted job is suspended with
//      SuspendCause::kPreempted; the pass requeues nothing). Only a job target.find()
//      says is running (RunState::kRun) is suspended, by target.suspend(s); one
//      suspended for load (kLoad) is a load action on its first host:
//      target.load_action(host), one per SBD_SLEEP_TIME per host (schmod_default).
//   4. Resumptions. Only a job target.find() says the system suspended
//      (RunState::kSsusp) is resumed, by target.resume(r); when it was suspended for
//      load or was resumed by its owner and waited for the system (kLoad, kUser: the
//      cause target.find() gives before the resume) that is a load action on its first
//      host too.
//   5. Pending jobs' marks (target.pending, optional): every reason the pass gives,
//      in its order. What a reason carries to the next pass is carry_pending_mark().
// The rest of the result (pending reasons' texts, guarantees, throttles, APS values,
// stats) are reports: the caller keeps them as it wants; apply() does not touch them.
//
// Each callback acts at the time the target was made for (`now`). A target may leave
// `dispatched`, `load_action` and `pending` empty when it does not keep what they tell;
// `start`, `find`, `suspend`, `resume` and `reservations` are required.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libsched/pass.h"

namespace lsf::sched {

// A started job as a target knows it, for the checks of steps 3 and 4.
struct StartedJob {
  RunState state = RunState::kRun;
  SuspendCause cause = SuspendCause::kNone;  // why the system suspended it (kNone unless kSsusp)
  std::string first_host;                    // empty: none known
};

struct ApplyTarget {
  // Start the pending job d.job on d.hosts; false: it does not start.
  std::function<bool(const Dispatch& d)> start;
  // A started job's host (called once per host, after start() said true).
  std::function<void(const std::string& host)> dispatched;
  // The pass's reservations, to replace every one the target holds (it may move them
  // out of the result).
  std::function<void(std::vector<Reservation>& held)> reservations;
  // The job as it is now; nullopt: not started (pending, ended or gone).
  std::function<std::optional<StartedJob>(const JobKey& job)> find;
  // Suspend a running job by the system, with s.cause and s.reason.
  std::function<void(const Suspend& s)> suspend;
  // Resume a job the system suspended.
  std::function<void(const Resume& r)> resume;
  // A load-based suspend or resume happened on `host` now.
  std::function<void(const std::string& host)> load_action;
  // A pending job's reason (step 5).
  std::function<void(const PendingReason& r)> pending;
};

// Applies `result`'s decisions to `target`, in the contract's order. The target may
// move the reservations out of `result`; nothing else there changes.
void apply(PassResult& result, const ApplyTarget& target);

// Why a system-suspended job is suspended, from the reason it was suspended with (as
// mbatchd keeps it: a job's state and reason text). A job the system did not suspend
// has kNone; one suspended for a reason the pass does not give (its owner resumed it
// and it waits for the system) has kUser.
SuspendCause suspend_cause_of(bool system_suspended, std::string_view reason);

// What a pending job's reason carries to the next pass (Maui's IDLE and bypass count,
// for APS): a blocked job has no queue time; one eligible again after being blocked
// counts its queue time from `now`; the jobs that passed it over add up. `idle_since`
// is JobView's: -1 while blocked.
struct PendingMark {
  std::int64_t idle_since = -1;
  int bypass_count = 0;
};
void carry_pending_mark(PendingMark& mark, const PendingReason& r, std::int64_t now);

// What a caller that keeps more than the view beside it (the simulator: its clocks and
// outcomes) does as the view changes; each is optional.
struct ViewHooks {
  // `run` was just added to view.running for `d`.
  std::function<void(const Dispatch& d, RunningJobView& run)> started;
  std::function<void(RunningJobView&run)> suspended, resumed;
};

// apply() with the view as the target, the view being the one the pass ran on (its
// pending jobs in the same order: reasons name them by position): started jobs move
// from `pending` to the end of `running` (as started() makes them, with their hosts as
// view.accel.host_table's indexes when the view has a table), hosts get last_dispatch and
// last_load_action, pending jobs carry their reservation (carry_reservation()) and
// their mark (carry_pending_mark()), running jobs change state and cause.
void apply(ClusterView& view, const PassResult& result, std::int64_t now, const ViewHooks& hooks = {});

}  // namespace lsf::sched
