// schmod_throttle: Maui-style throttling in lsb.resources Limit sections, for their
// consumers (USERS/PER_USER, QUEUES/PER_QUEUE, PROJECTS/PER_PROJECT):
//   IDLE_JOBS = n      at most n pending jobs are eligible (idle); the rest are blocked
//                      until earlier ones start (Maui's MAXIJOB, a hard limit);
//   TOTAL_JOBS = n     running plus idle jobs;
//   PROC_SECONDS = s[/h]  outstanding processor-seconds: the remaining run limit x slots
//                      of running jobs plus the candidate's run limit x slots (MAXPS);
//   JOBS = s/h, SLOTS = s/h  soft values below the hard ones schmod_limit enforces.
// Jobs are classified in priority order, so the first n of a consumer are idle. A job
// over a soft value waits for the pass's second round (the engine's deferral), and
// then starts only if no job within every soft limit is still eligible and waiting:
// resources that would otherwise stay idle. Hard values are never passed. Limits on
// hosts (HOSTS/PER_HOST) are not throttles.
#include "libsched/modules/schmod_throttle.h"

#include <map>
#include <set>
#include <string>

#include "libsched/modules/modules.h"

namespace lsf::sched {
namespace {

class ThrottleModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_throttle"; }
  bool blocks() const override { return true; }
  bool limits_room() const override { return false; }

  void prepare(PassContext& ctx) override {
    for (size_t i = 0; i < ctx.policy.limits.size(); ++i)
      if (ctx.policy.limits[i].throttles() && !ctx.policy.limits[i].hosts.given) limits_.push_back(i);
    if (limits_.empty()) return;
    for (const auto& job : ctx.view.running) {
      // What a running job still has to run: its run limit less its run time so far.
      std::int64_t left =
          job.run_limit_s > 0 ? std::max<std::int64_t>(0, job.start_time + job.run_limit_s - ctx.now) : 0;
      for (size_t i : limits_) {
        const LimitPolicy& l = ctx.policy.limits[i];
        if (!applies(ctx, l, job.user, job.queue, job.project)) continue;
        Use& u = use_of(ctx, i, job.user, job.queue, job.project);
        ++u.running;
        u.slots += static_cast<std::int64_t>(job.hosts.size());
        u.proc_seconds += left * static_cast<std::int64_t>(job.hosts.size());
      }
    }
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    if (limits_.empty()) return std::nullopt;
    const std::int64_t asked = job.run_limit_s * job.min_slots;
    const auto counted = uses(ctx, job);
    for (const auto& [limit, use] : counted) {
      const LimitPolicy& l = *limit;
      const Use& u = *use;
      auto whose = [&] { return consumer(ctx, l, job); };  // for a refusal only
      if (l.idle_jobs && u.idle >= *l.idle_jobs) return blocked("idle jobs", whose(), "hard", *l.idle_jobs, u.idle, l);
      if (l.total_jobs && u.running + u.idle >= *l.total_jobs)
        return blocked("running and idle jobs", whose(), "hard", *l.total_jobs, u.running + u.idle, l);
      if (l.proc_seconds_hard) {
        if (job.run_limit_s <= 0)
          return "The job has no run limit, which the processor-seconds limit of " + whose() + " needs (Limit " +
                 name_of(l) + ")";
        if (u.proc_seconds + asked > *l.proc_seconds_hard)
          return blocked("processor-seconds", whose(), "hard", *l.proc_seconds_hard, u.proc_seconds, l, asked);
      }
      // Soft values hold, except in the second round when no job within them waits.
      if (!(second_round_ && hard_now_)) {
        std::optional<std::string> soft;
        if (l.proc_seconds_soft && u.proc_seconds + asked > *l.proc_seconds_soft)
          soft = blocked("processor-seconds", whose(), "soft", *l.proc_seconds_soft, u.proc_seconds, l, asked);
        else if (l.jobs_soft && u.running + 1 > *l.jobs_soft)
          soft = blocked("running jobs", whose(), "soft", *l.jobs_soft, u.running, l);
        else if (l.slots_soft && u.slots + job.min_slots > *l.slots_soft)
          soft = blocked("job slots", whose(), "soft", *l.slots_soft, u.slots, l, job.min_slots);
        if (soft) {
          over_soft_.insert(job.key);
          return soft;
        }
      }
    }
    // Eligible: it counts as idle under every limit it falls under.
    for (const auto& [limit, use] : counted) ++use->idle;
    if (!second_round_) eligible_.insert(job.key);
    return std::nullopt;
  }

  bool active(const PassContext&) const override { return !limits_.empty(); }

  bool defers(const PassContext&, const JobView& job) override { return over_soft_.count(job.key) > 0; }

  // Soft values give way only when every job within them has started.
  void second_round(PassContext&) override {
    second_round_ = true;
    hard_now_ = eligible_.empty();
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    eligible_.erase(job.key);
    for (const auto& [limit, use] : uses(ctx, job)) {
      Use& u = *use;
      --u.idle;  // from idle to running
      ++u.running;
      u.slots += p.slots();
      u.proc_seconds += job.run_limit_s * p.slots();
    }
  }

  // blimits: each consumer's counts as the pass leaves them.
  void finish(PassContext& ctx) override {
    for (const auto& [k, u] : use_) {
      ThrottleUse r = u.report;
      r.running = u.running;
      r.idle = u.idle;
      r.slots = u.slots;
      r.proc_seconds = u.proc_seconds;
      ctx.result.throttles.push_back(std::move(r));
    }
  }

 private:
  struct Use {
    int running = 0, idle = 0;
    std::int64_t slots = 0, proc_seconds = 0;
    ThrottleUse report;  // whose counts these are
  };

  Use& use_of(const PassContext& ctx, size_t limit, const std::string& user, int queue, const std::string& project) {
    auto [it, fresh] = use_.try_emplace(key(ctx, limit, user, queue, project));
    if (fresh) {
      const LimitPolicy& l = ctx.policy.limits[limit];
      ThrottleUse& r = it->second.report;
      r.limit = limit;
      if (l.users.per_member) r.user = user;
      if (l.queues.per_member) r.queue = ctx.policy.queues[static_cast<size_t>(queue)].name;
      if (l.projects.per_member) r.project = project;
    }
    return it->second;
  }

  // The counts of every throttling limit the job falls under, looked up once per call.
  std::vector<std::pair<const LimitPolicy*, Use*>> uses(const PassContext& ctx, const JobView& job) {
    std::vector<std::pair<const LimitPolicy*, Use*>> out;
    for (size_t i : limits_) {
      const LimitPolicy& l = ctx.policy.limits[i];
      if (applies(ctx, l, job.user, job.queue, job.project))
        out.emplace_back(&l, &use_of(ctx, i, job.user, job.queue, job.project));
    }
    return out;
  }

  static bool applies(const PassContext& ctx, const LimitPolicy& l, const std::string& user, int queue,
                      const std::string& project) {
    return l.users.matches(user) && l.queues.matches(ctx.policy.queues[static_cast<size_t>(queue)].name) &&
           l.projects.matches(project);
  }

  // The consumer a job counts under: the limit, and each PER_ member it names.
  static std::string key(const PassContext& ctx, size_t limit, const std::string& user, int queue,
                         const std::string& project) {
    const LimitPolicy& l = ctx.policy.limits[limit];
    std::string k = std::to_string(limit);
    if (l.users.per_member) k += "\nu" + user;
    if (l.queues.per_member) k += "\nq" + std::to_string(queue);
    if (l.projects.per_member) k += "\np" + project;
    return k;
  }

  // "user <alice>", "project <p1>", "queue <normal>", or the limit's consumers together.
  static std::string consumer(const PassContext& ctx, const LimitPolicy& l, const JobView& job) {
    if (l.users.per_member) return "user <" + job.user + ">";
    if (l.projects.per_member) return "project <" + job.project + ">";
    if (l.queues.per_member) return "queue <" + ctx.policy.queues[static_cast<size_t>(job.queue)].name + ">";
    return "its consumers";
  }

  static std::string name_of(const LimitPolicy& l) { return "<" + (l.name.empty() ? l.scope() : l.name) + ">"; }

  // "The idle jobs limit of user <alice> is reached: hard limit 8, 8 in use (Limit <t>)".
  static std::string blocked(const char* what, const std::string& whose, const char* kind, std::int64_t limit,
                             std::int64_t used, const LimitPolicy& l, std::int64_t asked = 0) {
    std::string out = std::string("The ") + what + " limit of " + whose + " is reached: " + kind + " limit " +
                      std::to_string(limit) + ", " + std::to_string(used) + " in use";
    if (asked > 0) out += " + " + std::to_string(asked) + " asked";
    return out + " (Limit " + name_of(l) + ")";
  }

  std::vector<size_t> limits_;  // the limits with throttles, by index
  std::map<std::string, Use> use_;
  std::set<JobKey> over_soft_;  // refused by a soft value in the first round
  std::set<JobKey> eligible_;   // admitted in the first round and not started
  bool second_round_ = false, hard_now_ = false;
};

}  // namespace

std::unique_ptr<Module> make_schmod_throttle() { return std::make_unique<ThrottleModule>(); }
// After every configured module: only jobs every other limit admits count as idle.
constinit const ModuleDecl kSchmodThrottle{"schmod_throttle", Phase::kClose, {}, make_schmod_throttle};

}  // namespace lsf::sched
