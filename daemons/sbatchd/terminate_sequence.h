// LSF's TERMINATE action as sbatchd runs it (bkill; a job over its MEMLIMIT): SIGINT,
// SIGTERM JOB_TERMINATE_INTERVAL seconds later, SIGKILL as much again, so that a job can
// trap the first two and clean up. mbatchd says which interval; sbatchd keeps time.
//
// The sequence is kept in the job's SbdJob, which sbatchd saves to the job's state file
// at every step: a restarted sbatchd carries it on to the same deadline (signals whose
// time passed while it was away go at once) instead of starting over or forgetting it.
// Persisting it here is simpler than having mbatchd notice the restart and resend.
#pragma once

#include <cstdint>
#include <vector>

#include "lsf.pb.h"

namespace lsf::sbd {

// Starts the sequence at `now_ms` (wall clock). False, and nothing changed, when one is
// already under way or done: a second bkill neither restarts it nor moves its deadline.
bool begin_terminate(wire::SbdJob& job, std::int64_t now_ms, int interval_s);

// Whether a sequence is under way with a signal still to send.
bool terminating(const wire::SbdJob& job);

// The signals of the sequence that are due at `now_ms` and not sent yet, in order;
// they count as sent from here on.
std::vector<int> take_due_signals(wire::SbdJob& job, std::int64_t now_ms);

// No more signals: the job has ended, or was killed outright.
void end_terminate(wire::SbdJob& job);

}  // namespace lsf::sbd
