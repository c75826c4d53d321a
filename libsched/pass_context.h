// What one scheduling pass knows and has decided so far: each host's slots and reserved
// resources as the pass fills them, the decisions made. Modules read the view through
// it and record their decisions in it; it lives for one pass only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "libsched/model/cluster_view.h"
#include "libsched/pass.h"

namespace lsf::sched {

inline constexpr int kUnlimited = 1 << 30;

// rusage[] held on a host, by resource.
using Reserved = std::map<std::string, double, std::less<>>;
// A host's number less what is reserved of it (NaN stays NaN).
double less_reserved(double value, const Reserved& reserved, std::string_view name);

struct HostState {
  int max_slots = -1;      // MXJ resolved for this host; -1: unlimited
  int used = 0;            // slots of started jobs (running or suspended) and of placements
  int preempted = 0;       // part of `used`: jobs this or earlier passes suspended by preemption
  int jobs = 0;            // started and placed jobs
  bool exclusive = false;  // an exclusive job runs or was placed here
  bool accepted = false;   // received a job in this pass
  // rusage[] held by started jobs (after duration and decay) and by placements.
  Reserved reserved;
  int free() const { return max_slots < 0 ? kUnlimited : max_slots - used; }
};

struct Placement {
  std::vector<std::pair<int, int>> hosts;  // host index, slots
  GpuAllocation gpus;                      // the devices an assign hook chose (schmod_gpu)
  // When nothing could be placed, why: for the job as a whole (`reason`), or per host.
  // Reasons are the constants of pending_reason.h, so pointers identify them.
  std::string reason;
  std::map<const char*, int> why_not;                                    // hosts per reason
  std::vector<std::pair<const char*, int>> refused;                      // each host looked at and refused
  std::vector<std::pair<const char*, const std::vector<int>*>> skipped;  // hosts passed over in bulk
  void refuse(const char* why, int host) {
    ++why_not[why];
    refused.emplace_back(why, host);
  }
  int slots() const {
    int n = 0;
    for (const auto& [h, s] : hosts) n += s;
    return n;
  }
};

// Hosts that may take a job, best first, and which were left out for which reason.
struct Candidates {
  std::vector<int> hosts;
  std::map<std::string, std::vector<int>> excluded;
};

// How much of each rusage[] resource a job holds, per slot or (shared) per job.
struct Usage {
  std::vector<std::pair<std::string, double>> per_slot;  // host resources
  std::vector<std::pair<std::string, double>> per_job;   // cluster-wide shared resources
};

class Module;

class PassContext {
 public:
  PassContext(const ClusterView& view, std::int64_t now, const std::vector<std::unique_ptr<Module>>& modules);

  const ClusterView& view;
  const SchedPolicy& policy;
  const std::int64_t now;
  std::vector<HostState> hosts;  // parallel to view.hosts
  PassResult result;

  const QueuePolicy& queue_of(const JobView& job) const { return policy.queues[job.queue]; }
  int host_index(std::string_view name) const;  // -1 when not in the view
  // The lsb.hosts row of view.hosts[h], looked up once per pass (room() asks per host).
  const HostPolicy& host_policy(int h) const { return *table_->policies[static_cast<size_t>(h)]; }
  const std::vector<const HostPolicy*>& host_policies() const { return table_->policies; }
  const HostTable& host_table() const { return *table_; }
  // view.running[i]'s hosts as (host index, slots there), in the order they first
  // appear; hosts not in the view are left out. Looked up once per pass for every module.
  std::span<const std::pair<int, int>> slots_of(size_t running_index) const {
    return {running_slots_.data() + running_begin_[running_index],
            running_slots_.data() + running_begin_[running_index + 1]};
  }
  // Each host's value of a resource (null where a host does not define it), found once
  // per pass and name. SelectReader reads these, with what started jobs reserve taken
  // off numbers.
  using ValueColumn = std::vector<const config::ResourceValue*>;
  const ValueColumn& values(std::string_view name) const;
  double numeric(int host, std::string_view name) const;  // NaN when the host lacks it
  // A numeric resource's value on every host as the view has it (before reservations).
  const std::vector<double>& column(std::string_view name) const;
  // Shared resource left: total minus what started jobs and placements hold.
  double shared_left(std::string_view name) const;
  void take_shared(std::string_view name, double amount) { shared_used_[std::string(name)] += amount; }
  // A job's rusage[] (first alternative) held at `now` by a job started at `started`
  // (`now` for a job about to start).
  Usage usage(const config::ResourceRequirement* req, std::int64_t started) const;
  // The same for a job about to start, worked out once per requirement per pass: room()
  // asks it for every host it looks at.
  const Usage& demand(const config::ResourceRequirement* req) const;

  // Slots the job may take on a host now: the least any module allows (0: `why`).
  int room(const JobView& job, int host, const char** why) const;
  // The modules changed (the pass left out its inactive ones): room() asks again only
  // those that have a room hook.
  void modules_settled();

  // Made in place: nearly every one of 100,000 pending jobs gets one each pass, most
  // sharing a text and host list another job's failure composed.
  PendingReason& pend(const JobView& job, const std::shared_ptr<const std::string>& text,
                      const std::shared_ptr<const HostReasons>& on_hosts = nullptr) {
    PendingReason& r = result.reasons.emplace_back();
    r.job = job.key;
    r.text = text;
    r.hosts = on_hosts;
    // std::less: a module may pend a JobView of its own, and only it orders unrelated
    // pointers.
    const JobView* first = view.pending.data();
    std::less<const JobView*> before;
    if (!before(&job, first) && before(&job, first + view.pending.size()))
      r.view_index = static_cast<int>(&job - first);
    return r;
  }
  PendingReason& pend(const JobView& job, const std::string& text) { return pend(job, intern(text)); }
  std::shared_ptr<const std::string> intern(const std::string& text);
  // Every host's name, in view order, made once per pass (HostReason points into it).
  const std::shared_ptr<const std::vector<std::string>>& host_names() const;

 private:
  const std::vector<std::unique_ptr<Module>>& modules_;
  std::shared_ptr<const HostTable> table_;  // the view's, or made for this pass
  std::vector<size_t> running_begin_;       // into running_slots_, one more than view.running
  std::vector<std::pair<int, int>> running_slots_;
  std::map<std::string, double, std::less<>> shared_used_;
  mutable std::unordered_map<const config::ResourceRequirement*, Usage> demands_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> texts_;
  // Each numeric resource read so far, for every host (NaN where a host lacks it):
  // classes x hosts lookups in a pass read a vector, not a map of names. The view's
  // accel.fixed_columns instead, when the caller keeps them between passes.
  mutable ResourceColumns columns_;
  mutable std::map<std::string, ValueColumn, std::less<>> values_;
  mutable bool values_filled_ = false;
  void fill_values() const;
  void fill_columns(ResourceColumns& columns) const;
  std::vector<Module*> room_modules_;  // the modules with a room hook (modules_settled)
};

// A host's resources as select[] and same[] read them, with what started jobs and this
// pass's placements reserve taken off numbers, from columns made once per pass and name: an expression is evaluated on
// thousands of hosts, and finding a name in each host's map would cost more than the rest of it. A name read before is
// found by where the expression keeps it, a pointer comparison.
class SelectReader final : public config::SelectHost {
 public:
  explicit SelectReader(const PassContext& ctx) : ctx_(ctx) {}
  const SelectReader& at(int host) {
    host_ = host;
    return *this;
  }
  config::SelectValue value(std::string_view name) const override;

 private:
  const PassContext& ctx_;
  int host_ = 0;
  struct Seen {
    std::string_view name;
    const PassContext::ValueColumn* values;
  };
  mutable std::vector<Seen> seen_;
};

// "Not enough job slot(s): 3 hosts; Closed by LSF administrator: 1 host": LSF's way of
// saying why no host could take a job, the most common reason first; and the same
// with the hosts' names (bjobs -l).
struct ComposedReasons {
  std::string text;
  HostReasons hosts;
};
ComposedReasons host_reasons(const PassContext& ctx, const std::map<std::string, std::vector<int>>& hosts);

// An amount as reasons print it: `3`, `2.5`.
std::string format_amount(double value);

}  // namespace lsf::sched
