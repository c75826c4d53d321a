// The SHARE_INFO_FOR tables of bqueues -l and bhpart: one per level of a share tree.
#pragma once

#include <string>

#include "lsf.pb.h"

namespace lsf::cli {

// `root` names the tree ("normal/" for a queue, "part1/" for a host partition). Only
// the top level unless `recursive` (bhpart -r; bqueues -l prints every level).
void print_share_tables(const std::string& root,
                        const google::protobuf::RepeatedPtrField<wire::ShareAccountInfo>& accounts, bool recursive);

}  // namespace lsf::cli
