// LSF's pending-reason texts, verbatim: users grep for them.
#pragma once

namespace lsf::sched::reason {

inline constexpr const char* kNewJob = "New job is waiting for scheduling";
inline constexpr const char* kBeginTime = "The job has a specified start time";
inline constexpr const char* kDependency = "Job dependency condition not satisfied";
inline constexpr const char* kDependencyNever = "Dependency condition invalid or never satisfied";
inline constexpr const char* kQueueInactive = "The queue is inactivated by the administrator";
inline constexpr const char* kQueueWindow = "The queue is inactivated by its time windows";
inline constexpr const char* kQueueSlotLimit = "The queue has reached its job slot limit";
inline constexpr const char* kArrayLimit = "The job array has reached its running element limit";
inline constexpr const char* kHeld = "The job was suspended by the user while pending";
inline constexpr const char* kResReq = "Job's resource requirements not satisfied";
inline constexpr const char* kExclusive = "Job's requirement for exclusive execution not satisfied";
inline constexpr const char* kSpan = "Not enough hosts to meet the job's spanning requirement";
inline constexpr const char* kPreExecFailed = "The job's pre-exec command exited with non-zero status";
inline constexpr const char* kRequeued = "Requeued job is waiting for rescheduling";

// Host-level reasons, printed as "<reason>: N host(s)".
inline constexpr const char* kHostClosedAdm = "Closed by LSF administrator";
inline constexpr const char* kHostFull = "Not enough job slot(s)";
inline constexpr const char* kHostNotAsked = "Not specified in job submission";
inline constexpr const char* kHostNotInQueue = "Not usable to the queue";
inline constexpr const char* kHostUnreach = "Unable to reach slave batch server";
inline constexpr const char* kHostUnavail = "Load information unavailable";
inline constexpr const char* kHostExclusive = "Running an exclusive job";
inline constexpr const char* kHostSelect = "Job's resource requirements not satisfied";

}  // namespace lsf::sched::reason
