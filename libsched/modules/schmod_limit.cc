// schmod_limit: every job slot limit, counted as LSF counts them (running and
// suspended jobs, and what this pass has placed):
//   lsb.users   MAX_JOBS per user, per group (the members together) and per member
//               (`group@`), JL/P per user per processor;
//   lsb.hosts   JL/U (each user's slots on the host);
//   lsb.queues  QJOB_LIMIT, UJOB_LIMIT, HJOB_LIMIT, PJOB_LIMIT (per processor);
//   lsb.resources Limit sections: SLOTS, SLOTS_PER_PROCESSOR, JOBS, MEM, SWP, TMP and
//               RESOURCE for USERS/PER_USER, QUEUES/PER_QUEUE, HOSTS/PER_HOST,
//               PROJECTS/PER_PROJECT.
// Limits without a host dimension decide whether a job is considered at all; limits on
// hosts decide how many slots a host can give (and, for a host group as a whole, the
// sum over the placement).
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>

#include "libsched/limit_usage.h"
#include "libsched/modules/modules.h"
#include "libsched/name_index.h"
#include "libsched/pass_carry.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

std::string numbers(double used, double limit) {
  return format_amount(used) + " of " + format_amount(limit) + " in use";
}

// What a Limit section has counted for one combination of its consumers.
struct Counted {
  int slots = 0;
  int jobs = 0;
  std::map<std::string, double, std::less<>> resources;
};

// A Limit section and the members of its PER_* consumers (user and project ids of
// this pass, queue and host indexes), -1 for a consumer counted as a whole. Integers:
// every pending job is checked against it, and 100,000 string keys cost more than the
// rest of admission.
struct LimitKey {
  int limit, user, queue, project, host;
  bool operator==(const LimitKey&) const = default;
};
struct LimitKeyHash {
  size_t operator()(const LimitKey& k) const {
    size_t h = static_cast<size_t>(k.limit);
    for (int part : {k.user, k.queue, k.project, k.host}) h = h * 1000003 ^ static_cast<size_t>(part + 1);
    return h;
  }
};

// Per host, slots by queue and by user: a host runs few jobs, so a short list each
// (40,000 running jobs would otherwise be 40,000 hash nodes made every pass).
using PerHost = std::vector<std::vector<std::pair<std::int64_t, int>>>;

// Each user's counts and limits, looked up once per call by name.
struct UserInfo {
  int slots = 0;
  UserSlotLimit limit;
  std::vector<std::string> groups;
  std::int64_t id = 0;           // keys the user's per-host counts
  std::vector<int> queue_slots;  // per queue (UJOB_LIMIT)
  std::vector<char> in_limit;    // per Limit section: its USERS take the user
};

// A limit's counts without a host dimension, found by one id rather than hashed: every
// pending job is checked against each limit that applies to it, and a limit counts
// its consumers one by one in at most one kind (PER_USER, PER_QUEUE or PER_PROJECT)
// or as a whole, almost always. Entries point into LimitCounts::usage, whose nodes stay
// put.
struct ById {
  enum Dim { kWhole, kUser, kQueue, kProject, kHashed } dim = kHashed;
  std::vector<Counted*> counts;
  int id(const LimitKey& key) const {
    return dim == kWhole ? 0 : dim == kUser ? key.user : dim == kQueue ? key.queue : dim == kProject ? key.project : -1;
  }
};

// Per Limit section, which queues and (by id) projects its lists take (counts()).
struct Members {
  std::vector<char> queue;
  std::vector<signed char> project;  // -1: not asked yet
  const ConsumerSet* projects = nullptr;
};

// What the module has counted: started jobs' slots, then this pass's placements and
// reservations, by user, group, queue, host and Limit section.
struct LimitCounts {
  NameIndex user_ids;
  // Users counted or asked about, in the order first met (a deque: references stay
  // valid as users are added), and by id (null: not yet).
  std::deque<UserInfo> users;
  std::vector<UserInfo*> by_id;
  NameIndex project_ids;
  std::map<std::string, int> group_slots;
  std::map<std::string, std::unordered_map<int, int>> group_host_slots;
  std::vector<int> queue_slots;  // per queue
  PerHost host_queue_slots, user_host_slots;
  std::unordered_map<LimitKey, Counted, LimitKeyHash> usage;
  std::vector<ById> by_one_id;  // per limit
  std::vector<Members> members;
};

// A started job as the last pass counted it, to compare with what this pass sees.
struct CountedJob {
  JobKey key;
  int queue = 0, user = 0, project = 0, slots = 0;
  std::uint32_t first = 0, end = 0;  // its (host, slots) in LimitCarry::job_hosts
};

// A placement or reservation a pass counted: the next pass takes it off again, since
// what started then comes back as a started job.
struct Added {
  int queue = 0, user = 0, project = 0, slots = 0;
  bool runs = false;
  std::vector<std::pair<int, int>> hosts;
};

// The counts kept between passes (ClusterView::accel.carry). Counting 40,000 started jobs
// afresh would be most of the module's work in a pass after one job ends; a pass with a
// carry counts only the started jobs that came, went or changed since the last one. Kept
// only where every count is an integer (no Limit section limits MEM, SWP, TMP or a
// RESOURCE: sums of amounts, taken off again, need not come back to the same double), and
// the caller gives user and project ids, the keys of the counts, from tables that only
// grow.
struct LimitCarry {
  bool valid = false;
  // What the counts hold for; another policy, other hosts or other ids start afresh.
  std::shared_ptr<const SchedPolicy> policy;
  std::shared_ptr<const std::vector<std::string>> hosts;
  std::shared_ptr<const NameIndex> user_table, project_table;
  LimitCounts counts;
  std::vector<CountedJob> jobs, next_jobs;  // by key
  std::vector<std::pair<int, int>> job_hosts, next_job_hosts;
  std::vector<Added> added;
};

class LimitModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_limit"; }

  void prepare(PassContext& ctx) override {
    // Per-host counts only where some limit reads them: most clusters set none of
    // JL/U, JL/P, HJOB_LIMIT and PJOB_LIMIT, and counting every running job per host
    // and user would be most of this module's work.
    for (const auto* hp : ctx.host_policies()) by_user_on_host_ |= hp->jl_u.has_value();
    for (const auto& [name, l] : ctx.policy.user_limits) by_user_on_host_ |= l.jl_p.has_value();
    for (const auto& [name, l] : ctx.policy.group_limits) by_group_on_host_ |= l.jl_p.has_value();
    bool queue_limits = false;
    for (const auto& q : ctx.policy.queues) {
      by_queue_on_host_ |= q.hjob_limit || q.pjob_limit;
      queue_limits |= q.hjob_limit || q.pjob_limit || q.qjob_limit || q.ujob_limit;
    }
    // With no limit at all configured there is nothing to count (a simulated cluster,
    // a small site): the module leaves the pass.
    active_ = by_user_on_host_ || by_group_on_host_ || queue_limits || !ctx.policy.user_limits.empty() ||
              !ctx.policy.group_limits.empty() || !ctx.policy.limits.empty();
    if (!active_) return;
    given_users_ = ctx.view.accel.user_ids != nullptr;
    given_projects_ = ctx.view.accel.project_ids != nullptr;
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i) {
      const LimitPolicy& l = ctx.policy.limits[i];
      if (!l.hosts.given && !l.slots_per_processor) whole_limits_.push_back(i);
      count_resources_ |= !l.resources.empty();
    }
    if (ctx.view.accel.carry) {
      LimitCarry& carry = ctx.view.accel.carry->part<LimitCarry>(name());
      if (carryable(ctx)) {
        carry_ = &carry;
        c_ = &carry.counts;
        if (carry.valid && still_applies(ctx, carry)) {
          take_tables(ctx, carry);
          take_off_added(ctx, carry);
          bring_up_to_date(ctx, carry);
          return;
        }
        carry = LimitCarry{};
        carry.policy = ctx.view.policy;
        carry.hosts = ctx.host_table().names;
        carry.user_table = ctx.view.accel.user_ids;
        carry.project_table = ctx.view.accel.project_ids;
        carry.valid = true;
      } else {
        carry.valid = false;
      }
    }
    count_afresh(ctx);
  }

  // No carry, or the last pass's counts do not apply: every started job counted.
  void count_afresh(PassContext& ctx) {
    // Ids the caller keeps: the jobs' ids are the tables' from here on, and names the
    // tables lack get the next ones.
    if (ctx.view.accel.user_ids) c_->user_ids = *ctx.view.accel.user_ids;
    if (ctx.view.accel.project_ids) c_->project_ids = *ctx.view.accel.project_ids;
    c_->queue_slots.assign(ctx.policy.queues.size(), 0);
    c_->by_one_id.assign(ctx.policy.limits.size(), {});
    c_->members.assign(ctx.policy.limits.size(), {});
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i) {
      const LimitPolicy& l = ctx.policy.limits[i];
      Members& m = c_->members[i];
      m.projects = &l.projects;
      m.queue.resize(ctx.policy.queues.size());
      for (size_t q = 0; q < ctx.policy.queues.size(); ++q) m.queue[q] = l.queues.matches(ctx.policy.queues[q].name);
      int per = int{l.users.per_member} + int{l.queues.per_member} + int{l.projects.per_member};
      c_->by_one_id[i].dim = per > 1                 ? ById::kHashed
                             : l.users.per_member    ? ById::kUser
                             : l.queues.per_member   ? ById::kQueue
                             : l.projects.per_member ? ById::kProject
                                                     : ById::kWhole;
    }
    if (by_user_on_host_ || by_queue_on_host_) {
      // A host's lists hold at most one entry per job there: sized once, not grown
      // entry by entry on each of thousands of hosts.
      std::vector<int> jobs_on(ctx.view.hosts.size());
      for (size_t i = 0; i < ctx.view.running.size(); ++i)
        for (auto [h, n] : ctx.slots_of(i)) ++jobs_on[static_cast<size_t>(h)];
      for (PerHost* m :
           {by_user_on_host_ ? &c_->user_host_slots : nullptr, by_queue_on_host_ ? &c_->host_queue_slots : nullptr}) {
        if (!m) continue;
        m->resize(ctx.view.hosts.size());
        for (size_t h = 0; h < jobs_on.size(); ++h) (*m)[h].reserve(static_cast<size_t>(jobs_on[h]));
      }
    }
    if (carry_) {
      carry_->jobs.reserve(ctx.view.running.size());
      carry_->job_hosts.reserve(ctx.view.running.size());
    }
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      const Who who = carry_ ? who_with_ids(job) : who_of(job);
      count(ctx, who, job.queue, ctx.slots_of(i),
            count_resources_ ? ctx.usage(job.res_req.get(), job.start_time) : Usage{},
            static_cast<int>(job.hosts.size()));
      if (carry_) remember(carry_->jobs, carry_->job_hosts, job, who, ctx.slots_of(i));
    }
  }

  bool active(const PassContext&) const override { return active_; }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    const QueuePolicy& q = ctx.queue_of(job);
    int need = job.min_slots;
    const int in_queue = c_->queue_slots[static_cast<size_t>(job.queue)];
    if (q.qjob_limit && in_queue + need > *q.qjob_limit) return with(reason::kQueueSlotLimit, in_queue, *q.qjob_limit);
    const Who who = who_of(job);
    UserInfo& u = user(ctx, who);
    if (q.ujob_limit) {
      int used = u.queue_slots[static_cast<size_t>(job.queue)];
      if (used + need > *q.ujob_limit) return with(reason::kQueueUserLimit, used, *q.ujob_limit);
    }
    if (u.limit.max_jobs && u.slots + need > *u.limit.max_jobs)
      return with(reason::kUserLimit, u.slots, *u.limit.max_jobs);
    if (!u.groups.empty())
      if (auto no = over_group_limit(ctx, u, need)) return no;
    for (size_t i : whole_limits_) {
      if (!counts(i, u, job.queue, who)) continue;
      const LimitPolicy& l = ctx.policy.limits[i];
      const LimitKey key = key_of(l, i, static_cast<int>(u.id), job.queue, project_id(l, who), -1);
      const Counted& used = counted(i, key);
      // Slots and jobs (most limits): two comparisons, and nothing composed unless over.
      if (l.resources.empty() && (!l.slots || used.slots + need <= *l.slots) && (!l.jobs || used.jobs + 1 <= *l.jobs))
        continue;
      if (auto no = refusal(ctx, job, l, used, key, need)) return no;
    }
    return std::nullopt;
  }

  int room(const PassContext& ctx, const JobView& job, int h, const char** why) override {
    const QueuePolicy& q = ctx.queue_of(job);
    const HostView& host = ctx.view.hosts[h];
    int least = kUnlimited;
    auto cap = [&](int left, const char* text) {
      if (left < least) {
        least = std::max(0, left);
        *why = text;
      }
    };
    const HostPolicy& hp = ctx.host_policy(h);
    const UserInfo* u = room_user(job);
    if (hp.jl_u || u) {
      int mine = u ? on_host(c_->user_host_slots, h, u->id) : 0;
      if (hp.jl_u) cap(*hp.jl_u - mine, reason::kHostPerUser);
      if (u && u->limit.jl_p)
        cap(static_cast<int>(std::floor(*u->limit.jl_p * host.ncpus)) - mine, reason::kHostUserPerCpu);
      // JL/P of a group: its members together, per processor of the host.
      if (u) {
        for (const auto& g : u->groups) {
          auto gl = ctx.policy.group_limits.find(g);
          if (gl == ctx.policy.group_limits.end() || !gl->second.jl_p) continue;
          auto gh = c_->group_host_slots.find(g);
          int theirs = gh == c_->group_host_slots.end() ? 0 : get(gh->second, h);
          cap(static_cast<int>(std::floor(*gl->second.jl_p * host.ncpus)) - theirs, reason::kHostUserPerCpu);
        }
      }
    }
    if (q.hjob_limit) cap(*q.hjob_limit - on_host(c_->host_queue_slots, h, job.queue), reason::kHostQueuePerHost);
    if (q.pjob_limit)
      cap(static_cast<int>(std::floor(*q.pjob_limit * host.ncpus)) - on_host(c_->host_queue_slots, h, job.queue),
          reason::kHostQueuePerCpu);
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i) {
      const LimitPolicy& l = ctx.policy.limits[i];
      bool per_host = l.hosts.per_member || l.slots_per_processor;
      if (!(l.hosts.given || l.slots_per_processor) || !l.hosts.matches(host.name)) continue;
      if (!applies(ctx, l, job.user, job.queue, job.project)) continue;
      int uid = u ? static_cast<int>(u->id) : -2;  // -2: a user nothing counts yet
      LimitKey key = key_of(l, i, uid, job.queue, find_project(l, who_of(job)), per_host ? h : -1);
      auto it = uid == -2 && l.users.per_member ? c_->usage.end() : c_->usage.find(key);
      Counted none;
      const Counted& used = it == c_->usage.end() ? none : it->second;
      if (l.jobs && used.jobs + 1 > *l.jobs) cap(0, reason::kHostSlotLimit);
      if (l.slots) cap(*l.slots - used.slots, reason::kHostSlotLimit);
      if (l.slots_per_processor)
        cap(static_cast<int>(std::floor(*l.slots_per_processor * host.ncpus)) - used.slots, reason::kHostSlotLimit);
      for (const auto& [res, limit] : l.resources) {
        double per_slot = per_slot_demand(ctx, job, res);
        if (per_slot <= 0) continue;
        double left = limit - lookup(used.resources, res);
        cap(static_cast<int>(std::floor(left / per_slot + 1e-9)), reason::kHostSlotLimit);
      }
    }
    return least;
  }

  std::optional<std::string> verify(const PassContext& ctx, const JobView& job, const Candidates&,
                                    const Placement& p) override {
    // A Limit on a host group as a whole: the placement's slots on its hosts together.
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i) {
      const LimitPolicy& l = ctx.policy.limits[i];
      if (!l.hosts.given || l.hosts.per_member || l.slots_per_processor) continue;
      const Who who = who_of(job);
      const UserInfo& u = user(ctx, who);
      if (!counts(i, u, job.queue, who)) continue;
      int slots = 0;
      for (auto [h, n] : p.hosts)
        if (l.hosts.matches(ctx.view.hosts[h].name)) slots += n;
      if (slots == 0) continue;
      LimitKey key = key_of(l, i, static_cast<int>(u.id), job.queue, project_id(l, who), -1);
      Counted want = demand(ctx, job, slots);
      if (auto no = exceeds(ctx, l, counted(i, key), want, key)) return no;
    }
    return std::nullopt;
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    const Who who = carry_ ? who_with_ids(job) : who_of(job);
    count(ctx, who, job.queue, p.hosts, count_resources_ ? ctx.demand(job.res_req.get()) : Usage{}, p.slots());
    if (carry_) carry_->added.push_back({job.queue, who.ids.first, who.ids.second, p.slots(), true, p.hosts});
  }

  // Reserved slots count toward job slot limits (not rusage, not JOBS: nothing runs).
  void hold(PassContext& ctx, const JobView& job, const Placement& p) override {
    const Who who = carry_ ? who_with_ids(job) : who_of(job);
    count(ctx, who, job.queue, p.hosts, Usage{}, p.slots(), false);
    if (carry_) carry_->added.push_back({job.queue, who.ids.first, who.ids.second, p.slots(), false, p.hosts});
  }

 private:
  bool active_ = true;
  // A job's user and project, with the ids the caller gave (-1: none).
  struct Who {
    const std::string& user;
    const std::string& project;
    std::pair<int, int> ids;
  };
  template <typename Job>
  Who who_of(const Job& job) const {
    return {job.user, job.project, {given_users_ ? job.user_id : -1, given_projects_ ? job.project_id : -1}};
  }

  // Every pending job asks for its user: the caller's id of a user met before is the
  // whole lookup, kept small enough to be inlined; the rest is add_user().
  UserInfo& user(const PassContext& ctx, const Who& who) {
    const auto id = static_cast<size_t>(who.ids.first);
    if (who.ids.first >= 0 && id < c_->by_id.size() && c_->by_id[id]) return *c_->by_id[id];
    return add_user(ctx, who);
  }
  [[gnu::noinline]] UserInfo& add_user(const PassContext& ctx, const Who& who) {
    const int id = who.ids.first >= 0 ? who.ids.first : c_->user_ids.insert(who.user).first;
    if (static_cast<size_t>(id) >= c_->by_id.size()) c_->by_id.resize(static_cast<size_t>(id) + 1);
    UserInfo*& known = c_->by_id[static_cast<size_t>(id)];
    if (!known) {
      UserInfo& u = *(known = &c_->users.emplace_back());
      u.id = id;
      u.limit = ctx.policy.user_limit(who.user);
      u.groups = ctx.policy.groups_of(who.user);
      u.queue_slots.assign(ctx.policy.queues.size(), 0);
      u.in_limit.reserve(ctx.policy.limits.size());
      for (const LimitPolicy& l : ctx.policy.limits) u.in_limit.push_back(l.users.matches(who.user));
    }
    return *known;
  }
  const UserInfo* find_user(const Who& who) const {
    int id = who.ids.first >= 0 ? who.ids.first : c_->user_ids.find(who.user);
    return id < 0 || static_cast<size_t>(id) >= c_->by_id.size() ? nullptr : c_->by_id[static_cast<size_t>(id)];
  }
  // room() is asked for one job host after host: its user is looked up once. Counting
  // may add the user, so count() forgets the answer.
  const UserInfo* room_user(const JobView& job) {
    if (&job != room_job_) {
      room_job_ = &job;
      room_user_ = find_user(who_of(job));
    }
    return room_user_;
  }
  template <typename Map, typename Key>
  static int get(const Map& m, const Key& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }
  static int on_host(const PerHost& m, int h, std::int64_t who) {
    if (static_cast<size_t>(h) >= m.size()) return 0;
    for (const auto& [w, n] : m[h])
      if (w == who) return n;
    return 0;
  }
  static void add_on_host(PerHost& m, int h, std::int64_t who, int n) {
    if (static_cast<size_t>(h) >= m.size()) m.resize(static_cast<size_t>(h) + 1);
    auto& list = m[static_cast<size_t>(h)];
    for (auto& entry : list)
      if (entry.first == who) {
        // Taken off to nothing: gone, as if never counted, so the list stays short.
        if ((entry.second += n) == 0) {
          entry = list.back();
          list.pop_back();
        }
        return;
      }
    list.emplace_back(who, n);
  }
  static double lookup(const std::map<std::string, double, std::less<>>& m, std::string_view k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }

  // Reasons are composed out of line: every pending job goes through admit(), and the
  // text a few of them need crowded the checks the rest pass.
  [[gnu::noinline, gnu::cold]] static std::string with(const char* text, double used, double limit) {
    return std::string(text) + " (" + numbers(used, limit) + ")";
  }

  static bool applies(const PassContext& ctx, const LimitPolicy& l, const std::string& user, int queue,
                      const std::string& project) {
    return l.users.matches(user) && l.queues.matches(ctx.policy.queues[queue].name) && l.projects.matches(project);
  }

  // A limit the job may be over, with what it would add (rusage[] included).
  [[gnu::noinline]] std::optional<std::string> refusal(const PassContext& ctx, const JobView& job, const LimitPolicy& l,
                                                       const Counted& used, const LimitKey& key, int need) const {
    return exceeds(ctx, l, used, demand(ctx, job, need), key);
  }

  // MAX_JOBS of the user's groups (the members together).
  [[gnu::noinline]] std::optional<std::string> over_group_limit(const PassContext& ctx, const UserInfo& u, int need) {
    for (const auto& g : u.groups) {
      auto it = ctx.policy.group_limits.find(g);
      if (it == ctx.policy.group_limits.end() || !it->second.max_jobs) continue;
      int used = c_->group_slots[g];
      if (used + need > *it->second.max_jobs)
        return std::string(reason::kUserGroupLimit) + " (group " + g + ": " + numbers(used, *it->second.max_jobs) + ")";
    }
    return std::nullopt;
  }

  // applies() for a user already counted or asked about: a Limit's consumer lists are
  // read once per queue, user and (with the caller's ids) project, not by name for each
  // of 100,000 jobs and 40,000 running ones.
  bool counts(size_t i, const UserInfo& u, int queue, const Who& who) {
    const Members& m = c_->members[i];
    if (!m.queue[static_cast<size_t>(queue)] || !u.in_limit[i]) return false;
    if (!m.projects->given) return true;
    const auto id = static_cast<size_t>(who.ids.second);
    if (who.ids.second >= 0 && id < m.project.size() && m.project[id] >= 0) return m.project[id];
    return project_counts(i, who);
  }
  [[gnu::noinline]] bool project_counts(size_t i, const Who& who) {
    Members& m = c_->members[i];
    const int id = who.ids.second;
    if (id < 0) return m.projects->matches(who.project);
    if (static_cast<size_t>(id) >= m.project.size()) m.project.resize(static_cast<size_t>(id) + 1, -1);
    signed char& in = m.project[static_cast<size_t>(id)];
    in = m.projects->matches(who.project);
    return in;
  }

  // --- Carrying the counts to the next pass (LimitCarry) ---

  bool carryable(const PassContext& ctx) const {
    return !count_resources_ && ctx.view.accel.user_ids && ctx.view.accel.project_ids;
  }

  // The same policy and hosts, and id tables that only grew (ids keep their names) and
  // that the module added no name to (every job came with ids).
  static bool still_applies(const PassContext& ctx, const LimitCarry& carry) {
    if (carry.policy != ctx.view.policy || carry.hosts != ctx.host_table().names) return false;
    auto grew = [](const NameIndex& mine, const std::shared_ptr<const NameIndex>& was,
                   const std::shared_ptr<const NameIndex>& now) {
      if (mine.size() != was->size()) return false;
      if (now == was) return true;
      if (now->size() < was->size()) return false;
      for (size_t id = 0; id < was->size(); ++id)
        if (now->name(static_cast<int>(id)) != was->name(static_cast<int>(id))) return false;
      return true;
    };
    return grew(carry.counts.user_ids, carry.user_table, ctx.view.accel.user_ids) &&
           grew(carry.counts.project_ids, carry.project_table, ctx.view.accel.project_ids);
  }

  // The caller's tables, grown since the last pass: names for the new ids (reasons).
  static void take_tables(const PassContext& ctx, LimitCarry& carry) {
    if (carry.user_table != ctx.view.accel.user_ids) {
      carry.counts.user_ids = *ctx.view.accel.user_ids;
      carry.user_table = ctx.view.accel.user_ids;
    }
    if (carry.project_table != ctx.view.accel.project_ids) {
      carry.counts.project_ids = *ctx.view.accel.project_ids;
      carry.project_table = ctx.view.accel.project_ids;
    }
  }

  // A counted job's user and project by id (known to the counts: their names are only
  // read for a user or project met the first time).
  Who who_by_id(int user, int project) const {
    return {c_->user_ids.name(user), c_->project_ids.name(project), {user, project}};
  }

  // The last pass's placements and reservations: what started comes back as a started
  // job, and reservations are made again.
  void take_off_added(const PassContext& ctx, LimitCarry& carry) {
    for (const Added& a : carry.added)
      count(ctx, who_by_id(a.user, a.project), a.queue, a.hosts, Usage{}, a.slots, a.runs, -1);
    carry.added.clear();
  }

  // A started job as counted, for the next pass to compare with.
  static void remember(std::vector<CountedJob>& jobs, std::vector<std::pair<int, int>>& hosts,
                       const RunningJobView& job, const Who& who, std::span<const std::pair<int, int>> slots) {
    const auto first = static_cast<std::uint32_t>(hosts.size());
    for (const auto& s : slots) hosts.push_back(s);
    jobs.push_back({job.key, job.queue, who.ids.first, who.ids.second, static_cast<int>(job.hosts.size()), first,
                    static_cast<std::uint32_t>(hosts.size())});
  }

  // who_of() with ids a record can keep: a job the caller gave none gets its name's id
  // in the module's tables, which counting it by name would give it too. (A name the
  // caller's tables lack makes the next pass count afresh: see still_applies().)
  template <typename Job>
  Who who_with_ids(const Job& job) {
    Who who = who_of(job);
    if (who.ids.first < 0) who.ids.first = c_->user_ids.insert(job.user).first;
    if (who.ids.second < 0) who.ids.second = c_->project_ids.insert(job.project).first;
    return who;
  }

  // Started jobs against the last pass's, walked together in key order: those gone are
  // taken off, those new are counted, and one that changed (requeued and started
  // elsewhere by brun before a pass saw it pending, switched queue) is both. Every
  // record is matched or taken off once and every job matched or counted once, so a
  // caller that lists jobs out of key order gets the same counts; the jobs out of place
  // are only taken off and counted again. mbatchd lists them in key order.
  void bring_up_to_date(const PassContext& ctx, LimitCarry& carry) {
    const auto& running = ctx.view.running;
    auto& jobs = carry.next_jobs;
    auto& hosts = carry.next_job_hosts;
    jobs.clear();
    hosts.clear();
    jobs.reserve(running.size());
    hosts.reserve(carry.job_hosts.size() + 64);
    const std::pair<int, int>* was_hosts = carry.job_hosts.data();
    auto take_off = [&](const CountedJob& was) {
      std::span<const std::pair<int, int>> on(was_hosts + was.first, was.end - was.first);
      count(ctx, who_by_id(was.user, was.project), was.queue, on, Usage{}, was.slots, true, -1);
    };
    const CountedJob* o = carry.jobs.data();
    const CountedJob* const o_end = o + carry.jobs.size();
    for (size_t i = 0; i < running.size(); ++i) {
      const RunningJobView& job = running[i];
      while (o != o_end && o->key < job.key) take_off(*o++);
      const auto slots = ctx.slots_of(i);
      const Who who = who_with_ids(job);
      bool same = false;
      if (o != o_end && o->key == job.key) {
        same = o->queue == job.queue && o->user == who.ids.first && o->project == who.ids.second &&
               o->slots == static_cast<int>(job.hosts.size()) &&
               std::equal(slots.begin(), slots.end(), was_hosts + o->first, was_hosts + o->end);
        if (!same) take_off(*o);
        ++o;
      }
      if (!same) count(ctx, who, job.queue, slots, Usage{}, static_cast<int>(job.hosts.size()));
      remember(jobs, hosts, job, who, slots);
    }
    while (o != o_end) take_off(*o++);
    std::swap(carry.jobs, carry.next_jobs);
    std::swap(carry.job_hosts, carry.next_job_hosts);
  }

  static LimitKey key_of(const LimitPolicy& l, size_t i, int user, int queue, int project, int host) {
    return {static_cast<int>(i), l.users.per_member ? user : -1, l.queues.per_member ? queue : -1,
            l.projects.per_member ? project : -1, host};
  }
  // Projects get ids only where a limit counts them one by one.
  int project_id(const LimitPolicy& l, const Who& who) {
    if (!l.projects.per_member) return -1;
    return who.ids.second >= 0 ? who.ids.second : c_->project_ids.insert(who.project).first;
  }
  int find_project(const LimitPolicy& l, const Who& who) const {
    if (!l.projects.per_member) return -1;
    int id = who.ids.second >= 0 ? who.ids.second : c_->project_ids.find(who.project);
    return id < 0 ? -2 : id;
  }

  static double per_slot_demand(const PassContext& ctx, const JobView& job, std::string_view res) {
    for (const auto& [name, amount] : ctx.demand(job.res_req.get()).per_slot)
      if (name == res) return amount;
    return 0;
  }

  static void add_resources(const PassContext& ctx, const JobView& job, int slots, Counted& u) {
    const auto& use = ctx.demand(job.res_req.get());
    for (const auto& [name, amount] : use.per_slot) u.resources[name] += amount * slots;
    for (const auto& [name, amount] : use.per_job) u.resources[name] += amount;
  }
  static Counted demand(const PassContext& ctx, const JobView& job, int slots) {
    Counted u{slots, 1, {}};
    add_resources(ctx, job, slots, u);
    return u;
  }

  std::optional<std::string> exceeds(const PassContext& ctx, const LimitPolicy& l, const Counted& used,
                                     const Counted& want, const LimitKey& key) const {
    auto text = [&](const std::string& what, double in_use, double limit) {
      std::string whose;
      for (const std::string& part : names(ctx, key))
        if (!part.empty()) whose += (whose.empty() ? " for " : "/") + part;
      return "Resource (" + what + ") limit defined " + l.scope() + " has been reached (limit " + l.name + whose +
             ": " + numbers(in_use, limit) + ")";
    };
    if (l.slots && used.slots + want.slots > *l.slots) return text("slot", used.slots, *l.slots);
    if (l.jobs && used.jobs + want.jobs > *l.jobs) return text("job", used.jobs, *l.jobs);
    for (const auto& [res, limit] : l.resources) {
      double need = lookup(want.resources, res);
      double have = lookup(used.resources, res);
      if (need > 0 && have + need > limit + 1e-9) return text(res, have, limit);
    }
    return std::nullopt;
  }

  // `hosts`: (host index, slots there). `sign` -1 takes off what +1 counted.
  void count(const PassContext& ctx, const Who& who, int queue, std::span<const std::pair<int, int>> hosts,
             const sched::Usage& use, int slots, bool runs = true, int sign = 1) {
    room_job_ = nullptr;
    UserInfo& u = this->user(ctx, who);
    const int uid = static_cast<int>(u.id);
    slots *= sign;
    u.slots += slots;
    u.queue_slots[static_cast<size_t>(queue)] += slots;
    c_->queue_slots[static_cast<size_t>(queue)] += slots;
    for (const auto& g : u.groups) c_->group_slots[g] += slots;
    for (auto [h, n] : hosts) {
      n *= sign;
      if (by_user_on_host_) add_on_host(c_->user_host_slots, h, u.id, n);
      if (by_group_on_host_)
        for (const auto& g : u.groups) c_->group_host_slots[g][h] += n;
      if (by_queue_on_host_) add_on_host(c_->host_queue_slots, h, queue, n);
    }
    static const Usage kNone;
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i) {
      const LimitPolicy& l = ctx.policy.limits[i];
      if (!counts(i, u, queue, who)) continue;
      const int pid = project_id(l, who);
      // A section counts the resources it limits (blimits shows no others).
      const Usage& lu = l.resources.empty() ? kNone : use;
      bool host_dim = l.hosts.given || l.slots_per_processor;
      if (!host_dim) {
        add(counted(i, key_of(l, i, uid, queue, pid, -1)), slots, lu, runs ? sign : 0);
        continue;
      }
      bool per_host = l.hosts.per_member || l.slots_per_processor;
      bool first = true;
      for (auto [h, n] : hosts) {
        const std::string& host = ctx.view.hosts[h].name;
        if (!l.hosts.matches(host)) continue;
        add(c_->usage[key_of(l, i, uid, queue, pid, per_host ? h : -1)], n * sign, lu,
            runs && (per_host || first) ? sign : 0);
        first = false;
      }
    }
  }

 public:
  // blimits: every combination with something counted, in a stable order.
  std::vector<LimitUsage> report(const PassContext& ctx) const {
    std::vector<LimitUsage> out;
    for (const auto& [key, c] : c_->usage) {
      bool any = c.slots > 0 || c.jobs > 0;
      for (const auto& [name, amount] : c.resources) any = any || amount > 0;
      if (!any) continue;
      LimitUsage u;
      u.limit = static_cast<size_t>(key.limit);
      auto [user, queue, project, host] = names(ctx, key);
      u.user = std::move(user);
      u.queue = std::move(queue);
      u.project = std::move(project);
      u.host = std::move(host);
      u.slots = c.slots;
      u.jobs = c.jobs;
      u.resources = c.resources;
      out.push_back(std::move(u));
    }
    std::sort(out.begin(), out.end(), [](const LimitUsage& a, const LimitUsage& b) {
      return std::tie(a.limit, a.user, a.queue, a.project, a.host) <
             std::tie(b.limit, b.user, b.queue, b.project, b.host);
    });
    return out;
  }

 private:
  // `jobs`: 1 counts the job, 0 does not, -1 takes it off.
  static void add(Counted& u, int slots, const sched::Usage& use, int jobs) {
    u.slots += slots;
    u.jobs += jobs;
    for (const auto& [name, amount] : use.per_slot) u.resources[name] += amount * slots;
    if (jobs)
      for (const auto& [name, amount] : use.per_job) u.resources[name] += amount * jobs;
  }

  // The names in a key, "" for a consumer counted as a whole.
  std::array<std::string, 4> names(const PassContext& ctx, const LimitKey& key) const {
    auto of = [](const NameIndex& table, int id) {
      return id >= 0 && static_cast<size_t>(id) < table.size() ? table.name(id) : std::string();
    };
    std::string queue = key.queue >= 0 ? ctx.policy.queues[static_cast<size_t>(key.queue)].name : "";
    std::string host = key.host >= 0 ? ctx.view.hosts[static_cast<size_t>(key.host)].name : "";
    return {of(c_->user_ids, key.user), queue, of(c_->project_ids, key.project), host};
  }

  LimitCounts own_;                                    // a pass without a carry counts here
  LimitCounts* c_ = &own_;                             // or in the carry's
  LimitCarry* carry_ = nullptr;                        // null: nothing kept for the next pass
  bool count_resources_ = false;                       // some section limits MEM, SWP, TMP or a RESOURCE
  bool given_users_ = false, given_projects_ = false;  // the view's jobs carry ids
  const JobView* room_job_ = nullptr;
  const UserInfo* room_user_ = nullptr;
  bool by_user_on_host_ = false, by_group_on_host_ = false, by_queue_on_host_ = false;
  std::vector<size_t> whole_limits_;  // sections without hosts: they decide admission

  // The lookup inlined where every pending job asks; a first count and a hashed key
  // take count_of().
  Counted& counted(size_t limit, const LimitKey& key) {
    const ById& d = c_->by_one_id[limit];
    const int id = d.id(key);
    if (id >= 0 && key.host < 0 && static_cast<size_t>(id) < d.counts.size())
      if (Counted* c = d.counts[static_cast<size_t>(id)]) return *c;
    return count_of(limit, key);
  }
  [[gnu::noinline]] Counted& count_of(size_t limit, const LimitKey& key) {
    ById& d = c_->by_one_id[limit];
    const int id = d.id(key);
    if (id < 0 || key.host >= 0) return c_->usage[key];
    if (static_cast<size_t>(id) >= d.counts.size()) d.counts.resize(static_cast<size_t>(id) + 1, nullptr);
    Counted*& c = d.counts[static_cast<size_t>(id)];
    if (!c) c = &c_->usage[key];
    return *c;
  }
};

}  // namespace

std::unique_ptr<Module> make_schmod_limit() { return std::make_unique<LimitModule>(); }
// In lsb.modules' order, when lsb.modules names it.
constinit const ModuleDecl kSchmodLimit{"schmod_limit", Phase::kConfigured, {}, make_schmod_limit};

std::vector<LimitUsage> limit_usage(const ClusterView& view, std::int64_t now) {
  std::vector<std::unique_ptr<Module>> modules;
  modules.push_back(std::make_unique<LimitModule>());
  PassContext ctx(view, now, modules);
  modules.front()->prepare(ctx);
  return static_cast<const LimitModule&>(*modules.front()).report(ctx);
}

}  // namespace lsf::sched
