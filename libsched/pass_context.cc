#include "libsched/pass_context.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "libsched/module.h"

namespace lsf::sched {

PassContext::PassContext(const ClusterView& v, std::int64_t t, const std::vector<std::unique_ptr<Module>>& modules)
    : view(v), policy(*v.policy), now(t), modules_(modules) {
  hosts.resize(view.hosts.size());
  // The caller's table serves only if it was made for this policy and these hosts.
  const auto& given = view.accel.host_table;
  bool fits = given && given->policy == view.policy && given->names->size() == view.hosts.size();
  for (size_t h = 0; fits && !view.accel.host_table_checked && h < view.hosts.size(); ++h)
    fits = (*given->names)[h] == view.hosts[h].name;
  table_ = fits ? given : make_host_table(view);
  for (size_t h = 0; h < view.hosts.size(); ++h) {
    const HostPolicy& hp = *table_->policies[h];
    const HostView& hv = view.hosts[h];
    int& max_slots = hosts[h].max_slots;
    max_slots = hp.mxj_is_ncpus ? std::max(1, hv.ncpus) : hp.mxj;
    if (!hv.cluster.empty()) max_slots = hv.leased_slots;
    if (hv.lent_slots > 0) max_slots = std::max(0, (max_slots < 0 ? std::max(1, hv.ncpus) : max_slots) - hv.lent_slots);
  }
  running_begin_.reserve(view.running.size() + 1);
  running_slots_.reserve(view.running.size());
  for (const auto& job : view.running) {
    running_begin_.push_back(running_slots_.size());
    if (job.accel.slots && job.accel.table == table_)
      running_slots_.insert(running_slots_.end(), job.accel.slots->begin(), job.accel.slots->end());
    else
      append_host_slots(*table_, job.hosts, running_slots_);
  }
  running_begin_.push_back(running_slots_.size());
  modules_settled();
}

void append_host_slots(const HostTable& table, const std::vector<std::string>& hosts,
                       std::vector<std::pair<int, int>>& out) {
  const auto from = static_cast<std::ptrdiff_t>(out.size());
  const std::string* last = nullptr;  // a host is named once per slot, one after another
  int last_host = -1;
  for (const auto& name : hosts) {
    const int h = last && *last == name ? last_host : table.find(name);
    last = &name;
    last_host = h;
    if (h < 0) continue;
    auto it = std::find_if(out.begin() + from, out.end(), [h](const auto& e) { return e.first == h; });
    if (it == out.end())
      out.emplace_back(h, 1);
    else
      ++it->second;
  }
}

std::vector<std::pair<int, int>> host_slots(const HostTable& table, const std::vector<std::string>& hosts) {
  std::vector<std::pair<int, int>> out;
  append_host_slots(table, hosts, out);
  return out;
}

int PassContext::host_index(std::string_view name) const { return table_->find(name); }

const std::vector<double>& PassContext::column(std::string_view name) const {
  ResourceColumns& columns = view.accel.fixed_columns ? *view.accel.fixed_columns : columns_;
  if (columns.empty()) fill_columns(columns);
  auto it = columns.find(name);
  if (it != columns.end()) return it->second;
  // No host has it as a number.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return columns.emplace(std::string(name), std::vector<double>(view.hosts.size(), nan)).first->second;
}

double less_reserved(double value, const Reserved& reserved, std::string_view name) {
  if (std::isnan(value) || reserved.empty()) return value;
  auto r = reserved.find(name);
  return r == reserved.end() ? value : value - r->second;
}

double PassContext::numeric(int host, std::string_view name) const {
  return less_reserved(column(name)[host], hosts[host].reserved, name);
}

// Every resource's value per host in one walk over each host's resources, the first
// time any is asked for: a pass reads several numeric columns (order[]'s, the
// thresholds', load control's `it`) and select[]'s names, and finding each name in
// each of 5,000 hosts' maps would be a string search per host and name. Hosts mostly
// have the same names, in the same (sorted) order: the column of a host's k-th resource
// is most often the previous host's k-th one's.
void PassContext::fill_values() const {
  const size_t n = view.hosts.size();
  struct Seen {
    const std::string* name = nullptr;
    ValueColumn* column = nullptr;
  };
  std::vector<Seen> at;  // by position in a host's resources
  for (size_t h = 0; h < n; ++h) {
    size_t pos = 0;
    for (const auto& entry : view.hosts[h].resources) {
      if (pos >= at.size()) at.resize(pos + 1);
      Seen& seen = at[pos++];
      if (!seen.name || *seen.name != entry.first) {
        auto [it, fresh] = values_.try_emplace(entry.first);
        if (fresh) it->second.assign(n, nullptr);
        seen = {&it->first, &it->second};
      }
      (*seen.column)[h] = &entry.second;
    }
  }
  values_filled_ = true;
}

// The numeric columns from the values: NaN where a host lacks the name or has it as a
// string.
void PassContext::fill_columns(ResourceColumns& columns) const {
  if (!values_filled_) fill_values();
  for (const auto& [name, values] : values_) {
    std::vector<double>* column = nullptr;
    for (size_t h = 0; h < values.size(); ++h) {
      const double* v = values[h] ? std::get_if<double>(values[h]) : nullptr;
      if (!v) continue;
      if (!column)
        column = &columns.try_emplace(name, values.size(), std::numeric_limits<double>::quiet_NaN()).first->second;
      (*column)[h] = *v;
    }
  }
}

const PassContext::ValueColumn& PassContext::values(std::string_view name) const {
  if (!values_filled_) fill_values();
  auto it = values_.find(name);
  if (it == values_.end()) it = values_.emplace(std::string(name), ValueColumn(view.hosts.size(), nullptr)).first;
  return it->second;
}

config::SelectValue SelectReader::value(std::string_view name) const {
  const PassContext::ValueColumn* column = nullptr;
  for (const Seen& s : seen_)
    if (s.name.data() == name.data() && s.name.size() == name.size()) {
      column = s.values;
      break;
    }
  if (!column) column = seen_.emplace_back(Seen{name, &ctx_.values(name)}).values;
  const config::ResourceValue* v = (*column)[static_cast<size_t>(host_)];
  if (!v) return {};
  if (const double* d = std::get_if<double>(v))
    return config::SelectValue::of(ctx_.hosts[host_].reserved.empty() ? *d : ctx_.numeric(host_, name));
  if (const std::string* t = std::get_if<std::string>(v)) return config::SelectValue::of(std::string_view(*t));
  return {};
}

double PassContext::shared_left(std::string_view name) const {
  auto total = policy.shared_resources.find(name);
  if (total == policy.shared_resources.end()) return std::numeric_limits<double>::quiet_NaN();
  auto used = shared_used_.find(name);
  return total->second - (used == shared_used_.end() ? 0 : used->second);
}

Usage PassContext::usage(const config::ResourceRequirement* req, std::int64_t started) const {
  Usage out;
  if (!req || req->rusage.empty()) return out;
  for (const auto& clause : req->rusage.alternatives.front()) {
    double factor = 1;
    if (clause.duration_minutes) {
      double duration = *clause.duration_minutes * 60.0;
      double elapsed = static_cast<double>(now - started);
      if (elapsed >= duration) continue;  // the job's own use shows in the load by now
      if (clause.decay) factor = 1 - elapsed / duration;
    }
    for (const auto& item : clause.items) {
      // GPUs asked this way are devices mbatchd turned into the job's GPU request
      // (schmod_gpu counts them), not an amount held per slot.
      if (item.name == "ngpus_physical") continue;
      bool shared = policy.shared_resources.count(item.name) > 0;
      (shared ? out.per_job : out.per_slot).emplace_back(item.name, item.value * factor);
    }
  }
  return out;
}

const Usage& PassContext::demand(const config::ResourceRequirement* req) const {
  static const Usage kNothing;  // no requirement, no rusage: asked for every host, so no lookup
  if (!req) return kNothing;
  auto [it, fresh] = demands_.try_emplace(req);
  if (fresh) it->second = usage(req, now);
  return it->second;
}

std::string format_amount(double value) {
  if (value == std::floor(value)) return std::to_string(static_cast<long long>(value));
  std::string s = std::to_string(value);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

void PassContext::modules_settled() {
  room_modules_.clear();
  for (const auto& m : modules_)
    if (m->limits_room()) room_modules_.push_back(m.get());
}

int PassContext::room(const JobView& job, int host, const char** why) const {
  int least = kUnlimited;
  for (Module* m : room_modules_) {
    const char* reason = nullptr;
    int r = m->room(*this, job, host, &reason);
    if (r < least) {
      least = r;
      if (why) *why = reason;
    }
    if (least <= 0) return 0;
  }
  return least;
}

std::shared_ptr<const std::string> PassContext::intern(const std::string& text) {
  auto [it, fresh] = texts_.try_emplace(text);
  if (fresh) it->second = std::make_shared<const std::string>(text);
  return it->second;
}

const std::shared_ptr<const std::vector<std::string>>& PassContext::host_names() const { return table_->names; }

std::shared_ptr<const HostTable> make_host_table(const ClusterView& view) {
  auto table = std::make_shared<HostTable>();
  table->policy = view.policy;
  auto names = std::make_shared<std::vector<std::string>>();
  names->reserve(view.hosts.size());
  table->policies.reserve(view.hosts.size());
  for (size_t h = 0; h < view.hosts.size(); ++h) {
    names->push_back(view.hosts[h].name);
    if (table->index.insert(view.hosts[h].name).second) table->index_host.push_back(static_cast<int>(h));
    table->policies.push_back(&view.policy->host(view.hosts[h].name));
  }
  table->names = std::move(names);
  const auto& pools = view.policy->guarantee_pools;
  table->guarantee_pool.assign(view.hosts.size(), -1);
  for (size_t h = 0; h < view.hosts.size() && !pools.empty(); ++h) {
    const HostView& hv = view.hosts[h];
    const bool reported = !unreachable(hv.status);
    for (size_t p = 0; p < pools.size(); ++p) {
      if (!pools[p].hosts.empty() && !pools[p].hosts.count(hv.name)) continue;
      if (pools[p].res_select) {
        if (!reported) {
          table->undecided = true;
          break;
        }
        auto lookup = [&hv](std::string_view name) -> config::ResourceValue {
          auto it = hv.resources.find(name);
          return it == hv.resources.end() ? config::ResourceValue{} : it->second;
        };
        if (!pools[p].res_select->matches(lookup)) continue;
      }
      table->guarantee_pool[h] = static_cast<int>(p);
      break;
    }
  }
  return table;
}

ComposedReasons host_reasons(const PassContext& ctx, const std::map<std::string, std::vector<int>>& hosts) {
  std::vector<const std::pair<const std::string, std::vector<int>>*> items;
  for (const auto& item : hosts)
    if (!item.second.empty()) items.push_back(&item);
  std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->second.size() > b->second.size(); });
  ComposedReasons out;
  for (const auto* item : items) {
    size_t n = item->second.size();
    if (!out.text.empty()) out.text += "; ";
    out.text += item->first + ": " + std::to_string(n) + (n == 1 ? " host" : " hosts");
    out.hosts.push_back(HostReason{item->first, item->second, ctx.host_names()});
  }
  return out;
}

}  // namespace lsf::sched
