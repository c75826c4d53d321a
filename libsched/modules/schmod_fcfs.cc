// schmod_fcfs: queues by PRIORITY (higher first; configuration order on ties), jobs
// within a queue by their user-assigned priority when MAX_USER_PRIORITY enables it
// (bsub -sp; MAX_USER_PRIORITY / 2 when not given), then by position: submission order,
// as moved by btop and bbot, with requeued jobs ahead of new ones (mbatchd gives them
// the smaller positions).
#include <algorithm>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

class FcfsModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_fcfs"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext&, const JobView&) const override { return false; }

  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    const auto& queues = ctx.policy.queues;
    const int max = ctx.policy.max_user_priority;
    auto own = [&](const JobView* j) { return max <= 0 ? 0 : j->user_priority >= 0 ? j->user_priority : max / 2; };
    std::stable_sort(jobs.begin(), jobs.end(), [&](const JobView* a, const JobView* b) {
      int pa = queues[a->queue].priority, pb = queues[b->queue].priority;
      if (pa != pb) return pa > pb;
      if (a->queue != b->queue) return a->queue < b->queue;
      if (own(a) != own(b)) return own(a) > own(b);
      if (a->order != b->order) return a->order < b->order;
      return a->key < b->key;
    });
  }
};

}  // namespace

std::unique_ptr<Module> make_schmod_fcfs() { return std::make_unique<FcfsModule>(); }

}  // namespace lsf::sched
