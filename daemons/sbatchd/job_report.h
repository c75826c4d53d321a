// The job report LSF appends to a job's -o file when the job ends (LSF mails it to a
// job without -o; this project sends no mail, so such a job gets none). Laid out as
// LSF 10 writes it, because scripts grep it: the `Sender: LSF System <admin@host>` and
// `Subject: Job 123: <name> in cluster <c> Done|Exited` header, when and where the job
// ran, the command as submitted under `# LSBATCH: User input`, `Successfully
// completed.` or `Exited with exit code N.` (after the TERM_* reason when LSF killed it),
// the `Resource usage summary:` block and `The output (if any) is above this job
// summary.` Values this project does not measure (average memory, swap, processes,
// threads) read `-`, as LSF prints them when it has none.
//
// The supervisor (job_supervisor.h) writes it when the job ends, before the
// post-execution commands, from a process that runs as the job's user.
#pragma once

#include <cstdint>
#include <string>

#include "lsf.pb.h"

namespace lsf::sbd {

struct JobEnd {
  int wait_status = 0;
  double cpu_time = 0;  // seconds
  std::int64_t max_rss_kb = 0;
  std::int64_t end_time = 0;  // also when the results are reported
  std::string exit_reason;    // TERM_*; empty: the job ended by itself
  std::string home;           // the user's home directory on this host
};

// The report's text, to be appended to the job's output after what the job wrote.
std::string job_report(const wire::JobLaunch& launch, const JobEnd& end);

}  // namespace lsf::sbd
