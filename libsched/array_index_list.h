// The index list of a job array, as bsub -J "name[1-100:2,200]" gives it: comma-separated
// `start[-end[:step]]` ranges of positive indices.
//
// MAX_JOB_ARRAY_SIZE (lsb.params) bounds both the largest index and how many indices
// the list names in all, counting repeats: a list is refused before its indices are
// made, so no submission costs more than MAX_JOB_ARRAY_SIZE steps, however written.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::sched {

// The indices in ascending order, each once; or LSF's reason for refusing the list.
config::Result<std::vector<std::int32_t>> parse_array_index_list(std::string_view list, int max_job_array_size);

}  // namespace lsf::sched
