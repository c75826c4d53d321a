// A bsub -w dependency expression: parsed, every job it names listed, and evaluated
// against jobs in every state, as the pass evaluates it on each pending job.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libsched/dependency.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lsf::sched;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto e = DependencyExpr::parse(text);
  if (!e) return 0;
  (void)e->references();
  using Phase = DependencyJob::Phase;
  // A job's elements by its id or name: none, one, or one in each phase.
  (void)e->evaluate([](const DependencyRef& ref) {
    const std::size_t pick = (static_cast<std::size_t>(ref.job_id) + ref.name.size() + ref.index) % 3;
    if (pick == 0) return std::vector<DependencyJob>{};
    if (pick == 1) return std::vector<DependencyJob>{{Phase::kDone, 0}};
    return std::vector<DependencyJob>{
        {Phase::kPending, 0}, {Phase::kHeld, 0}, {Phase::kRunning, 0}, {Phase::kDone, 0}, {Phase::kExit, 3}};
  });
  return 0;
}
