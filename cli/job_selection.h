// Which jobs bkill, bstop and bresume act on when LSF's filters choose them:
// -J name (with `*`), -q queue, -m host, -app profile, -sla class, -g group, -u user and
// bkill's -stat run|pend|susp.
//
// As LSF's: job ID 0 (or -stat) means every unfinished job that satisfies the filters;
// no job ID means the last job submitted by the user (-u's, else the caller) that
// satisfies them; named jobs are acted on only where they satisfy them.
//
// The selection is a listing (JobsRequest, paged) read here; the action is then one
// SignalJobsRequest naming the chosen jobs, so mbatchd still checks, job by job, that the
// caller may act on each (and that it has not finished meanwhile).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_support.h"

namespace lsf::cli {

struct JobFilters {
  std::string user;  // "all", a user name; empty: the caller
  std::string queue, host, job_name, app, sla, job_group;
  std::optional<wire::JobState> stat;  // -stat: only RUN, PEND or suspended (any SUSP) jobs
};

enum class JobScope {
  kNamed,  // the jobs named, where they satisfy the filters
  kAll,    // job ID 0 or -stat: every one that does
  kLast,   // no job ID: the last one submitted
};

struct JobSelection {
  std::vector<wire::JobRef> jobs;
  std::vector<std::string> errors;  // named jobs that are not there or do not match
  std::string none;                 // LSF's line when nothing matched
};

// Exits 255 with mbatchd's message when a filter names what does not exist (a job
// group, an application profile).
JobSelection select_jobs(Session& session, const std::string& command, const JobFilters& filters, JobScope scope,
                         const std::vector<wire::JobRef>& named);

}  // namespace lsf::cli
