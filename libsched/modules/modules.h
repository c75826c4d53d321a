// The scheduler modules this project has, one per policy, each in its own file. Each
// file defines its module's factory and its declaration (ModuleDecl: name, phase, the
// modules it runs after); registry.cc lists the declarations and orders the pipeline
// from them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

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
std::unique_ptr<Module> make_schmod_gpu();         // bsub -gpu: which devices of its hosts a job gets

// Each module's declaration, defined beside its factory.
extern const ModuleDecl kSchmodDefault;
extern const ModuleDecl kSchmodFcfs;
extern const ModuleDecl kSchmodAps;
extern const ModuleDecl kSchmodSlotpool;
extern const ModuleDecl kSchmodJobgroup;
extern const ModuleDecl kSchmodThrottle;
extern const ModuleDecl kSchmodGuarantee;
extern const ModuleDecl kSchmodLimit;
extern const ModuleDecl kSchmodParallel;
extern const ModuleDecl kSchmodReserve;
extern const ModuleDecl kSchmodPreemption;
extern const ModuleDecl kSchmodFairshare;
extern const ModuleDecl kSchmodGpu;

// Every module the registry knows.
std::span<const ModuleDecl* const> registered_modules();

// A pipeline's order from its modules' declarations: by phase; within a phase each
// module after those its `after` names; modules nothing orders keep `decls`' order
// (kLead, kClose) or lsb.modules' (kConfigured). A stable topological sort, so the
// order does not depend on where `decls` lists a module that something orders.
class ModuleOrder {
 public:
  explicit ModuleOrder(std::span<const ModuleDecl* const> decls);
  // Empty when the declarations can be ordered; else what is wrong: two modules of one
  // name, an `after` that names no module or one of a later phase, `after`s that make
  // a cycle, or more than 32 modules.
  const std::string& error() const { return error_; }
  // Indexes into `decls` in pipeline order for lsb.modules' `names`: every kLead and
  // kClose module, and each kConfigured one `names` lists, once. Names of no module go
  // to `unknown`; those of kLead and kClose modules add nothing. Empty when error().
  std::vector<size_t> order(const std::vector<std::string>& names, std::vector<std::string>* unknown = nullptr) const;

 private:
  int find(std::string_view name) const;
  std::span<const ModuleDecl* const> decls_;
  std::vector<std::uint32_t> after_;  // per module: bit j when it runs after decls_[j]
  std::string error_;
};

}  // namespace lsf::sched
