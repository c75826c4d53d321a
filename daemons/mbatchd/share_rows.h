// A share tree's rows as bqueues -l and bhpart receive them.
#pragma once

#include <vector>

#include "libsched/share_accounts.h"
#include "lsf.pb.h"

namespace lsf::mbd {

inline void add_share_rows(const std::vector<sched::ShareRow>& rows,
                           google::protobuf::RepeatedPtrField<wire::ShareAccountInfo>* out) {
  for (const auto& row : rows) {
    auto* a = out->Add();
    a->set_name(row.name);
    a->set_depth(row.depth);
    a->set_group(row.group);
    a->set_shares(row.shares);
    a->set_priority(row.priority);
    a->set_started(row.started);
    a->set_reserved(row.reserved);
    a->set_cpu_time_s(row.cpu_s);
    a->set_run_time_s(row.run_s);
  }
}

}  // namespace lsf::mbd
