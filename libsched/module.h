// A scheduler module: one policy, named as in lsb.modules. The pass calls the hooks of
// every configured module in lsb.modules order; a module implements only what its
// policy decides. Modules are made fresh for each pass, so their members are that
// pass's working state and nothing survives between passes except through the view.
//
//   prepare   derived state for this pass (counters, priorities)
//   order     which pending job is considered next
//   admit     may this job be considered at all now (nullopt: yes; else the reason)
//   hosts     which hosts can take it: filter the candidates, rank them
//   room      how many slots the job may take on one host right now (0: why)
//   cannot_start  before any placement is tried: why no placement on these candidates
//             could pass this module's verify (saves walking the hosts for nothing)
//   allocate  where the job's slots go (the first module that places decides)
//   verify    a last check of a placement against limits that span hosts
//   assign    the devices of a verified placement (GPUs), added to it; or why none fit
//   commit    account for a placement this pass made
//   preempt   free room for a job that cannot start
//   reserve   hold what a job that cannot start may keep (slot reservation)
//   hold      account for what a reservation holds
//   plans     reserves for this job even when its class's outcome is already known
//             (a planned start is the job's own: RESERVATION_MODEL = PLAN)
//   backfill  slots a job may borrow from reservations on a host
//   acts_when_full  could still start or preempt for a job although no candidate host
//             has a free slot (else the pass reuses its class's outcome)
//   defers    a job this module refused may have a second turn, once every job has
//             had its first (second_round tells the module that turn has come)
//   picker    takes over the order of the next jobs (a queue's, or a cross-queue
//             fairshare set's) while the pass runs, for policies whose next job
//             depends on what started (fairshare)
//   finish    decisions about started jobs (suspend, resume)
//   active    after prepare: false when the configuration gives the module nothing to
//             do in this pass, and the pass leaves it out
//   sees_user whether its answers for the job may depend on the job's user, project or
//             service class: when no module's do, jobs of every user share outcomes
//   (plans, acts_when_full and sees_user are asked once per queue and pass, after
//   prepare: what they answer holds for every job of the queue)
//   limits_room false for a module without a room hook: room() is asked for every
//             host a job looks at, and the pass then skips the call
//   replaces_hosts  its hosts hook sets the candidates from every host itself, not
//             from the list it is given: led by such a module, the pass does not fill
//             the list with every host first (5,000 hosts per class)
//   blocks    a job this module's admit refuses is BLOCKED (held by policy, Maui's
//             sense: showq, bjobs -pi), not merely waiting
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libsched/pass_context.h"

namespace lsf::sched {

enum class Allocation { kNotMine, kPlaced, kNoRoom };

// Hands out one queue's pending jobs one at a time, each exactly once, learning what
// started in between; null when every job has been handed out.
class JobPicker {
 public:
  virtual ~JobPicker() = default;
  virtual const JobView* next() = 0;
  virtual void started(const JobView&, const Placement&) {}
};

class Module {
 public:
  virtual ~Module() = default;
  virtual std::string_view name() const = 0;

  virtual void prepare(PassContext&) {}
  virtual void order(PassContext&, std::vector<const JobView*>&) {}
  virtual std::optional<std::string> admit(PassContext&, const JobView&) { return std::nullopt; }
  virtual void hosts(PassContext&, const JobView&, Candidates&) {}
  virtual int room(const PassContext&, const JobView&, int /*host*/, const char** /*why*/) { return kUnlimited; }
  // Null: a placement may be tried. Else why not, as a text the module keeps and shares:
  // every waiting job may be refused here on every pass, with few texts among them.
  virtual std::shared_ptr<const std::string> cannot_start(PassContext&, const JobView&, const Candidates&) {
    return nullptr;
  }
  virtual Allocation allocate(PassContext&, const JobView&, const Candidates&, Placement&) {
    return Allocation::kNotMine;
  }
  virtual std::optional<std::string> verify(const PassContext&, const JobView&, const Candidates&, const Placement&) {
    return std::nullopt;
  }
  virtual std::optional<std::string> assign(PassContext&, const JobView&, Placement&) { return std::nullopt; }
  virtual void commit(PassContext&, const JobView&, const Placement&) {}
  virtual bool preempt(PassContext&, const JobView&, const Candidates&, Placement&) { return false; }
  // `held`: what the reservation holds now, per host (nothing for a planned start).
  virtual bool reserve(PassContext&, const JobView&, const Candidates&, Placement& /*held*/) { return false; }
  // Slots a reservation holds for the job: job slot limits count them, as LSF's do.
  virtual void hold(PassContext&, const JobView&, const Placement&) {}
  virtual int backfill(const PassContext&, const JobView&, int /*host*/) { return 0; }
  virtual bool plans(const PassContext&, int /*queue*/) const { return false; }
  virtual bool acts_when_full(const PassContext&, int /*queue*/) const { return false; }
  virtual bool defers(const PassContext&, const JobView&) { return false; }
  virtual void second_round(PassContext&) {}
  // `rest`: the jobs not yet considered, in the order the order hooks gave. A picker
  // takes the first `taken` of them.
  virtual std::unique_ptr<JobPicker> picker(PassContext&, std::span<const JobView* const> /*rest*/, size_t& /*taken*/) {
    return nullptr;
  }
  virtual void finish(PassContext&) {}
  virtual bool active(const PassContext&) const { return true; }
  virtual bool sees_user(const PassContext&, int /*queue*/) const { return true; }
  virtual bool limits_room() const { return true; }
  virtual bool replaces_hosts() const { return false; }
  virtual bool blocks() const { return false; }
};

// Where a module runs in the pipeline, declared by the module beside its factory
// (ModuleDecl) rather than implied by its place in the registry:
//   kLead        always part of the pipeline, ahead of every configured module
//                (ordering, host matching, and limits LSF keeps outside lsb.modules)
//   kConfigured  part of it only when lsb.modules names it, in the file's order
//   kClose       always part of it, after every configured module
// Within a phase a module runs after the modules its `after` names; modules nothing
// orders keep the registry's order (kLead, kClose) or lsb.modules' (kConfigured).
enum class Phase { kLead, kConfigured, kClose };

struct ModuleDecl {
  std::string_view name;  // as in lsb.modules
  Phase phase = Phase::kConfigured;
  std::array<std::string_view, 2> after{};  // modules of the same or an earlier phase; empty: none
  std::unique_ptr<Module> (*make)() = nullptr;
};

// The pipeline for lsb.modules' names. schmod_default and schmod_fcfs are always part
// of it, as in LSF; names this project has no module for are reported in `unknown`.
std::vector<std::unique_ptr<Module>> make_pipeline(const std::vector<std::string>& names,
                                                   std::vector<std::string>* unknown = nullptr);

}  // namespace lsf::sched
