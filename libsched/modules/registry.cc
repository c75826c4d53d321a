// lsb.modules names -> the pipeline. Which modules always run, and where, each module
// declares beside its factory (ModuleDecl: its phase and the modules it runs after);
// this file lists the declarations and sorts them. As in LSF, schmod_default and
// schmod_fcfs always run whatever lsb.modules says; so do the modules for policies LSF
// names no module for (SLOT_POOL, job group limits, Maui's throttles, guarantee pools,
// GPU devices).
// The rest run in the file's order.
#include <array>
#include <string_view>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

// Any order will do (ModuleOrder sorts them); this is the pipeline's own.
constexpr std::array<const ModuleDecl*, 13> kRegistered = {{
    &kSchmodDefault,
    &kSchmodFcfs,
    &kSchmodAps,
    &kSchmodSlotpool,
    &kSchmodJobgroup,
    &kSchmodGpu,
    &kSchmodThrottle,
    &kSchmodGuarantee,
    &kSchmodLimit,
    &kSchmodParallel,
    &kSchmodReserve,
    &kSchmodPreemption,
    &kSchmodFairshare,
}};

constexpr size_t kMaxModules = 32;  // ModuleOrder keeps each module's `after` as bits

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kLead:
      return "lead";
    case Phase::kConfigured:
      return "configured";
    case Phase::kClose:
      return "close";
  }
  return "?";
}

}  // namespace

std::span<const ModuleDecl* const> registered_modules() { return kRegistered; }

ModuleOrder::ModuleOrder(std::span<const ModuleDecl* const> decls) : decls_(decls), after_(decls.size(), 0) {
  if (decls.size() > kMaxModules) {
    error_ = "more than " + std::to_string(kMaxModules) + " modules";
    return;
  }
  for (size_t i = 0; i < decls.size() && error_.empty(); ++i) {
    const ModuleDecl& d = *decls[i];
    if (find(d.name) != static_cast<int>(i)) error_ = "two modules named " + std::string(d.name);
    for (std::string_view name : d.after) {
      if (name.empty() || !error_.empty()) continue;
      const int j = find(name);
      if (j < 0) {
        error_ = std::string(d.name) + " runs after " + std::string(name) + ", which is no module";
      } else if (decls[static_cast<size_t>(j)]->phase > d.phase) {
        error_ = std::string(d.name) + " (" + std::string(phase_name(d.phase)) + ") runs after " + std::string(name) +
                 ", of the later phase " + std::string(phase_name(decls[static_cast<size_t>(j)]->phase));
      } else {
        after_[i] |= 1u << j;
      }
    }
  }
  if (!error_.empty()) return;
  // Every module placed once all it runs after is: what is never placed is on a cycle.
  std::uint32_t placed = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < decls.size(); ++i)
      if (!(placed >> i & 1u) && (after_[i] & ~placed) == 0) placed |= 1u << i, progress = true;
  }
  for (size_t i = 0; i < decls.size(); ++i) {
    if (placed >> i & 1u) continue;
    error_ += (error_.empty() ? "the modules' `after`s make a cycle among: " : ", ") + std::string(decls[i]->name);
  }
}

int ModuleOrder::find(std::string_view name) const {
  for (size_t i = 0; i < decls_.size(); ++i)
    if (decls_[i]->name == name) return static_cast<int>(i);
  return -1;
}

// Runs before every pass (the simulator's hundreds of thousands of them): no strings
// are built, and a dozen modules' order is found by bit masks.
std::vector<size_t> ModuleOrder::order(const std::vector<std::string>& names, std::vector<std::string>* unknown) const {
  std::vector<size_t> out;
  if (!error_.empty()) return out;
  std::array<size_t, kMaxModules> rank{};  // among modules of one phase nothing orders
  std::uint32_t in = 0;
  for (size_t i = 0; i < decls_.size(); ++i) {
    if (decls_[i]->phase == Phase::kConfigured) continue;
    in |= 1u << i;
    rank[i] = i;
  }
  for (size_t k = 0; k < names.size(); ++k) {
    const int i = find(names[k]);
    if (i < 0) {
      if (unknown) unknown->push_back(names[k]);
    } else if (!(in >> i & 1u)) {
      in |= 1u << i;
      rank[static_cast<size_t>(i)] = k;
    }
  }
  out.reserve(decls_.size());
  for (std::uint32_t placed = 0; placed != in;) {
    int best = -1;
    for (size_t i = 0; i < decls_.size(); ++i) {
      if (!(in >> i & 1u) || (placed >> i & 1u) || (after_[i] & in & ~placed)) continue;
      const auto b = static_cast<size_t>(best);
      if (best < 0 || decls_[i]->phase < decls_[b]->phase ||
          (decls_[i]->phase == decls_[b]->phase && rank[i] < rank[b]))
        best = static_cast<int>(i);
    }
    if (best < 0) break;  // a cycle: the constructor said so
    placed |= 1u << best;
    out.push_back(static_cast<size_t>(best));
  }
  return out;
}

std::vector<std::unique_ptr<Module>> make_pipeline(const std::vector<std::string>& names,
                                                   std::vector<std::string>* unknown) {
  static const ModuleOrder kOrder(kRegistered);  // checked by a unit test
  std::vector<std::unique_ptr<Module>> out;
  out.reserve(kRegistered.size());
  for (size_t i : kOrder.order(names, unknown)) out.push_back(kRegistered[i]->make());
  return out;
}

}  // namespace lsf::sched
