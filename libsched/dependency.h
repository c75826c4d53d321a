// bsub -w dependency expressions, as LSF writes them:
//   done(12) && (exit("nightly*", != 2) || ended(13[4])) && numdone(20, >= 5)
// Conditions: done ended exit started post_done post_err, and the array counters
// numdone numended numexit numhold numpend numrun numstart. A bare job id or name
// means done(). Names may carry `*` wildcards and are quoted when they hold spaces.
//
// Evaluation is three-valued, because a scheduler must know whether to keep waiting:
// satisfied now, not yet, or never (done() of a job that exited can no longer hold).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"
#include "libsched/model/cluster_view.h"

namespace lsf::sched {

// A job a condition names: by id (index 0: every element) or by name.
struct DependencyRef {
  std::int64_t job_id = 0;
  std::int32_t index = 0;
  std::string name;  // set when referenced by name
};

// What the evaluator needs to know of each matched job or element.
struct DependencyJob {
  enum class Phase { kPending, kHeld, kRunning, kDone, kExit } phase = Phase::kPending;
  int exit_code = 0;
};

using DependencyLookup = std::function<std::vector<DependencyJob>(const DependencyRef&)>;

class DependencyExpr {
 public:
  struct Node;
  static config::Result<DependencyExpr> parse(std::string_view text);
  DependencyState evaluate(const DependencyLookup& lookup) const;
  // Every job the expression names, to check at submission that each exists.
  std::vector<DependencyRef> references() const;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace lsf::sched
