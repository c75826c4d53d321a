// schmod_default's host matching: per (queue, select[], -m) which hosts refuse its jobs
// and why, and per (order[], preference levels) every host ranked.
//
// Facts are read as each host had them when the pass began. rusage[] this pass places
// is checked again where it matters (schmod_default's room), so a fact does not depend
// on when in the pass it was first asked for, and a caller that keeps the matching
// between passes (ClusterView::accel.carry) has only the hosts whose facts may have changed
// worked out again: another status, load or reserved rusage[], a dispatch window
// opening or closing. What a pass did not ask for is forgotten at its end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libsched/pass_context.h"

namespace lsf::sched {

class HostMatching {
 public:
  // At the start of each pass; `carried`: the caller keeps this matching for the next.
  void start(const PassContext& ctx, bool carried);
  // Before a placement's rusage[] is reserved on its hosts: their facts stay as they
  // were when the pass began.
  void placing(const PassContext& ctx, const Placement& p);
  // The job's eligible hosts, best first, and the others by reason.
  void candidates(PassContext& ctx, const JobView& job, Candidates& cands);
  // At the end of each pass.
  void finish();
  // Whether this pass has placed rusage[] on the host: its facts may no longer hold.
  bool placed_rusage(int h) const {
    return static_cast<size_t>(h) < at_start_.size() && at_start_[static_cast<size_t>(h)];
  }

 private:
  // Per host, what its facts were worked out from.
  struct Seen {
    HostStatus status = HostStatus::kOk;
    std::string cluster;
    ResourceMap resources;
    Reserved reserved;
    bool window_open = true;
    bool operator==(const Seen&) const = default;
  };
  struct EligibleKey {
    int queue;
    const void* select;
    const void* asked;
    const void* excluded;  // the job, when an exclusive requeue keeps it off hosts
    auto operator<=>(const EligibleKey&) const = default;
  };
  struct Eligible {
    std::shared_ptr<const void> req, asked;  // what the key points into, kept alive
    std::uint64_t used = 0;                  // the last pass that asked
    std::vector<const char*> why;            // per host: the first reason it refuses, or nullptr
    std::vector<char> refused;               // per host: `why` is set (a byte: read per class)
    std::vector<std::pair<const char*, std::vector<int>>> excluded;  // hosts per reason, in host order
  };
  struct RankKey {
    const void* order;
    const void* asked;   // -m: which hosts the job may use
    const void* levels;  // whose preference levels rank them: the -m's, the queue's or none
    auto operator<=>(const RankKey&) const = default;
  };
  struct Ranked {
    std::shared_ptr<const void> req, asked;
    std::uint64_t used = 0;
    const std::vector<config::OrderKey>* keys = nullptr;
    std::vector<char> larger_better;  // per key
    const AskedHosts* asked_levels = nullptr;
    const QueuePolicy* queue_levels = nullptr;
    std::vector<int> preference;  // per host
    std::vector<double> values;   // per host, one per key (NaN: undefined)
    std::vector<int> order;       // every host, best first
  };
  // A loadSched threshold, its index's direction found once per threshold set.
  struct SchedLimit {
    std::string_view index;
    double limit;
    bool larger_better;
  };
  struct SelectMemo {
    std::shared_ptr<const void> req;
    std::uint64_t used = 0;
    std::vector<signed char> matches;  // per host; -1: not evaluated yet
  };

  void refresh(const PassContext& ctx);
  void reset(const PassContext& ctx);
  const Reserved& reserved_at_start(const PassContext& ctx, int h) const;
  double number(const PassContext& ctx, int h, std::string_view name) const;
  const std::vector<SchedLimit>& limits(const config::Thresholds& t);
  bool over_sched(const PassContext& ctx, int h, const std::vector<SchedLimit>& limits) const;
  const char* host_refusal(const PassContext& ctx, int h, bool window_open);
  const std::vector<signed char>* queue_busy(const PassContext& ctx, int queue);
  const std::vector<char>& queue_hosts(const PassContext& ctx, int queue);
  const char* queue_refusal(const PassContext& ctx, int queue, const std::vector<char>& in_queue,
                            const std::vector<signed char>* busy, int h) const;
  const std::vector<const char*>& queue_row(const PassContext& ctx, int queue);
  bool select_matches(const PassContext& ctx, const config::SelectExpr& select, SelectMemo& memo, int h);
  SelectMemo& memo_of(const PassContext& ctx, const EligibleKey& key, const std::shared_ptr<const void>& req);
  const char* refusal(const PassContext& ctx, const EligibleKey& key, const std::vector<const char*>& row,
                      SelectMemo* memo, const JobView* job, int h);
  void make_eligible(const PassContext& ctx, const EligibleKey& key, const JobView& job, Eligible& e);
  void refresh_eligible(const PassContext& ctx, const EligibleKey& key, Eligible& e);
  const Ranked& ranked(const PassContext& ctx, const JobView& job);
  void rank_values(const PassContext& ctx, Ranked& r, int h) const;
  static bool before(const Ranked& r, int a, int b);
  static bool sort_packed(Ranked& r);
  void refresh_ranked(const PassContext& ctx, Ranked& r);

  // What the tables below hold for; another policy or other hosts start them afresh.
  std::shared_ptr<const SchedPolicy> policy_;
  std::shared_ptr<const std::vector<std::string>> names_;
  std::vector<Seen> seen_;
  std::uint64_t pass_ = 0;
  bool carried_ = false;
  bool refreshed_ = false;              // this pass's changed hosts worked out again
  bool direct_ = false;                 // values read from each host, not from the pass's columns
  std::optional<SelectReader> reader_;  // the pass's columns, for select[] on many hosts
  std::vector<int> changed_;            // this pass's hosts whose facts may have changed
  // Per host, reserved rusage[] when the pass began, for hosts this pass placed
  // rusage[] on (null: as they have it).
  std::vector<const Reserved*> at_start_;
  std::vector<std::unique_ptr<Reserved>> kept_;

  std::vector<const char*> status_;    // per host: why its status refuses jobs, or nullptr
  std::vector<const char*> host_row_;  // per host: its window or its own thresholds refuse
  std::vector<char> borrowed_;         // per host: leased from another cluster
  std::map<const config::Thresholds*, std::vector<SchedLimit>> limits_;
  std::vector<std::pair<const config::Thresholds*, std::vector<signed char>>> queue_busy_;
  std::map<int, std::vector<char>> in_queue_;
  std::map<int, std::vector<const char*>> queue_rows_;
  std::map<const config::SelectExpr*, SelectMemo> select_;
  std::map<EligibleKey, Eligible> eligible_;
  std::map<RankKey, Ranked> ranked_;
};

}  // namespace lsf::sched
