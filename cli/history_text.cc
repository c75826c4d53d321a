#include "cli/history_text.h"

#include <map>
#include <utility>
#include <vector>

namespace lsf::cli {

std::string exit_reason_explained(const std::string& reason) {
  static const std::map<std::string, std::string> texts = {
      {"TERM_OWNER", "job killed by owner"},
      {"TERM_MIGRATE", "job killed after migration"},
      {"TERM_FORCE_OWNER", "job killed by owner without time for cleanup"},
      {"TERM_FORCE_ADMIN", "job killed by root or LSF administrator without time for cleanup"},
      {"TERM_REQUEUE_OWNER", "job killed and requeued by owner"},
      {"TERM_REQUEUE_ADMIN", "job killed and requeued by root or LSF administrator"},
      {"TERM_ADMIN", "job killed by root or LSF administrator"},
      {"TERM_RUNLIMIT", "job killed after reaching LSF run time limit"},
      {"TERM_CPULIMIT", "job killed after reaching LSF CPU usage limit"},
      {"TERM_MEMLIMIT", "job killed after reaching LSF memory usage limit"},
      {"TERM_ORPHAN_SYSTEM", "orphan job was automatically terminated by LSF"}};
  auto it = texts.find(reason);
  return it == texts.end() ? reason : reason + ": " + it->second;
}

std::string dispatched_text(const google::protobuf::RepeatedPtrField<std::string>& hosts) {
  // Each run of one host is named once with its count.
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& h : hosts) {
    if (counts.empty() || counts.back().first != h)
      counts.emplace_back(h, 1);
    else
      ++counts.back().second;
  }
  std::string list;
  for (const auto& [h, n] : counts)
    list += (list.empty() ? "<" : " <") + (n > 1 ? std::to_string(n) + "*" : "") + h + ">";
  const std::string n = std::to_string(hosts.size());
  return n + " Task(s) on Host(s) " + list + ", Allocated " + n + " Slot(s) on Host(s) " + list;
}

}  // namespace lsf::cli
