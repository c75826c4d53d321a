// schmod_jobgroup: job group limits (bgadd -L / bgmod -L). A group admits a job while
// its started jobs (RUN, SSUSP, USUSP), its subgroups' included, are fewer than its
// limit; every group above the job's must admit it too. LSF counts jobs here, not
// slots: a job of 8 slots is one job.
#include <string>
#include <vector>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

class JobGroupModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_jobgroup"; }

  void prepare(PassContext& ctx) override {
    const auto& groups = ctx.view.job_groups;
    started_.assign(groups.size(), 0);
    active_ = false;
    // A group's own started jobs count for it and for every group above it.
    for (size_t g = 0; g < groups.size(); ++g)
      for (int at = static_cast<int>(g); at >= 0; at = groups[static_cast<size_t>(at)].parent)
        started_[static_cast<size_t>(at)] += groups[g].started;
    for (const auto& g : groups) active_ = active_ || g.limit >= 0;
  }
  bool active(const PassContext&) const override { return active_; }
  bool sees_user(const PassContext&, int) const override { return false; }
  bool limits_room() const override { return false; }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    const auto& groups = ctx.view.job_groups;
    for (int at = job.job_group; at >= 0; at = groups[static_cast<size_t>(at)].parent) {
      const auto& g = groups[static_cast<size_t>(at)];
      const int used = started_[static_cast<size_t>(at)];
      if (g.limit >= 0 && used >= g.limit)
        return "The job group has reached its job limit: " + g.path + " (" + std::to_string(used) + " of " +
               std::to_string(g.limit) + " started)";
    }
    return std::nullopt;
  }

  void commit(PassContext& ctx, const JobView& job, const Placement&) override {
    const auto& groups = ctx.view.job_groups;
    for (int at = job.job_group; at >= 0; at = groups[static_cast<size_t>(at)].parent)
      ++started_[static_cast<size_t>(at)];
  }

 private:
  std::vector<int> started_;  // per group, its subgroups included, as the pass places jobs
  bool active_ = false;
};

}  // namespace

std::unique_ptr<Module> make_schmod_jobgroup() { return std::make_unique<JobGroupModule>(); }
// Admits after the slot pools: a job both refuse pends for its pool's reason.
constinit const ModuleDecl kSchmodJobgroup{"schmod_jobgroup", Phase::kLead, {"schmod_slotpool"}, make_schmod_jobgroup};

}  // namespace lsf::sched
