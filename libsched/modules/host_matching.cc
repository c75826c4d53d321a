#include "libsched/modules/host_matching.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "libsched/pending_reason.h"

namespace lsf::sched {
namespace {

const std::vector<config::OrderKey> kDefaultOrder = {{"r15s", false}, {"pg", false}};
constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// One host's resources as select[] reads them, read from the host itself: a pass
// after a few hosts changed evaluates select[] on those alone.
class HostValues final : public config::SelectHost {
 public:
  HostValues(const ResourceMap& resources, const Reserved& reserved) : resources_(resources), reserved_(reserved) {}
  config::SelectValue value(std::string_view name) const override {
    auto it = resources_.find(name);
    if (it == resources_.end()) return {};
    if (const double* d = std::get_if<double>(&it->second))
      return config::SelectValue::of(less_reserved(*d, reserved_, name));
    if (const std::string* t = std::get_if<std::string>(&it->second))
      return config::SelectValue::of(std::string_view(*t));
    return {};
  }

 private:
  const ResourceMap& resources_;
  const Reserved& reserved_;
};

const char* status_refusal(HostStatus status) {
  if (status == HostStatus::kUnreach) return reason::kHostUnreach;
  if (status == HostStatus::kUnavail) return reason::kHostUnavail;
  if (status == HostStatus::kClosedAdm) return reason::kHostClosedAdm;
  return nullptr;
}

}  // namespace

void HostMatching::start(const PassContext&, bool carried) {
  carried_ = carried;
  ++pass_;
  refreshed_ = false;
  at_start_.clear();
  kept_.clear();
  reader_.reset();  // it reads the last pass's columns
}

void HostMatching::placing(const PassContext& ctx, const Placement& p) {
  if (at_start_.empty()) at_start_.assign(ctx.view.hosts.size(), nullptr);
  for (auto [h, n] : p.hosts) {
    const Reserved*& kept = at_start_[static_cast<size_t>(h)];
    if (kept) continue;
    kept_.push_back(std::make_unique<Reserved>(ctx.hosts[h].reserved));
    kept = kept_.back().get();
  }
}

void HostMatching::finish() {
  if (!carried_) return;  // the matching ends with the pass
  std::erase_if(eligible_, [&](const auto& e) { return e.second.used != pass_ || e.first.excluded; });
  std::erase_if(ranked_, [&](const auto& r) { return r.second.used != pass_; });
  std::erase_if(select_, [&](const auto& s) { return s.second.used != pass_; });
}

// Every table starts afresh: the first pass, or another policy or other hosts.
void HostMatching::reset(const PassContext& ctx) {
  policy_ = ctx.view.policy;
  names_ = ctx.host_table().names;
  limits_.clear();
  queue_busy_.clear();
  in_queue_.clear();
  queue_rows_.clear();
  select_.clear();
  eligible_.clear();
  ranked_.clear();
  const size_t n = ctx.view.hosts.size();
  // What the next pass compares with: only a matching it will see keeps it.
  if (carried_)
    seen_.resize(n);
  else
    seen_.clear();
  status_.resize(n);
  host_row_.resize(n);
  borrowed_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const HostView& host = ctx.view.hosts[i];
    const int h = static_cast<int>(i);
    const bool open = ctx.host_policy(h).dispatch_window.is_open(ctx.view.week);
    if (carried_) seen_[i] = {host.status, host.cluster, host.resources, ctx.hosts[i].reserved, open};
    status_[i] = status_refusal(host.status);
    borrowed_[i] = !host.cluster.empty();
    host_row_[i] = host_refusal(ctx, h, open);
  }
}

// At the pass's first host match, before anything is placed: every host whose facts
// may have changed since the last pass is worked out again in each table.
void HostMatching::refresh(const PassContext& ctx) {
  refreshed_ = true;
  const size_t n = ctx.view.hosts.size();
  if (!carried_ || policy_ != ctx.view.policy || names_ != ctx.host_table().names || seen_.size() != n) {
    reset(ctx);
    return;
  }
  changed_.clear();
  for (size_t i = 0; i < n; ++i) {
    const HostView& host = ctx.view.hosts[i];
    const int h = static_cast<int>(i);
    const bool open = ctx.host_policy(h).dispatch_window.is_open(ctx.view.week);
    Seen& s = seen_[i];
    if (s.window_open == open && s.status == host.status && s.cluster == host.cluster &&
        s.reserved == ctx.hosts[i].reserved && s.resources == host.resources)
      continue;
    s = {host.status, host.cluster, host.resources, ctx.hosts[i].reserved, open};
    changed_.push_back(h);
  }
  if (changed_.empty()) return;
  // A few hosts: their values are read from the hosts themselves, not from columns
  // made for all of them.
  direct_ = true;
  for (int h : changed_) {
    status_[h] = status_refusal(ctx.view.hosts[h].status);
    borrowed_[h] = !ctx.view.hosts[h].cluster.empty();
    host_row_[h] = host_refusal(ctx, h, seen_[static_cast<size_t>(h)].window_open);
  }
  for (auto& [t, row] : queue_busy_) {
    const auto& l = limits(*t);
    for (int h : changed_) row[h] = over_sched(ctx, h, l);
  }
  for (auto& [queue, row] : queue_rows_) {
    const auto& in_queue = queue_hosts(ctx, queue);
    const auto* busy = queue_busy(ctx, queue);
    for (int h : changed_) row[h] = queue_refusal(ctx, queue, in_queue, busy, h);
  }
  for (auto& [select, memo] : select_)
    for (int h : changed_) memo.matches[h] = -1;
  for (auto& [key, e] : eligible_) refresh_eligible(ctx, key, e);
  for (auto& [key, r] : ranked_) refresh_ranked(ctx, r);
  direct_ = false;
}

const Reserved& HostMatching::reserved_at_start(const PassContext& ctx, int h) const {
  return placed_rusage(h) ? *at_start_[static_cast<size_t>(h)] : ctx.hosts[h].reserved;
}

// The host's value as the pass began, from the pass's columns (one walk over every
// host's resources, worth it when most hosts are read) or from the host itself.
double HostMatching::number(const PassContext& ctx, int h, std::string_view name) const {
  if (!direct_) return less_reserved(ctx.column(name)[h], reserved_at_start(ctx, h), name);
  const ResourceMap& resources = ctx.view.hosts[h].resources;
  auto it = resources.find(name);
  const double* v = it == resources.end() ? nullptr : std::get_if<double>(&it->second);
  return v ? less_reserved(*v, reserved_at_start(ctx, h), name) : kUndefined;
}

const std::vector<HostMatching::SchedLimit>& HostMatching::limits(const config::Thresholds& t) {
  auto [it, fresh] = limits_.try_emplace(&t);
  if (fresh)
    for (const auto& [index, th] : t)
      if (th.sched) it->second.push_back({index, *th.sched, config::larger_is_better(index)});
  return it->second;
}

bool HostMatching::over_sched(const PassContext& ctx, int h, const std::vector<SchedLimit>& limits) const {
  for (const SchedLimit& l : limits) {
    const double v = number(ctx, h, l.index);
    if (!std::isnan(v) && (l.larger_better ? v < l.limit : v > l.limit)) return true;
  }
  return false;
}

// Whether the host's dispatch window or its own loadSched thresholds keep every
// queue's jobs off it.
const char* HostMatching::host_refusal(const PassContext& ctx, int h, bool window_open) {
  if (!window_open) return reason::kHostWindow;
  const config::Thresholds& t = ctx.host_policy(h).thresholds;
  return !t.empty() && over_sched(ctx, h, limits(t)) ? reason::kHostLoad : nullptr;
}

// A queue's loadSched thresholds per host; null when the queue has none. Queues often
// repeat one another's thresholds: one row per distinct set.
const std::vector<signed char>* HostMatching::queue_busy(const PassContext& ctx, int queue) {
  const config::Thresholds& t = ctx.policy.queues[queue].thresholds;
  if (t.empty()) return nullptr;
  for (const auto& [other, row] : queue_busy_)
    if (*other == t) return &row;
  const auto& l = limits(t);
  auto& row = queue_busy_.emplace_back(&t, std::vector<signed char>(ctx.view.hosts.size())).second;
  for (size_t h = 0; h < row.size(); ++h) row[h] = over_sched(ctx, static_cast<int>(h), l);
  return &row;
}

const std::vector<char>& HostMatching::queue_hosts(const PassContext& ctx, int queue) {
  auto& row = in_queue_[queue];
  const QueuePolicy& q = ctx.policy.queues[queue];
  if (row.empty() && !q.hosts.empty()) {
    row.assign(ctx.view.hosts.size(), 0);
    for (const auto& name : q.hosts)
      if (int h = ctx.host_index(name); h >= 0) row[h] = 1;
  }
  return row;
}

// The first reason a host refuses every job of the queue: status, the queue's HOSTS,
// dispatch window, load thresholds.
const char* HostMatching::queue_refusal(const PassContext& ctx, int queue, const std::vector<char>& in_queue,
                                        const std::vector<signed char>* busy, int h) const {
  const QueuePolicy& q = ctx.policy.queues[queue];
  const HostView& host = ctx.view.hosts[h];
  const char* no = status_[h];
  if (!no && (borrowed_[h] ? !q.takes_borrowed(host.name, host.cluster) : !q.hosts.empty() && !in_queue[h]))
    no = reason::kHostNotInQueue;
  if (!no) no = host_row_[h];
  if (!no && busy && (*busy)[h]) no = reason::kHostLoad;
  return no;
}

// Per host, once per queue: what does not depend on the job's select[] and -m.
const std::vector<const char*>& HostMatching::queue_row(const PassContext& ctx, int queue) {
  auto [it, fresh] = queue_rows_.try_emplace(queue);
  if (!fresh) return it->second;
  const auto& in_queue = queue_hosts(ctx, queue);
  const auto* busy = queue_busy(ctx, queue);
  auto& row = it->second;
  row.resize(ctx.view.hosts.size());
  for (size_t h = 0; h < row.size(); ++h) row[h] = queue_refusal(ctx, queue, in_queue, busy, static_cast<int>(h));
  return row;
}

HostMatching::SelectMemo& HostMatching::memo_of(const PassContext& ctx, const EligibleKey& key,
                                                const std::shared_ptr<const void>& req) {
  SelectMemo& memo = select_[static_cast<const config::SelectExpr*>(key.select)];
  if (memo.matches.empty()) {
    memo.req = req;
    memo.matches.assign(ctx.view.hosts.size(), -1);
  }
  memo.used = pass_;
  return memo;
}

bool HostMatching::select_matches(const PassContext& ctx, const config::SelectExpr& select, SelectMemo& memo, int h) {
  signed char& m = memo.matches[static_cast<size_t>(h)];
  if (m >= 0) return m;
  if (direct_ || placed_rusage(h)) {
    m = select.matches(HostValues(ctx.view.hosts[h].resources, reserved_at_start(ctx, h)));
  } else {
    if (!reader_) reader_.emplace(ctx);
    m = select.matches(reader_->at(h));  // nothing placed there yet: its values are the pass's start's
  }
  return m;
}

// The first condition that fails names the reason, in LSF's order: status and the
// queue's HOSTS, then the job's -m and exclusions, then window, load and select[].
const char* HostMatching::refusal(const PassContext& ctx, const EligibleKey& key, const std::vector<const char*>& row,
                                  SelectMemo* memo, const JobView* job, int h) {
  const char* no = row[h];
  const bool early = no && (no == reason::kHostNotInQueue || no == status_[h]);
  if ((key.asked || key.excluded) && !early) {
    const std::string& name = ctx.view.hosts[h].name;
    const auto* asked = static_cast<const AskedHosts*>(key.asked);
    if (asked && !asked->contains(name))
      no = reason::kHostNotAsked;
    else if (key.excluded &&
             std::find(job->excluded_hosts.begin(), job->excluded_hosts.end(), name) != job->excluded_hosts.end())
      no = reason::kHostExcluded;
  }
  if (!no && memo && !select_matches(ctx, *static_cast<const config::SelectExpr*>(key.select), *memo, h))
    no = reason::kHostSelect;
  return no;
}

void HostMatching::make_eligible(const PassContext& ctx, const EligibleKey& key, const JobView& job, Eligible& e) {
  e.req = job.res_req;
  e.asked = job.asked_hosts;
  const size_t n = ctx.view.hosts.size();
  if (key.select && !key.asked && !key.excluded) {
    // The queue's refusals, then select[] on the hosts the queue takes: a queue's jobs
    // mostly differ in select[] alone, and what the queue refuses (often most of the
    // cluster, for a queue with HOSTS) is listed once rather than host by host again.
    const EligibleKey base_key{key.queue, nullptr, nullptr, nullptr};
    auto [it, fresh] = eligible_.try_emplace(base_key);
    if (fresh) make_eligible(ctx, base_key, job, it->second);
    it->second.used = pass_;
    e.why = it->second.why;
    e.refused = it->second.refused;
    e.excluded = it->second.excluded;
    SelectMemo& memo = memo_of(ctx, key, job.res_req);
    const auto& select = *static_cast<const config::SelectExpr*>(key.select);
    std::vector<int> failed;
    for (size_t i = 0; i < n; ++i) {
      if (e.refused[i] || select_matches(ctx, select, memo, static_cast<int>(i))) continue;
      e.why[i] = reason::kHostSelect;
      e.refused[i] = 1;
      failed.push_back(static_cast<int>(i));
    }
    if (!failed.empty()) e.excluded.emplace_back(reason::kHostSelect, std::move(failed));
    return;
  }
  const auto& row = queue_row(ctx, key.queue);
  SelectMemo* memo = key.select ? &memo_of(ctx, key, job.res_req) : nullptr;
  const bool by_host = key.select || key.asked || key.excluded;
  e.why = row;
  e.refused.assign(n, 0);
  // Reasons are constants: grouped by pointer, in host order (bjobs -l lists them so).
  for (size_t i = 0; i < n; ++i) {
    const char* no = by_host ? refusal(ctx, key, row, memo, &job, static_cast<int>(i)) : row[i];
    if (!no) continue;
    e.why[i] = no;
    e.refused[i] = 1;
    auto it = std::find_if(e.excluded.begin(), e.excluded.end(), [no](const auto& r) { return r.first == no; });
    if (it == e.excluded.end()) it = e.excluded.insert(it, {no, {}});
    it->second.push_back(static_cast<int>(i));
  }
}

void HostMatching::refresh_eligible(const PassContext& ctx, const EligibleKey& key, Eligible& e) {
  const auto& row = queue_row(ctx, key.queue);
  SelectMemo* memo = key.select ? &memo_of(ctx, key, e.req) : nullptr;
  for (int h : changed_) {
    const char* now = refusal(ctx, key, row, memo, nullptr, h);
    const char* was = e.why[h];
    if (now == was) continue;
    e.why[h] = now;
    e.refused[h] = now != nullptr;
    auto group = [&](const char* why) {
      return std::find_if(e.excluded.begin(), e.excluded.end(), [why](const auto& r) { return r.first == why; });
    };
    if (was) {
      auto it = group(was);
      it->second.erase(std::lower_bound(it->second.begin(), it->second.end(), h));
      if (it->second.empty()) e.excluded.erase(it);
    }
    if (now) {
      auto it = group(now);
      if (it == e.excluded.end()) it = e.excluded.insert(it, {now, {}});
      it->second.insert(std::lower_bound(it->second.begin(), it->second.end(), h), h);
    }
  }
}

void HostMatching::candidates(PassContext& ctx, const JobView& job, Candidates& cands) {
  if (!refreshed_) refresh(ctx);
  const config::SelectExpr* select = job.res_req && !job.res_req->select.empty() ? &job.res_req->select : nullptr;
  const EligibleKey key{job.queue, select, job.asked_hosts.get(), job.excluded_hosts.empty() ? nullptr : &job};
  auto [it, fresh] = eligible_.try_emplace(key);
  Eligible& e = it->second;
  if (fresh)
    make_eligible(ctx, key, job, e);
  else if (select && e.used != pass_)
    memo_of(ctx, key, e.req);  // kept for the next pass with the entry that reads it
  e.used = pass_;
  for (const auto& [why, list] : e.excluded) {
    auto& into = cands.excluded[why];
    into.insert(into.end(), list.begin(), list.end());
  }
  const Ranked& r = ranked(ctx, job);
  if (e.excluded.empty()) {  // every host will do (a simulated cluster, most of the time)
    cands.hosts = r.order;
    return;
  }
  std::vector<int> kept;
  kept.reserve(r.order.size());
  for (int h : r.order)
    if (!e.refused[h]) kept.push_back(h);
  cands.hosts = std::move(kept);
}

void HostMatching::rank_values(const PassContext& ctx, Ranked& r, int h) const {
  const HostView& host = ctx.view.hosts[h];
  int& level = r.preference[static_cast<size_t>(h)];
  if (r.asked_levels) {
    auto it = r.asked_levels->preference.find(host.name);
    level = it == r.asked_levels->preference.end() ? 0 : it->second;
  } else if (r.queue_levels) {
    level = r.queue_levels->preference_of(host.name, host.cluster);
  }
  const size_t k = r.keys->size();
  for (size_t i = 0; i < k; ++i) r.values[static_cast<size_t>(h) * k + i] = number(ctx, h, (*r.keys)[i].name);
}

// Preference level (higher first), then each order[] index (undefined last), then the
// host's place in the cluster.
bool HostMatching::before(const Ranked& r, int a, int b) {
  if (r.preference[a] != r.preference[b]) return r.preference[a] > r.preference[b];
  const size_t k = r.keys->size();
  for (size_t i = 0; i < k; ++i) {
    const double va = r.values[static_cast<size_t>(a) * k + i], vb = r.values[static_cast<size_t>(b) * k + i];
    const bool na = std::isnan(va), nb = std::isnan(vb);
    if (na && nb) continue;
    if (na != nb) return nb;
    if (va == vb) continue;
    const bool a_better = r.larger_better[i] ? va > vb : va < vb;
    return (*r.keys)[i].reverse ? !a_better : a_better;
  }
  return a < b;
}

// Every host, best first for the job's preference levels (its -m's, else its queue's
// HOSTS) and order[]; one sort per distinct (order[], levels), kept in order after.
const HostMatching::Ranked& HostMatching::ranked(const PassContext& ctx, const JobView& job) {
  const bool own_order = job.res_req && !job.res_req->order.empty();
  const QueuePolicy& queue = ctx.queue_of(job);
  const void* levels = nullptr;
  if (job.asked_hosts && job.asked_hosts->any_preference())
    levels = job.asked_hosts.get();
  else if (queue.has_preferences)
    levels = &queue;
  auto [it, fresh] =
      ranked_.try_emplace(RankKey{own_order ? job.res_req.get() : nullptr, job.asked_hosts.get(), levels});
  Ranked& r = it->second;
  r.used = pass_;
  if (!fresh) return r;
  r.req = own_order ? job.res_req : nullptr;
  r.asked = job.asked_hosts;
  r.keys = own_order ? &job.res_req->order : &kDefaultOrder;
  for (const auto& key : *r.keys) r.larger_better.push_back(config::larger_is_better(key.name));
  r.asked_levels = levels == job.asked_hosts.get() ? job.asked_hosts.get() : nullptr;
  r.queue_levels = levels == &queue ? &queue : nullptr;
  const size_t n = ctx.view.hosts.size(), k = r.keys->size();
  r.preference.assign(n, 0);
  r.values.assign(n * k, kUndefined);
  for (size_t h = 0; h < n; ++h) rank_values(ctx, r, static_cast<int>(h));
  r.order.resize(n);
  std::iota(r.order.begin(), r.order.end(), 0);
  // Hosts that all look the same (a simulated cluster, an idle one) keep their order.
  bool uniform = true;
  for (size_t h = 1; uniform && h < n; ++h) {
    uniform = r.preference[h] == r.preference[0];
    for (size_t i = 0; uniform && i < k; ++i) {
      const double a = r.values[i], b = r.values[h * k + i];
      uniform = a == b || (std::isnan(a) && std::isnan(b));
    }
  }
  if (uniform || sort_packed(r)) return r;
  std::sort(r.order.begin(), r.order.end(), [&r](int a, int b) { return before(r, a, b); });
  return r;
}

// The hosts whose values changed leave the order and come back in where they now
// belong: a merge, not another sort.
void HostMatching::refresh_ranked(const PassContext& ctx, Ranked& r) {
  std::vector<char> moved(ctx.view.hosts.size(), 0);
  for (int h : changed_) {
    rank_values(ctx, r, h);
    moved[static_cast<size_t>(h)] = 1;
  }
  std::erase_if(r.order, [&moved](int h) { return moved[static_cast<size_t>(h)]; });
  std::vector<int> back = changed_;
  auto less = [&r](int a, int b) { return before(r, a, b); };
  std::sort(back.begin(), back.end(), less);
  std::vector<int> merged(r.order.size() + back.size());
  std::merge(r.order.begin(), r.order.end(), back.begin(), back.end(), merged.begin(), less);
  r.order = std::move(merged);
}

// The same order as before(), with each host's rank packed into one integer: its
// level, then per order[] index the place of its value among the distinct values
// (undefined after all of them), then its place in the cluster. Sorting 5,000 integers
// costs a fraction of comparing through each host's values. False, leaving the order
// as it was, when the parts do not fit 64 bits (a very large cluster, many order[] keys).
bool HostMatching::sort_packed(Ranked& r) {
  const size_t n = r.order.size(), k = r.keys->size();
  int low = 0, high = 0;
  for (int level : r.preference) {
    low = std::min(low, level);
    high = std::max(high, level);
  }
  const auto level_bits = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(high - low)));
  const auto value_bits = static_cast<unsigned>(std::bit_width(n));  // ids 0..n, n: undefined
  const auto place_bits = static_cast<unsigned>(std::bit_width(n));
  if (level_bits + k * value_bits + place_bits > 64) return false;
  std::vector<std::uint64_t> packed(n);
  for (size_t h = 0; h < n; ++h) packed[h] = static_cast<std::uint64_t>(high - r.preference[h]);
  std::vector<double> turned(n), distinct;
  for (size_t i = 0; i < k; ++i) {
    // Smaller first: a larger-is-better index (mem) negated, and negated again for
    // order[-index].
    const bool negate = (r.larger_better[i] != 0) != (*r.keys)[i].reverse;
    distinct.clear();
    for (size_t h = 0; h < n; ++h) {
      const double v = r.values[h * k + i];
      turned[h] = negate ? -v : v;
      if (!std::isnan(v)) distinct.push_back(turned[h]);
    }
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (size_t h = 0; h < n; ++h) {
      const size_t id =
          std::isnan(turned[h])
              ? distinct.size()
              : static_cast<size_t>(std::lower_bound(distinct.begin(), distinct.end(), turned[h]) - distinct.begin());
      packed[h] = packed[h] << value_bits | id;
    }
  }
  for (size_t h = 0; h < n; ++h) packed[h] = packed[h] << place_bits | h;
  std::sort(packed.begin(), packed.end());
  const std::uint64_t place_mask = (std::uint64_t{1} << place_bits) - 1;
  for (size_t p = 0; p < n; ++p) r.order[p] = static_cast<int>(packed[p] & place_mask);
  return true;
}

}  // namespace lsf::sched
