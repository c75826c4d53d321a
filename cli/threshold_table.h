// The loadSched/loadStop table of bqueues -l and bjobs -l ("SCHEDULING PARAMETERS"),
// laid out as LSF lays it out: the eleven built-in indices in LSF's order and column
// widths, `-` where a side is not set, then the other indices in further tables of
// at most 80 columns.
#pragma once

#include <ostream>

#include "lsf.pb.h"

namespace lsf::cli {

void print_threshold_table(std::ostream& out,
                           const google::protobuf::RepeatedPtrField<wire::LoadThresholdInfo>& thresholds);

}  // namespace lsf::cli
