// Switching the master role back. A candidate that comes back after a takeover does not
// displace a live master by itself (master_watch.h); an administrator hands the role back
// with badmin mbdrestart on the master: when a candidate before this host in
// LSF_MASTER_LIST has its sbatchd up, this mbatchd releases its term and exits instead of
// restarting, and that candidate, the first in list order whose watch sees the released
// lease, starts the next master on its host.
#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/failover_params.h"

namespace lsf::mbd {

std::string Mbatchd::switch_back_target() const {
  if (!options_.role) return {};
  for (const auto& candidate : config::master_candidates(*config_)) {
    if (candidate == options_.host_name) return {};  // this host is the first one up
    if (!unreachable(hosts_.status_of(candidate))) return candidate;
  }
  return {};  // this host is not a candidate (a master started by hand)
}

}  // namespace lsf::mbd
