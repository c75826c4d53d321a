// A host's status as bhosts shows it and the pass reads it. The vocabulary is
// libsched's (the pass's HostView holds it); mbatchd works a host's out when asked
// (HostTracker::status_of) from its sbatchd link, its state and the configuration,
// and does not store it.
#pragma once

#include "libsched/model/host_status.h"

namespace lsf::mbd {

using sched::HostStatus;
using sched::parse_host_status;
using sched::to_string;
using sched::unreachable;

}  // namespace lsf::mbd
