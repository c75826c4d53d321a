// Guarantee pools as bresources -g and bsla print them (text and -json).
#pragma once

#include <ostream>

#include "lsf.pb.h"

namespace lsf::cli {

// bresources -g: one line per pool; `long_form` (-l) a block per pool, with its hosts
// (-m) when `hosts`.
void print_guarantee_pools(std::ostream& out, const wire::GuaranteePoolsReply& reply, bool long_form, bool hosts);
void print_guarantee_pools_json(std::ostream& out, const wire::GuaranteePoolsReply& reply);

// bsla: a block per guarantee service class with its pools.
void print_service_classes(std::ostream& out, const wire::GuaranteePoolsReply& reply);
void print_service_classes_json(std::ostream& out, const wire::GuaranteePoolsReply& reply);

}  // namespace lsf::cli
