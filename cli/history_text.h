// Phrases LSF's long formats (bjobs -l, bhist -l, bacct -l) share about a job's
// dispatch and end, so each command words them the same.
#pragma once

#include <string>

#include <google/protobuf/repeated_ptr_field.h>

namespace lsf::cli {

// "TERM_OWNER: job killed by owner", as printed after `Completed <exit>; `; a reason
// without a known explanation is printed alone.
std::string exit_reason_explained(const std::string& reason);

// LSF 10's dispatch clause, one slot per task: "2 Task(s) on Host(s) <2*hostA> <hostB>,
// Allocated 3 Slot(s) on Host(s) <2*hostA> <hostB>" (one entry per slot in `hosts`).
std::string dispatched_text(const google::protobuf::RepeatedPtrField<std::string>& hosts);

}  // namespace lsf::cli
