// The scheduler modules this project has, one per policy, each in its own file.
#pragma once

#include <memory>

#include "libsched/module.h"

namespace lsf::sched {

std::unique_ptr<Module> make_schmod_default();     // host matching, thresholds, windows, order[], suspension
std::unique_ptr<Module> make_schmod_fairshare();   // FAIRSHARE: the share tree picks the next job
std::unique_ptr<Module> make_schmod_slotpool();    // SLOT_POOL / SLOT_SHARE: queues divide a pool
std::unique_ptr<Module> make_schmod_fcfs();        // queue priority, then position in the queue
std::unique_ptr<Module> make_schmod_aps();         // APS_PRIORITY: weighted job priority in a queue
std::unique_ptr<Module> make_schmod_limit();       // job slot limits and lsb.resources Limit sections
std::unique_ptr<Module> make_schmod_parallel();    // -n min,max, span[], same[]
std::unique_ptr<Module> make_schmod_reserve();     // rusage[] reservation, slot reservation, backfill
std::unique_ptr<Module> make_schmod_preemption();  // PREEMPTIVE / PREEMPTABLE queues
std::unique_ptr<Module> make_schmod_guarantee();   // GuaranteedResourcePool: service class guarantees, loans
std::unique_ptr<Module> make_schmod_jobgroup();    // bgadd -L: started jobs per job group
std::unique_ptr<Module> make_schmod_throttle();    // IDLE_JOBS, TOTAL_JOBS, PROC_SECONDS, soft JOBS/SLOTS

}  // namespace lsf::sched
