// bjobs -o: LSF's job field names, aliases and recommended widths, and each field's value
// for a job as mbatchd reports it. Names and widths follow LSF 10.1's bjobs -o table;
// fields for features this scheduler does not have (GPUs, data staging, ...) are left
// out rather than printed empty, so a script asking for one gets a clear error.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "cli/output_format.h"
#include "lsf.pb.h"

namespace lsf::cli {

std::span<const FieldDef> job_fields();

// The value of field `column.field` (an index into job_fields()); empty when the job has
// none. `now` dates RUN_TIME and PEND_TIME of unfinished jobs.
std::string job_field_value(const wire::JobInfo& job, const Column& column, std::int64_t now);

// The hosts of a job as -w and -o print them: one name per slot, ':'-joined.
std::string joined_hosts(const wire::JobInfo& job);

}  // namespace lsf::cli
