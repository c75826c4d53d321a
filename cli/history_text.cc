#include "cli/history_text.h"

#include <string_view>
#include <utility>
#include <vector>

#include "libsched/exit_reason.h"
#include "libsched/host_runs.h"

namespace lsf::cli {

std::string exit_reason_explained(const std::string& reason) {
  const std::string_view text = sched::exit_reason_text(reason);
  return text.empty() ? reason : reason + ": " + std::string(text);
}

std::string dispatched_text(const google::protobuf::RepeatedPtrField<std::string>& hosts) {
  // Each run of one host is named once with its count.
  const auto counts = sched::host_runs(hosts);
  std::string list;
  for (const auto& [h, n] : counts)
    list += (list.empty() ? "<" : " <") + (n > 1 ? std::to_string(n) + "*" : "") + h + ">";
  const std::string n = std::to_string(hosts.size());
  return n + " Task(s) on Host(s) " + list + ", Allocated " + n + " Slot(s) on Host(s) " + list;
}

}  // namespace lsf::cli
