// schmod_fcfs: queues by PRIORITY (higher first; configuration order on ties), jobs
// within a queue by their user-assigned priority when MAX_USER_PRIORITY enables it
// (bsub -sp; MAX_USER_PRIORITY / 2 when not given), then by position: submission order,
// as moved by btop and bbot, with requeued jobs ahead of new ones (mbatchd gives them
// the smaller positions).
#include <algorithm>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

// How far ahead the walk fetches each job's first cache line: its JobViews are 320
// bytes apart, a stride the hardware does not fetch ahead well.
constexpr size_t kAhead = 32;

class FcfsModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_fcfs"; }
  bool limits_room() const override { return false; }
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  // Queues first (a counting sort: a handful of queues, any number of jobs), then each
  // queue's jobs, sorted only when they are not in order already: mbatchd and the
  // simulator hand them over mostly in submission order, and sorting 100,000 jobs by
  // comparing through pointers every pass would cost a tenth of the pass. Each job is
  // read once, in the caller's order: its JobView is far from the last one's, and a
  // second walk (to place it, or to check its queue's order) would miss the cache again
  // per job.
  void order(PassContext& ctx, std::vector<const JobView*>& jobs) override {
    const auto& queues = ctx.policy.queues;
    std::vector<int> by_priority(queues.size());
    for (size_t q = 0; q < queues.size(); ++q) by_priority[q] = static_cast<int>(q);
    std::stable_sort(by_priority.begin(), by_priority.end(),
                     [&](int a, int b) { return queues[a].priority > queues[b].priority; });
    std::vector<int> rank(queues.size());
    for (size_t r = 0; r < by_priority.size(); ++r) rank[by_priority[r]] = static_cast<int>(r);

    const int max = ctx.policy.max_user_priority;
    auto own = [max](const JobView* j) { return max <= 0 ? 0 : j->user_priority >= 0 ? j->user_priority : max / 2; };
    auto before = [&](const JobView* a, const JobView* b) {
      if (own(a) != own(b)) return own(a) > own(b);
      if (a->order != b->order) return a->order < b->order;
      return a->key < b->key;
    };
    std::vector<size_t> begin(queues.size() + 1, 0);
    std::vector<int> job_rank(jobs.size());
    std::vector<const JobView*> last(queues.size(), nullptr);  // each queue's job met last
    std::vector<char> in_order(queues.size(), 1);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (i + kAhead < jobs.size()) __builtin_prefetch(jobs[i + kAhead]);
      const JobView* j = jobs[i];
      const int r = rank[static_cast<size_t>(j->queue)];
      job_rank[i] = r;
      ++begin[static_cast<size_t>(r) + 1];
      const JobView*& prev = last[static_cast<size_t>(r)];
      if (prev && in_order[static_cast<size_t>(r)] && before(j, prev)) in_order[static_cast<size_t>(r)] = 0;
      prev = j;
    }
    for (size_t r = 1; r < begin.size(); ++r) begin[r] += begin[r - 1];
    std::vector<const JobView*> sorted(jobs.size());
    std::vector<size_t> at(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < jobs.size(); ++i) sorted[at[static_cast<size_t>(job_rank[i])]++] = jobs[i];
    for (size_t r = 0; r < queues.size(); ++r) {
      if (in_order[r]) continue;
      auto first = sorted.begin() + static_cast<std::ptrdiff_t>(begin[r]);
      auto end = sorted.begin() + static_cast<std::ptrdiff_t>(begin[r + 1]);
      std::stable_sort(first, end, before);
    }
    jobs = std::move(sorted);
  }
};

}  // namespace

std::unique_ptr<Module> make_schmod_fcfs() { return std::make_unique<FcfsModule>(); }
// Orders the queues and their jobs; the ordering modules after it refine that order.
constinit const ModuleDecl kSchmodFcfs{"schmod_fcfs", Phase::kLead, {"schmod_default"}, make_schmod_fcfs};

}  // namespace lsf::sched
