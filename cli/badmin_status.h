// badmin subcommands that ask mbatchd about itself: mbdrestart, hist, showstatus,
// perfmon.
#pragma once

#include <string>
#include <vector>

namespace lsf::cli {

int mbdrestart(const std::vector<std::string>& args);
int hist(const std::vector<std::string>& args);
int showstatus(const std::vector<std::string>& args);
int perfmon(const std::vector<std::string>& args);

}  // namespace lsf::cli
