// A Limit section as lsb.resources writes it (blimits -c, bresources), and amounts as
// both print them (4096, 0.5).
#pragma once

#include <string>

#include "lsf.pb.h"

namespace lsf::cli {

void print_limit_config(const wire::LimitInfo& limit);
std::string limit_amount(double v);

}  // namespace lsf::cli
