#include "libsched/share_history.h"

#include <cmath>

namespace lsf::sched {

bool charges_history(const QueuePolicy& q) { return q.fairshare || !q.slot_pool.empty(); }

void charge_finished(ShareHistory& history, const QueuePolicy& q, const std::string& user, const std::string& group,
                     ShareUse use, std::int64_t at) {
  if (q.fairshare)
    history.charge(q.share_key, group.empty() ? user : group + "/" + user, use, at, q.fairshare->hist_hours);
  if (!q.slot_pool.empty()) history.charge(q.name, "", use, at, q.hist_hours);
}

double ShareHistory::decay(double seconds, double hist_hours) {
  if (hist_hours <= 0 || seconds <= 0) return 1;
  return std::pow(0.1, seconds / (hist_hours * 3600));
}

void ShareHistory::charge(const std::string& queue, const std::string& user, ShareUse use, std::int64_t at,
                          double hist_hours) {
  Held& h = entries_[{queue, user}];
  double f = decay(static_cast<double>(at - h.as_of), hist_hours);
  if (h.as_of > at) f = 1;  // replayed out of order: keep what is there undecayed
  h.use.cpu_s = h.use.cpu_s * f + use.cpu_s;
  h.use.run_s = h.use.run_s * f + use.run_s;
  if (at > h.as_of) h.as_of = at;
}

ShareUse ShareHistory::use(const std::string& queue, const std::string& user, std::int64_t now,
                           double hist_hours) const {
  auto it = entries_.find(std::pair<std::string, std::string>(queue, user));
  if (it == entries_.end()) return {};
  double f = decay(static_cast<double>(now - it->second.as_of), hist_hours);
  return {it->second.use.cpu_s * f, it->second.use.run_s * f};
}

std::vector<std::pair<std::string, ShareUse>> ShareHistory::queue_use(const std::string& queue, std::int64_t now,
                                                                      double hist_hours) const {
  std::vector<std::pair<std::string, ShareUse>> out;
  for (auto it = entries_.lower_bound(std::pair<std::string, std::string>(queue, ""));
       it != entries_.end() && it->first.first == queue; ++it) {
    double f = decay(static_cast<double>(now - it->second.as_of), hist_hours);
    out.emplace_back(it->first.second, ShareUse{it->second.use.cpu_s * f, it->second.use.run_s * f});
  }
  return out;
}

std::vector<ShareHistory::Entry> ShareHistory::entries() const {
  std::vector<Entry> out;
  for (const auto& [key, h] : entries_) out.push_back({key.first, key.second, h.use, h.as_of});
  return out;
}

}  // namespace lsf::sched
