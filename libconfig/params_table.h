// lsb.params as bparams -a shows it: every parameter this scheduler reads, by LSF's
// name, with the value in force (the file's or the default), then the parameters it
// accepts without acting on them, as written.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "libconfig/cluster_config.h"

namespace lsf::config {

std::vector<std::pair<std::string, std::string>> param_values(const BatchParams& params);

}  // namespace lsf::config
