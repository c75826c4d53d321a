// schmod_default: the conditions every LSF job meets before it can run, and which host
// is best for it. A job waits for its begin time, dependencies and its queue's windows;
// a host must be usable (status, the queue's HOSTS, -m, select[], load under the host's
// and the queue's scheduling thresholds, dispatch window open), have a free slot, and
// not have just received a job (JOB_ACCEPT_INTERVAL). Eligible hosts are ranked by
// preference level (the job's -m, else its queue's HOSTS), then order[] (default r15s:pg).
//
// It also decides for started jobs: run windows closing suspend their queue's jobs and
// opening resumes them; a load index past a stop threshold suspends the host's
// lowest-priority job, one host action per SBD_SLEEP_TIME.
#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <span>

#include "libsched/modules/modules.h"
#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

const std::vector<config::OrderKey> kDefaultOrder = {{"r15s", false}, {"pg", false}};

std::string index_description(const std::string& index) {
  static const std::map<std::string, std::string, std::less<>> kNames = {{"r15s", "15-second CPU run queue length"},
                                                                         {"r1m", "1-minute CPU run queue length"},
                                                                         {"r15m", "15-minute CPU run queue length"},
                                                                         {"ut", "CPU utilization"},
                                                                         {"pg", "Paging rate"},
                                                                         {"io", "Disk IO rate"},
                                                                         {"ls", "Number of login sessions"},
                                                                         {"it", "Idle time"},
                                                                         {"tmp", "Available temporary space"},
                                                                         {"swp", "Available swap space"},
                                                                         {"mem", "Available memory"}};
  auto it = kNames.find(index);
  return (it == kNames.end() ? index : it->second) + " (" + index + ")";
}

class DefaultModule final : public Module {
 public:
  std::string_view name() const override { return "schmod_default"; }
  bool sees_user(const PassContext&, int /*queue*/) const override { return false; }

  void prepare(PassContext& ctx) override {
    array_running_ = ctx.view.array_running;
    for (size_t i = 0; i < ctx.view.running.size(); ++i) {
      const RunningJobView& job = ctx.view.running[i];
      const bool preempted = job.state == RunState::kSsusp && job.cause == SuspendCause::kPreempted;
      for (auto [h, n] : ctx.slots_of(i)) {
        HostState& hs = ctx.hosts[h];
        hs.used += n;
        if (preempted) hs.preempted += n;
        ++hs.jobs;
        if (job.exclusive) hs.exclusive = true;
      }
    }
  }

  std::optional<std::string> admit(PassContext& ctx, const JobView& job) override {
    if (job.held) return reason::kHeld;
    if (job.begin_time > ctx.now) return reason::kBeginTime;
    if (job.retry_at > ctx.now) return reason::kPreExecFailed;
    if (job.dependency == DependencyState::kWaiting) return reason::kDependency;
    if (job.dependency == DependencyState::kNever) return reason::kDependencyNever;
    const QueuePolicy& q = ctx.queue_of(job);
    if (!ctx.view.queues[job.queue].active) return reason::kQueueInactive;
    if (window_closed(ctx, job.queue)) return reason::kQueueWindow;
    if (job.exclusive && !q.exclusive) return reason::kNotExclusiveQueue;
    if (job.array_limit > 0) {
      int running = array_running_[job.key.id];
      if (running >= job.array_limit)
        return std::string(reason::kArrayLimit) + " (" + std::to_string(running) + " of " +
               std::to_string(job.array_limit) + " running)";
    }
    return std::nullopt;
  }

  // Hosts are taken in rank order (-m preference, then order[]), so the candidates come
  // out ranked. What does not depend on the job (status, windows, thresholds, queue
  // membership, select[] per expression, ranking per order[] and -m) is worked out once
  // per pass and shared by every requirement class; which hosts refuse, once per
  // queue, select[], -m and exclusion, whatever the class's order[], rusage[] and span.
  void hosts(PassContext& ctx, const JobView& job, Candidates& cands) override {
    const config::SelectExpr* select = job.res_req && !job.res_req->select.empty() ? &job.res_req->select : nullptr;
    const void* excluded = job.excluded_hosts.empty() ? nullptr : &job;
    auto [it, fresh] = eligible_.try_emplace(EligibleKey{job.queue, select, job.asked_hosts.get(), excluded});
    Eligible& e = it->second;
    if (fresh) e = eligible(ctx, job, select);
    for (const auto& [why, list] : e.excluded) {
      auto& into = cands.excluded[why];
      into.insert(into.end(), list.begin(), list.end());
    }
    if (e.refused.empty()) {  // every host will do (a simulated cluster, most of the time)
      cands.hosts = ranked(ctx, job);
      return;
    }
    std::vector<int> kept;
    kept.reserve(ctx.view.hosts.size());
    for (int h : ranked(ctx, job))
      if (!e.refused[h]) kept.push_back(h);
    cands.hosts = std::move(kept);
  }

  int room(const PassContext& ctx, const JobView& job, int h, const char** why) override {
    const char* no = refusal(ctx, job, h);
    if (!no && !reserved_in_pass_.empty() && reserved_in_pass_[h]) no = load_now(ctx, job, h);
    if (no) {
      *why = no;
      return 0;
    }
    return ctx.hosts[h].free();
  }

  void commit(PassContext& ctx, const JobView& job, const Placement& p) override {
    // What the job holds per slot (rusage[]) lowers the host's values from here on:
    // the host's facts worked out earlier in the pass (thresholds, select[]) may no
    // longer hold, so later jobs check them again there (load_now).
    if (!ctx.demand(job.res_req.get()).per_slot.empty()) {
      reserved_in_pass_.resize(ctx.view.hosts.size());
      for (auto [h, n] : p.hosts) reserved_in_pass_[static_cast<size_t>(h)] = 1;
    }
    for (auto [h, n] : p.hosts) {
      auto& hs = ctx.hosts[h];
      hs.used += n;
      ++hs.jobs;
      hs.accepted = true;
      if (job.exclusive) hs.exclusive = true;
    }
    if (job.array_limit > 0) ++array_running_[job.key.id];
  }

  void finish(PassContext& ctx) override {
    run_windows(ctx);
    load_control(ctx);
  }

 private:
  // Why a host can take no slot of the job now, or nullptr.
  static const char* refusal(const PassContext& ctx, const JobView& job, int h) {
    const HostState& hs = ctx.hosts[h];
    if (hs.exclusive) return reason::kHostExclusive;
    if (job.exclusive && hs.jobs > 0) return reason::kExclusive;
    int interval = ctx.queue_of(job).job_accept_interval.value_or(ctx.policy.job_accept_interval);
    if (interval > 0) {
      std::int64_t last = ctx.view.hosts[h].last_dispatch;
      if (hs.accepted || (last > 0 && ctx.now < last + std::int64_t{interval} * ctx.policy.mbd_sleep_time))
        return reason::kHostJustStarted;
    }
    if (hs.free() <= 0) return reason::kHostFull;
    return nullptr;
  }

  // Why a host on which this pass has reserved rusage[] no longer takes the job: its
  // loadSched thresholds or the job's select[], read with what is reserved now. The
  // per-pass facts were worked out at their first use, maybe before the reservation.
  const char* load_now(const PassContext& ctx, const JobView& job, int h) {
    if (over_sched(ctx, h, ctx.host_policy(h).thresholds) || over_sched(ctx, h, ctx.queue_of(job).thresholds))
      return reason::kHostLoad;
    if (job.res_req && !job.res_req->select.empty() && !job.res_req->select.matches(reader(ctx).at(h)))
      return reason::kHostSelect;
    return nullptr;
  }

  struct EligibleKey {
    int queue;
    const void* select;
    const void* asked;
    const void* excluded;  // the job, when an exclusive requeue keeps it off hosts
    auto operator<=>(const EligibleKey&) const = default;
  };
  struct Eligible {
    std::vector<char> refused;  // per host; empty: none refuses
    std::vector<std::pair<std::string, std::vector<int>>> excluded;
  };

  Eligible eligible(PassContext& ctx, const JobView& job, const config::SelectExpr* select) {
    const std::vector<const char*>& row = queue_row(ctx, job.queue);
    std::vector<signed char>* matches = nullptr;
    if (select) {
      matches = &select_[select];
      if (matches->empty()) matches->assign(ctx.view.hosts.size(), -1);
    }
    const bool own_hosts = job.asked_hosts || !job.excluded_hosts.empty();
    if (select && !own_hosts) return with_select(ctx, job, *select, *matches);
    Eligible e;
    if (!own_hosts && !select && std::none_of(row.begin(), row.end(), [](const char* no) { return no != nullptr; }))
      return e;
    // Refusals in host order (bjobs -l lists hosts that way). Reasons are constants:
    // grouped by pointer here, named once at the end.
    e.refused.assign(ctx.view.hosts.size(), 0);
    std::vector<std::pair<const char*, std::vector<int>>> by_reason;
    for (size_t i = 0; i < ctx.view.hosts.size(); ++i) {
      int h = static_cast<int>(i);
      // The first condition that fails names the reason, in LSF's order: status and
      // the queue's HOSTS, then the job's -m and exclusions, then window, load and
      // select[].
      const char* no = row[h];
      if (own_hosts && (!no || !early(ctx, h, no))) {
        const std::string& name = ctx.view.hosts[h].name;
        if (job.asked_hosts && !job.asked_hosts->contains(name))
          no = reason::kHostNotAsked;
        else if (!job.excluded_hosts.empty() &&
                 std::find(job.excluded_hosts.begin(), job.excluded_hosts.end(), name) != job.excluded_hosts.end())
          no = reason::kHostExcluded;
      }
      if (!no && matches && !select_matches(ctx, *select, *matches, h)) no = reason::kHostSelect;
      if (no) {
        e.refused[h] = 1;
        auto it = std::find_if(by_reason.begin(), by_reason.end(), [no](const auto& r) { return r.first == no; });
        if (it == by_reason.end()) it = by_reason.insert(it, {no, {}});
        it->second.push_back(h);
      }
    }
    for (auto& [why, list] : by_reason) e.excluded.emplace_back(why, std::move(list));
    return e;
  }

  // The queue's refusals, then select[] on the hosts the queue takes: a queue's jobs
  // mostly differ in select[] alone, and what the queue refuses (often most of the
  // cluster, for a queue with HOSTS) is listed once rather than host by host again.
  Eligible with_select(PassContext& ctx, const JobView& job, const config::SelectExpr& select,
                       std::vector<signed char>& matches) {
    auto [it, fresh] = eligible_.try_emplace(EligibleKey{job.queue, nullptr, nullptr, nullptr});
    if (fresh) it->second = eligible(ctx, job, nullptr);
    Eligible e = it->second;
    std::vector<int> failed;
    for (size_t i = 0; i < ctx.view.hosts.size(); ++i) {
      const int h = static_cast<int>(i);
      if ((e.refused.empty() || !e.refused[i]) && !select_matches(ctx, select, matches, h)) failed.push_back(h);
    }
    if (failed.empty()) return e;
    if (e.refused.empty()) e.refused.assign(ctx.view.hosts.size(), 0);
    for (int h : failed) e.refused[static_cast<size_t>(h)] = 1;
    e.excluded.emplace_back(reason::kHostSelect, std::move(failed));
    return e;
  }

  // Per host, the first reason it refuses every job of the queue (status, HOSTS,
  // dispatch window, load thresholds), or nullptr; once per queue and pass. What does
  // not depend on the queue is worked out once for all of them (host_row).
  const std::vector<const char*>& queue_row(PassContext& ctx, int queue) {
    auto [it, fresh] = queue_rows_.try_emplace(queue);
    if (!fresh) return it->second;
    const QueuePolicy& q = ctx.policy.queues[queue];
    const std::vector<char>& in_queue = queue_hosts(ctx, queue);
    const std::vector<signed char>* queue_busy = queue_busy_row(ctx, queue);
    const std::vector<const char*>& host_no = host_row(ctx);
    auto& row = it->second;
    row.resize(ctx.view.hosts.size());
    for (size_t i = 0; i < row.size(); ++i) {
      const char* no = status_[i];
      if (!no && (borrowed_[i] ? !q.takes_borrowed(ctx.view.hosts[i].name, ctx.view.hosts[i].cluster)
                               : !q.hosts.empty() && !in_queue[i]))
        no = reason::kHostNotInQueue;
      if (!no) no = host_no[i];
      if (!no && queue_busy && (*queue_busy)[i]) no = reason::kHostLoad;
      row[i] = no;
    }
    return row;
  }
  // Per host, whether its dispatch window or its own loadSched thresholds keep every
  // queue's jobs off it; with each host's status and whether it is borrowed from
  // another cluster, once per pass.
  const std::vector<const char*>& host_row(const PassContext& ctx) {
    const size_t n = ctx.view.hosts.size();
    if (host_row_.size() == n) return host_row_;
    if (n > 0) status_refusal(ctx, 0);  // works out every host's
    host_row_.resize(n);
    borrowed_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const int h = static_cast<int>(i);
      const HostPolicy& hp = ctx.host_policy(h);
      host_row_[i] = !hp.dispatch_window.is_open(ctx.view.week) ? reason::kHostWindow
                     : over_sched(ctx, h, hp.thresholds)        ? reason::kHostLoad
                                                                : nullptr;
      borrowed_[i] = !ctx.view.hosts[i].cluster.empty();
    }
    return host_row_;
  }
  // Whether a queue row's reason comes before the job's -m and exclusions.
  bool early(const PassContext& ctx, int h, const char* no) {
    return no == reason::kHostNotInQueue || no == status_refusal(ctx, h);
  }

  const std::vector<char>& queue_hosts(const PassContext& ctx, int queue) {
    auto& row = in_queue_[queue];
    const QueuePolicy& q = ctx.policy.queues[queue];
    if (row.empty() && !q.hosts.empty()) {
      row.assign(ctx.view.hosts.size(), 0);
      for (const auto& name : q.hosts)
        if (int h = ctx.host_index(name); h >= 0) row[h] = 1;
    }
    return row;
  }

  // The daemon's view of the host: unreach, unavail and closed_Adm keep jobs off it.
  const char* status_refusal(const PassContext& ctx, int h) {
    if (status_.empty()) {
      status_.reserve(ctx.view.hosts.size());
      for (const auto& host : ctx.view.hosts) {
        // As string_views the lengths are compared first: "ok" costs no memcmp.
        const std::string_view status = host.status;
        const char* no = nullptr;
        if (status == "unreach")
          no = reason::kHostUnreach;
        else if (status == "unavail")
          no = reason::kHostUnavail;
        else if (status == "closed_Adm")
          no = reason::kHostClosedAdm;
        status_.push_back(no);
      }
    }
    return status_[h];
  }

  bool select_matches(const PassContext& ctx, const config::SelectExpr& select, std::vector<signed char>& memo, int h) {
    if (memo[h] < 0) memo[h] = select.matches(reader(ctx).at(h));
    return memo[h];
  }
  SelectReader& reader(const PassContext& ctx) {
    if (!reader_) reader_.emplace(ctx);
    return *reader_;
  }

  // Every host, best first for this job's preference levels (its -m's, else its
  // queue's HOSTS) and order[]; one sort per distinct (order[], levels) in a pass.
  const std::vector<int>& ranked(const PassContext& ctx, const JobView& job) {
    const void* order_key = job.res_req && !job.res_req->order.empty() ? job.res_req.get() : nullptr;
    const QueuePolicy& queue = ctx.queue_of(job);
    const void* levels = nullptr;
    if (job.asked_hosts && job.asked_hosts->any_preference())
      levels = job.asked_hosts.get();
    else if (queue.has_preferences)
      levels = &queue;
    auto [it, fresh] = ranked_.try_emplace(RankKey{order_key, job.asked_hosts.get(), levels});
    if (fresh) {
      it->second.resize(ctx.view.hosts.size());
      for (size_t h = 0; h < ctx.view.hosts.size(); ++h) it->second[h] = static_cast<int>(h);
      rank(ctx, job, levels == job.asked_hosts.get() ? job.asked_hosts.get() : nullptr,
           levels == &queue ? &queue : nullptr, it->second);
    }
    return it->second;
  }

  // A queue's loadSched thresholds per host, once per pass; null when the queue has
  // none. Queues often repeat one another's thresholds: one row per distinct set.
  const std::vector<signed char>* queue_busy_row(const PassContext& ctx, int queue) {
    const config::Thresholds& t = ctx.policy.queues[queue].thresholds;
    if (t.empty()) return nullptr;
    for (const auto& [other, row] : queue_busy_)
      if (*other == t) return &row;
    auto& row = queue_busy_.emplace_back(&t, std::vector<signed char>(ctx.view.hosts.size())).second;
    for (size_t h = 0; h < row.size(); ++h) row[h] = over_sched(ctx, static_cast<int>(h), t);
    return &row;
  }
  bool window_closed(const PassContext& ctx, int queue) {
    if (closed_.empty()) {
      for (const auto& q : ctx.policy.queues)
        closed_.push_back(!q.run_window.is_open(ctx.view.week) || !q.dispatch_window.is_open(ctx.view.week));
    }
    return closed_[queue];
  }

  // Thresholds as read for every host: each index's column and direction found once
  // per threshold set and pass, not per host (loadSched for every host a queue may use,
  // loadStop for every host running jobs).
  struct IndexLimit {
    const std::string* index;
    const std::vector<double>* column;
    double limit;
    bool larger_better;
  };
  struct CompiledThresholds {
    std::vector<IndexLimit> sched, stop;
  };
  const CompiledThresholds& compiled(const PassContext& ctx, const config::Thresholds& t) {
    // Host after host asks about the same thresholds: the last set is kept at hand
    // rather than found in the map each time.
    if (&t != last_thresholds_) {
      auto [it, fresh] = compiled_.try_emplace(&t);
      if (fresh)
        for (const auto& [index, th] : t) {
          IndexLimit l{&index, &ctx.column(index), 0, config::larger_is_better(index)};
          if (th.sched) {
            l.limit = *th.sched;
            it->second.sched.push_back(l);
          }
          if (th.stop) {
            l.limit = *th.stop;
            it->second.stop.push_back(l);
          }
        }
      last_thresholds_ = &t;
      last_compiled_ = &it->second;
    }
    return *last_compiled_;
  }
  // A host's value of an index: as reported, less what is reserved there.
  static double value(const PassContext& ctx, int h, const std::string& index, const std::vector<double>& column) {
    return ctx.hosts[h].reserved.empty() ? column[h] : ctx.numeric(h, index);
  }
  static const IndexLimit* first_over(const PassContext& ctx, int h, const std::vector<IndexLimit>& limits,
                                      bool skip_pg) {
    for (const IndexLimit& l : limits) {
      if (skip_pg && *l.index == "pg") continue;
      double v = value(ctx, h, *l.index, *l.column);
      if (!std::isnan(v) && (l.larger_better ? v < l.limit : v > l.limit)) return &l;
    }
    return nullptr;
  }
  bool over_sched(const PassContext& ctx, int h, const config::Thresholds& t) {
    return !t.empty() && first_over(ctx, h, compiled(ctx, t).sched, false);
  }
  // The first stop threshold a host's load passes, or empty.
  std::string over_stop(const PassContext& ctx, int h, const config::Thresholds& t, bool skip_pg) {
    const IndexLimit* l = t.empty() ? nullptr : first_over(ctx, h, compiled(ctx, t).stop, skip_pg);
    return l ? *l->index : std::string();
  }

  // `asked` or `queue`: whose preference levels come first (neither: none).
  static void rank(const PassContext& ctx, const JobView& job, const AskedHosts* asked, const QueuePolicy* queue,
                   std::vector<int>& hosts) {
    const auto& keys = job.res_req && !job.res_req->order.empty() ? job.res_req->order : kDefaultOrder;
    // Sort keys read once per host: -m preference, then each order[] index (NaN:
    // undefined, sorts last), in one flat array.
    const size_t k = keys.size();
    std::vector<const std::vector<double>*> columns;
    std::vector<char> larger_better;
    for (const auto& key : keys) {
      columns.push_back(&ctx.column(key.name));
      larger_better.push_back(config::larger_is_better(key.name));
    }
    auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    // Hosts that all look the same (a simulated cluster, an idle one) keep their order:
    // the stable sort would leave it as it is, after n log n comparisons. Without -m
    // preferences or reserved amounts that shows in the columns themselves.
    if (!asked && !queue && !hosts.empty() &&
        std::all_of(hosts.begin(), hosts.end(), [&](int h) { return ctx.hosts[h].reserved.empty(); })) {
      bool uniform = true;
      for (const auto* column : columns) {
        const double first = (*column)[hosts[0]];
        uniform = uniform && std::all_of(hosts.begin(), hosts.end(), [&](int h) { return same((*column)[h], first); });
      }
      if (uniform) return;
    }
    std::vector<int> preference(ctx.view.hosts.size(), 0);
    std::vector<double> values(ctx.view.hosts.size() * k);
    for (int h : hosts) {
      if (asked) {
        auto it = asked->preference.find(ctx.view.hosts[h].name);
        if (it != asked->preference.end()) preference[h] = it->second;
      } else if (queue) {
        preference[h] = queue->preference_of(ctx.view.hosts[h].name, ctx.view.hosts[h].cluster);
      }
      bool reserved = !ctx.hosts[h].reserved.empty();
      for (size_t i = 0; i < k; ++i) values[h * k + i] = reserved ? ctx.numeric(h, keys[i].name) : (*columns[i])[h];
    }
    bool uniform = true;
    for (size_t i = 1; uniform && i < hosts.size(); ++i) {
      int a = hosts[0], b = hosts[i];
      uniform = preference[a] == preference[b];
      for (size_t j = 0; uniform && j < k; ++j) uniform = same(values[a * k + j], values[b * k + j]);
    }
    if (uniform) return;
    if (sort_packed(keys, larger_better, preference, values, hosts)) return;
    std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) {
      if (preference[a] != preference[b]) return preference[a] > preference[b];
      for (size_t i = 0; i < k; ++i) {
        double va = values[a * k + i], vb = values[b * k + i];
        bool na = std::isnan(va), nb = std::isnan(vb);
        if (na && nb) continue;
        if (na != nb) return nb;
        if (va == vb) continue;
        bool a_better = larger_better[i] ? va > vb : va < vb;
        return keys[i].reverse ? !a_better : a_better;
      }
      return false;
    });
  }

  // The same order as rank()'s comparison, with each host's rank packed into one
  // integer: its level, then per order[] index the place of its value among the
  // distinct values (undefined after all of them), then its place in the list, which
  // keeps hosts that compare equal in the order they came. Sorting 5,000 integers costs
  // a fraction of comparing through each host's values. False, leaving `hosts` as it
  // was, when the parts do not fit 64 bits (a very large cluster, many order[] keys).
  static bool sort_packed(const std::vector<config::OrderKey>& keys, const std::vector<char>& larger_better,
                          const std::vector<int>& preference, const std::vector<double>& values,
                          std::vector<int>& hosts) {
    const size_t n = hosts.size(), k = keys.size();
    int low = 0, high = 0;
    for (int h : hosts) {
      low = std::min(low, preference[static_cast<size_t>(h)]);
      high = std::max(high, preference[static_cast<size_t>(h)]);
    }
    const auto level_bits = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(high - low)));
    const auto value_bits = static_cast<unsigned>(std::bit_width(n));  // ids 0..n, n: undefined
    const auto place_bits = static_cast<unsigned>(std::bit_width(n));
    if (level_bits + k * value_bits + place_bits > 64) return false;
    std::vector<std::uint64_t> packed(n);
    for (size_t p = 0; p < n; ++p)
      packed[p] = static_cast<std::uint64_t>(high - preference[static_cast<size_t>(hosts[p])]);
    std::vector<double> turned(n), distinct;
    for (size_t i = 0; i < k; ++i) {
      // Smaller first: a larger-is-better index (mem) negated, and negated again for
      // order[-index].
      const bool negate = (larger_better[i] != 0) != keys[i].reverse;
      distinct.clear();
      for (size_t p = 0; p < n; ++p) {
        const double v = values[static_cast<size_t>(hosts[p]) * k + i];
        turned[p] = negate ? -v : v;
        if (!std::isnan(v)) distinct.push_back(turned[p]);
      }
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      for (size_t p = 0; p < n; ++p) {
        const size_t id =
            std::isnan(turned[p])
                ? distinct.size()
                : static_cast<size_t>(std::lower_bound(distinct.begin(), distinct.end(), turned[p]) - distinct.begin());
        packed[p] = packed[p] << value_bits | id;
      }
    }
    for (size_t p = 0; p < n; ++p) packed[p] = packed[p] << place_bits | p;
    std::sort(packed.begin(), packed.end());
    const std::uint64_t place_mask = (std::uint64_t{1} << place_bits) - 1;
    std::vector<int> ranked(n);
    for (size_t p = 0; p < n; ++p) ranked[p] = hosts[static_cast<size_t>(packed[p] & place_mask)];
    hosts = std::move(ranked);
    return true;
  }

  static void run_windows(PassContext& ctx) {
    std::vector<char> queue_open;  // per queue, once rather than per running job
    for (const auto& q : ctx.policy.queues) queue_open.push_back(q.run_window.is_open(ctx.view.week));
    for (const auto& job : ctx.view.running) {
      const bool open = queue_open[static_cast<size_t>(job.queue)];
      if (!open && job.state == RunState::kRun && !job.forced)
        ctx.result.suspends.push_back({job.key, SuspendCause::kWindow, reason::kSuspWindow});
      else if (open && job.state == RunState::kSsusp && job.cause == SuspendCause::kWindow)
        ctx.result.resumes.push_back({job.key});
    }
  }

  // Load-based suspension and resumption, per host, one action per SBD_SLEEP_TIME.
  void load_control(PassContext& ctx) {
    // Nothing to do without a stop threshold or STOP_COND to suspend for, or a job
    // suspended for load (or resumed by its owner) to resume: the common case, and a
    // walk over every running job and host saved on each pass.
    auto stops = [](const config::Thresholds& t) {
      return std::any_of(t.begin(), t.end(), [](const auto& e) { return e.second.stop.has_value(); });
    };
    bool can_act = false;
    for (const auto* hp : ctx.host_policies()) can_act = can_act || stops(hp->thresholds);
    // Most queues have no stop threshold of their own: their jobs are not looked at
    // against the load, host by host.
    std::vector<char> queue_stops(ctx.policy.queues.size());
    for (size_t q = 0; q < queue_stops.size(); ++q) {
      queue_stops[q] = stops(ctx.policy.queues[q].thresholds);
      can_act = can_act || queue_stops[q] || ctx.policy.queues[q].stop_cond.has_value();
    }
    for (const auto& j : ctx.view.running)
      can_act = can_act ||
                (j.state == RunState::kSsusp && (j.cause == SuspendCause::kLoad || j.cause == SuspendCause::kUser));
    if (!can_act) return;
    // Jobs by first execution host, in one array (host h's from begin[h] to
    // begin[h + 1]): a vector per host would be thousands of allocations each pass.
    const size_t nhosts = ctx.view.hosts.size();
    std::vector<size_t> begin(nhosts + 1, 0);
    for (size_t i = 0; i < ctx.view.running.size(); ++i)
      if (auto slots = ctx.slots_of(i); !slots.empty()) ++begin[static_cast<size_t>(slots.front().first) + 1];
    for (size_t h = 0; h < nhosts; ++h) begin[h + 1] += begin[h];
    std::vector<const RunningJobView*> by_host(begin[nhosts]);
    std::vector<size_t> at(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < ctx.view.running.size(); ++i)
      if (auto slots = ctx.slots_of(i); !slots.empty())
        by_host[at[static_cast<size_t>(slots.front().first)]++] = &ctx.view.running[i];
    const std::string kIt = "it";
    const std::vector<double>& idle_time = ctx.column(kIt);
    std::vector<const RunningJobView*> running, waiting;  // per host, reused
    std::vector<std::pair<int, std::string>> queue_over;  // per host: each queue's stop index passed, reused
    for (int h = 0; h < static_cast<int>(nhosts); ++h) {
      std::span<const RunningJobView* const> jobs(by_host.data() + begin[static_cast<size_t>(h)],
                                                  by_host.data() + begin[static_cast<size_t>(h) + 1]);
      if (jobs.empty()) continue;
      const HostView& host = ctx.view.hosts[h];
      if (host.status != "ok" && host.status != "closed_Adm") continue;
      if (host.last_load_action > 0 && ctx.now < host.last_load_action + ctx.policy.sbd_sleep_time) continue;
      const auto& host_t = ctx.host_policy(h).thresholds;
      double it = value(ctx, h, kIt, idle_time);
      bool idle_long = !std::isnan(it) && it * 60 > ctx.policy.pg_susp_it;
      auto priority_of = [&](const RunningJobView* j) { return ctx.policy.queues[j->queue].priority; };

      // Suspend: the lowest-priority, most recently started running job whose host or
      // queue stop threshold (or STOP_COND) the load passes. The host's own stop
      // thresholds, and each queue's, are the same for all its jobs: on most hosts
      // none is passed and no job need be ranked.
      const std::string host_over = over_stop(ctx, h, host_t, idle_long);
      queue_over.clear();
      running.clear();
      bool may_stop = !host_over.empty();
      for (auto* j : jobs) {
        if (j->state != RunState::kRun) continue;
        running.push_back(j);
        if (may_stop || j->forced) continue;
        const QueuePolicy& q = ctx.policy.queues[j->queue];
        if (q.stop_cond) {
          may_stop = true;
          continue;
        }
        if (!queue_stops[static_cast<size_t>(j->queue)]) continue;
        auto known =
            std::find_if(queue_over.begin(), queue_over.end(), [&](const auto& e) { return e.first == j->queue; });
        if (known == queue_over.end())
          known = queue_over.insert(queue_over.end(), {j->queue, over_stop(ctx, h, q.thresholds, idle_long)});
        may_stop = !known->second.empty();
      }
      if (!may_stop) running.clear();
      std::sort(running.begin(), running.end(), [&](auto* a, auto* b) {
        if (priority_of(a) != priority_of(b)) return priority_of(a) < priority_of(b);
        if (a->start_time != b->start_time) return a->start_time > b->start_time;
        return a->key > b->key;
      });
      bool acted = false;
      for (auto* j : running) {
        if (j->forced) continue;  // brun -f
        // A host's only job is suspended only when someone uses the host (it < 1).
        if (running.size() == 1 && jobs.size() == 1 && !std::isnan(it) && it >= 1) break;
        const QueuePolicy& q = ctx.policy.queues[j->queue];
        std::string index = host_over;
        if (index.empty()) {
          auto known =
              std::find_if(queue_over.begin(), queue_over.end(), [&](const auto& e) { return e.first == j->queue; });
          if (known == queue_over.end())
            known = queue_over.insert(queue_over.end(), {j->queue, over_stop(ctx, h, q.thresholds, idle_long)});
          index = known->second;
        }
        if (!index.empty()) {
          ctx.result.suspends.push_back(
              {j->key, SuspendCause::kLoad, std::string(reason::kSuspLoad) + ": " + index_description(index)});
          acted = true;
          break;
        }
        if (q.stop_cond && q.stop_cond->select.matches(reader(ctx).at(h))) {
          ctx.result.suspends.push_back({j->key, SuspendCause::kLoad, reason::kSuspStopCond});
          acted = true;
          break;
        }
      }
      if (acted) continue;

      // Resume: the highest-priority job the system suspended for load (or that its
      // owner resumed), when load is under both scheduling thresholds and RESUME_COND.
      waiting.clear();
      for (auto* j : jobs)
        if (j->state == RunState::kSsusp && (j->cause == SuspendCause::kLoad || j->cause == SuspendCause::kUser))
          waiting.push_back(j);
      std::sort(waiting.begin(), waiting.end(), [&](auto* a, auto* b) {
        if (priority_of(a) != priority_of(b)) return priority_of(a) > priority_of(b);
        return a->start_time < b->start_time;
      });
      for (auto* j : waiting) {
        const QueuePolicy& q = ctx.policy.queues[j->queue];
        if (over_sched(ctx, h, host_t) || over_sched(ctx, h, q.thresholds)) continue;
        if (q.resume_cond && !q.resume_cond->select.matches(reader(ctx).at(h))) continue;
        ctx.result.resumes.push_back({j->key});
        break;
      }
    }
  }

  std::map<std::int64_t, int> array_running_;
  std::deque<std::pair<const config::Thresholds*, std::vector<signed char>>> queue_busy_;
  std::vector<const char*> host_row_;   // per host: its window or its own thresholds refuse
  std::vector<char> borrowed_;          // per host: leased from another cluster
  std::vector<char> reserved_in_pass_;  // per host: a job started in this pass holds rusage[] there
  std::map<const config::Thresholds*, CompiledThresholds> compiled_;
  const config::Thresholds* last_thresholds_ = nullptr;
  const CompiledThresholds* last_compiled_ = nullptr;
  std::vector<char> closed_;         // per queue: a run or dispatch window is closed
  std::vector<const char*> status_;  // per host: why its status refuses jobs, or nullptr
  std::map<int, std::vector<char>> in_queue_;
  std::map<const config::SelectExpr*, std::vector<signed char>> select_;
  std::optional<SelectReader> reader_;  // made at first use: most passes read no select[]
  std::map<int, std::vector<const char*>> queue_rows_;
  std::map<EligibleKey, Eligible> eligible_;
  struct RankKey {
    const void* order;
    const void* asked;   // -m: which hosts the job may use
    const void* levels;  // whose preference levels rank them: the -m's, the queue's or none
    auto operator<=>(const RankKey&) const = default;
  };
  std::map<RankKey, std::vector<int>> ranked_;
};

}  // namespace

std::unique_ptr<Module> make_schmod_default() { return std::make_unique<DefaultModule>(); }

}  // namespace lsf::sched
