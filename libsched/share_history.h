// What finished jobs used, per fairshare queue and user, decayed as LSF decays it: with
// HIST_HOURS = h, an hour of use counts as 0.1 hour h hours later (HIST_HOURS = 0: no
// decay). Running jobs count separately, from the view; a job's use moves here when it
// finishes. A plain value: mbatchd keeps one in its state (rebuilt by replaying the
// finish events, kept in snapshots), the simulator keeps one on its virtual clock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libsched/model/policy.h"

namespace lsf::sched {

struct ShareUse {
  double cpu_s = 0;  // CPU seconds
  double run_s = 0;  // run time x slots, seconds
};

class ShareHistory {
 public:
  struct Entry {
    std::string queue, user;
    ShareUse use;  // as of `as_of`
    std::int64_t as_of = 0;
  };

  // Adds a finished job's use at `at` (decaying what was there to `at` first).
  void charge(const std::string& queue, const std::string& user, ShareUse use, std::int64_t at, double hist_hours);
  // The user's use in the queue, decayed to `now`.
  ShareUse use(const std::string& queue, const std::string& user, std::int64_t now, double hist_hours) const;

  // Every user's use in the queue, decayed to `now`, by user name.
  std::vector<std::pair<std::string, ShareUse>> queue_use(const std::string& queue, std::int64_t now,
                                                          double hist_hours) const;
  std::vector<Entry> entries() const;  // for snapshots, in (queue, user) order
  void restore(const Entry& e) { entries_[{e.queue, e.user}] = {e.use, e.as_of}; }
  bool empty() const { return entries_.empty(); }

  // The factor by which use `seconds` old has decayed.
  static double decay(double seconds, double hist_hours);

 private:
  struct Held {
    ShareUse use;
    std::int64_t as_of = 0;
  };
  std::map<std::pair<std::string, std::string>, Held, std::less<>> entries_;
};

// A finished job of `queue`: its use charged where the queue's policies read it (its
// fairshare tree's key, and the queue itself as user "" for a SLOT_POOL). mbatchd and
// the simulator both charge through this.
// `group` is the job's bsub -G (empty: none): the use is kept as `group/user`, for the
// account below that group.
void charge_finished(ShareHistory& history, const QueuePolicy& queue, const std::string& user, const std::string& group,
                     ShareUse use, std::int64_t at);
bool charges_history(const QueuePolicy& queue);  // does charge_finished record anything

}  // namespace lsf::sched
