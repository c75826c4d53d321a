// LSF's pending- and suspending-reason texts, verbatim: users grep for them.
#pragma once

namespace lsf::sched::reason {

inline constexpr const char* kNewJob = "New job is waiting for scheduling";
inline constexpr const char* kBeginTime = "The job has a specified start time";
inline constexpr const char* kDependency = "Job dependency condition not satisfied";
inline constexpr const char* kDependencyNever = "Dependency condition invalid or never satisfied";
inline constexpr const char* kNoShare = "The user has no share in the queue's fairshare policy";
inline constexpr const char* kQueueInactive = "The queue is inactivated by the administrator";
inline constexpr const char* kQueueWindow = "The queue is inactivated by its time windows";
inline constexpr const char* kQueueSlotLimit = "The queue has reached its job slot limit";
inline constexpr const char* kQueueUserLimit = "User has reached the per-user job slot limit of the queue";
inline constexpr const char* kUserLimit = "The user has reached his/her job slot limit";
inline constexpr const char* kUserGroupLimit = "One of the user's groups has reached its job slot limit";
inline constexpr const char* kArrayLimit = "The job array has reached its running element limit";
inline constexpr const char* kHeld = "The job was suspended by the user while pending";
inline constexpr const char* kResReq = "Job's resource requirements not satisfied";
inline constexpr const char* kExclusive = "Job's requirement for exclusive execution not satisfied";
inline constexpr const char* kSpan = "Not enough hosts to meet the job's spanning requirement";
inline constexpr const char* kOneCluster =
    "Not enough hosts in one cluster: a provider does not run jobs that span clusters (RECV_FROM)";
inline constexpr const char* kPreExecFailed = "The job's pre-exec command exited with non-zero status";
inline constexpr const char* kRequeued = "Requeued job is waiting for rescheduling";
inline constexpr const char* kNotExclusiveQueue = "The queue does not accept exclusive jobs";
inline constexpr const char* kGuaranteeLoan = "Guaranteed resources of the pool are reserved for their owners";

// Host-level reasons, printed as "<reason>: N host(s)".
inline constexpr const char* kHostClosedAdm = "Closed by LSF administrator";
inline constexpr const char* kHostFull = "Not enough job slot(s)";
inline constexpr const char* kHostNotAsked = "Not specified in job submission";
inline constexpr const char* kHostNotInQueue = "Not usable to the queue";
inline constexpr const char* kHostUnreach = "Unable to reach slave batch server";
inline constexpr const char* kHostUnavail = "Load information unavailable";
inline constexpr const char* kHostExclusive = "Running an exclusive job";
inline constexpr const char* kHostSelect = "Job's resource requirements not satisfied";
inline constexpr const char* kHostWindow = "Dispatch windows closed";
inline constexpr const char* kHostLoad = "Load threshold reached";
inline constexpr const char* kHostJustStarted = "Just started a job recently";
inline constexpr const char* kHostSlotLimit = "Job slot limit reached";
inline constexpr const char* kHostQueuePerCpu = "Queue's per-CPU job slot limit reached";
inline constexpr const char* kHostQueuePerHost = "Queue's per-host job slot limit reached";
inline constexpr const char* kHostUserPerCpu = "User's per-CPU job slot limit reached";
inline constexpr const char* kHostPerUser = "Host's per-user job slot limit reached";
inline constexpr const char* kHostRusage = "Job's requirements for resource reservation not satisfied";
inline constexpr const char* kHostReserved = "Job slots reserved for a pending parallel job";
inline constexpr const char* kHostExcluded = "Host excluded by an exclusive requeue";
inline constexpr const char* kHostNotSame = "Hosts do not satisfy the job's same[] requirement";
inline constexpr const char* kHostGuaranteed = "Resources reserved for service class guarantees";

// Suspending reasons.
inline constexpr const char* kSuspWindow = "The run windows of the queue are closed";
inline constexpr const char* kSuspPreempted = "The job was preempted by a higher priority job";
inline constexpr const char* kSuspStopCond = "STOP_COND is true with current host load";
inline constexpr const char* kSuspLoad = "Host load exceeded threshold";
inline constexpr const char* kSuspResumeWait = "The job was resumed by user; waiting for the system to resume it";

}  // namespace lsf::sched::reason
