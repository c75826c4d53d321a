// Runtime estimates for planning (RUNTIME_ESTIMATE = PREDICT, this project's extension).
//
// Users' run limits are poor estimates: most jobs end long before them, so plans made
// with them leave slots idle that backfill could have used. The backfill literature's
// answer (Tsafrir, Etsion and Feitelson, 2007) is to plan with the mean runtime of the
// user's last two finished jobs, never longer than the run limit, and to extend a
// running job's estimate when it outlives it (holding does; RESERVATION_MODEL = PLAN
// plans a running job to its limit: schmod_reserve.cc says why). Only plans use the
// estimate: a job is still killed at its run limit and nowhere else.
//
// mbatchd feeds the history from lsb.acct and from jobs as they finish, the simulator
// from its simulated past; both compute estimates here, so they plan alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libsched/model/cluster_view.h"
#include "libsched/model/policy.h"

namespace lsf::sched {

class RuntimeHistory {
 public:
  // A job of `user` ended after running `runtime_s` seconds (killed ones too: that is
  // how long they held their slots).
  void finished(std::string_view user, std::int64_t runtime_s);
  // The mean of the user's last two runtimes (the one, when only one); none without.
  std::optional<std::int64_t> predicted(std::string_view user) const;
  std::size_t users() const { return users_.size(); }
  // What a restart needs: each user's last two runtimes (-1: none), newest first.
  struct Entry {
    std::string user;
    std::int64_t newest = -1, older = -1;
  };
  std::vector<Entry> entries() const;  // by user name
  void restore(const Entry& e);

 private:
  struct Last {
    std::int64_t newest = -1, older = -1;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, Last, Hash, std::equal_to<>> users_;
};

// The estimate a job of `user` is planned with: the prediction, at least 1 s and at
// most the run limit; the run limit when the user has no history (0: none either).
std::int64_t predicted_estimate(const RuntimeHistory& history, std::string_view user, std::int64_t run_limit_s);

// A running job planned to run `estimate_s` that has run `elapsed_s`: what plans take
// it to run in all. Once it outlives its estimate, its run limit (0: unknown, so its
// slots are not planned to come free): the prediction was wrong, and the limit is the
// one length known to hold. Shorter steps (a minute, then more) were tried on the
// classic traces and did worse: a plan that keeps expecting the job to end soon
// reserves slots for a start that keeps moving, and backfill has no room around it.
std::int64_t extended_estimate(std::int64_t estimate_s, std::int64_t elapsed_s, std::int64_t run_limit_s);

// How long plans take a pending job to run: its estimate, else its run limit; 0: unknown.
inline std::int64_t planned_length(const JobView& job) { return job.estimate_s > 0 ? job.estimate_s : job.run_limit_s; }

// BACKFILL_MAX_WAIT: the job has been eligible at least that long: it reserves past
// RESERVATION_DEPTH, is backfilled before other jobs, and while it waits nothing is
// planned on a prediction (schmod_reserve).
inline bool overdue(const QueuePolicy& queue, const JobView& job, std::int64_t now) {
  return queue.max_wait_s > 0 && job.idle_since >= 0 && now - job.idle_since >= queue.max_wait_s;
}

}  // namespace lsf::sched
