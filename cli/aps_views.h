// Absolute priority (APS_PRIORITY queues) as commands show it: bjobs -aps and -prio,
// bjobs -l's administrator values, and showq's idle jobs in priority order.
#pragma once

#include <string>
#include <vector>

#include "cli/bjobs_views.h"
#include "lsf.pb.h"

namespace lsf::cli {

// Jobs that are not pending keep their place ahead; pending jobs go system values
// first, then calculated values, then jobs of other queues, each highest first, and by
// submission on ties (LSF's bjobs -aps order).
void sort_by_aps(std::vector<wire::JobInfo>& jobs);
// bjobs' default table with an APS column: 109.00, (10) for a system value, - for none.
void print_aps(const std::vector<wire::JobInfo>& jobs, const TableOptions& options);
// Pending jobs with their APS value and a column per weighted factor.
void print_prio(const std::vector<wire::JobInfo>& jobs, const TableOptions& options);
// -prio -json: one record per pending job with JOBID, USER, QUEUE, APS and each factor.
void print_prio_json(const std::vector<wire::JobInfo>& jobs);
// A bmod -aps value as given: 10 -> "10", 10.5 -> "10.5".
std::string aps_number(double v);

}  // namespace lsf::cli
