// Resource requirement strings (`bsub -R`, queue RES_REQ, RES_SELECT, STOP_COND):
// `select[...] order[...] rusage[...] span[...] same[...] cu[...] affinity[...]`,
// sections in any order, an unlabeled leading string read as select[].
//
//  - order[]: `[-]name:[-]name`; hosts sort best-first by the first key, ties by the
//    next; each index by its natural direction (less load first, more free memory
//    first), `-` reversing it; undefined values last.
//  - rusage[]: `mem=100:lic=1:duration=10:decay=1`, comma-separated clauses each with
//    their own duration, or `||` alternatives; duration in minutes (`h` for hours).
//  - span[]: hosts=1 | hosts=-1 | ptile=n | ptile='!' | block=n.
//  - same[]: `type:model`. cu[]: type= pref= maxcus= usablecuslots= balance excl.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"
#include "libconfig/select_expr.h"

namespace lsf::config {

struct OrderKey {
  std::string name;
  bool reverse = false;  // written with a leading '-'
  bool operator==(const OrderKey&) const = default;
};

struct RusageItem {
  std::string name;
  double value = 0;
  bool operator==(const RusageItem&) const = default;
};

struct RusageClause {
  std::vector<RusageItem> items;
  std::optional<int> duration_minutes;  // absent: held for the job's lifetime
  bool decay = false;                   // linear decrease to 0 over the duration
  bool operator==(const RusageClause&) const = default;
};

struct Rusage {
  // alternatives[0] is the preferred one; each alternative is a list of clauses.
  std::vector<std::vector<RusageClause>> alternatives;
  bool empty() const { return alternatives.empty(); }
  bool operator==(const Rusage&) const = default;
};

struct Span {
  std::optional<int> hosts;    // 1: all on one host; -1: ignore the queue's span
  std::optional<int> ptile;    // slots per host
  bool ptile_per_cpu = false;  // ptile='!'
  std::optional<int> block;
  bool operator==(const Span&) const = default;
};

struct ComputeUnitRequest {
  std::string type;
  std::string pref;  // config | bestfit | maxavail | minavail
  std::optional<int> maxcus;
  std::optional<int> usablecuslots;
  bool balance = false;
  bool excl = false;
  bool operator==(const ComputeUnitRequest&) const = default;
};

struct ResourceRequirement {
  SelectExpr select;
  std::vector<OrderKey> order;
  Rusage rusage;
  std::optional<Span> span;
  std::vector<std::string> same;
  std::optional<ComputeUnitRequest> cu;
  std::string affinity;  // kept as written; not yet acted on

  static Result<ResourceRequirement> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const ResourceRequirement&) const = default;
};

// A job's requirement combined with its queue's RES_REQ: select[] must hold both; the
// job's order[], rusage[] and span[] win over the queue's; same[] adds up.
ResourceRequirement merge_with_queue(const ResourceRequirement& job, const ResourceRequirement& queue);

// What a job is scheduled with (LSF's "Combined" requirement): the job's own wins over
// its application profile's, which wins over its queue's; select[] must hold all of
// them. Any of the three may be null; nullopt when all are.
std::optional<ResourceRequirement> combine_requirements(const ResourceRequirement* job,
                                                        const ResourceRequirement* application,
                                                        const ResourceRequirement* queue);

// Direction in which a larger value is better for order[]: false for load indices
// that grow with load (r1m, ut, pg ...), true for free resources (mem, swp, tmp, it)
// and for static and site numeric resources unless they are declared INCREASING.
bool larger_is_better(std::string_view name);

// Orders two hosts for `keys`: negative when a sorts before b, positive after, 0 tie.
int compare_by_order(const std::vector<OrderKey>& keys, const ResourceLookup& a, const ResourceLookup& b);

}  // namespace lsf::config
