// bhosts -e and bhosts -e -s: what this cluster exports to MultiCluster consumers.
#pragma once

#include "cli/cli_support.h"

namespace lsf::cli {

// Prints the exported hosts (or, with `resources`, the exported shared resources) as a
// table or, with `json`, as JSON; returns the exit code.
int print_exports(Session& session, bool resources, bool json);

}  // namespace lsf::cli
