// LSF's explanation of each termination reason (TERM_*) this project records, verbatim
// as bjobs -l and the job report print it after the keyword: users grep for them.
#pragma once

#include <string_view>

namespace lsf::sched {

// "job killed by owner" for TERM_OWNER; empty for a reason without one.
constexpr std::string_view exit_reason_text(std::string_view reason) {
  struct Text {
    std::string_view reason, text;
  };
  constexpr Text kTexts[] = {
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
      {"TERM_ORPHAN_SYSTEM", "orphan job was automatically terminated by LSF"},
      {"TERM_REMOVE_HUNG_JOB", "job removed from the LSF system"},
  };
  for (const auto& t : kTexts)
    if (t.reason == reason) return t.text;
  return {};
}

}  // namespace lsf::sched
