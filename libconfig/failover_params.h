// Who may be master and how fast a candidate takes over, from the configuration as
// LSF names it: LSF_MASTER_LIST (lsf.conf), else the server hosts of
// lsf.cluster.<name> in file order; the LIM parameters of lsf.cluster's Parameters
// section for the timing.
//
// A candidate takes over after (HOST_INACTIVITY_LIMIT + position *
// MASTER_INACTIVITY_LIMIT) * EXINTERVAL of silence from the master, as LSF's LIM
// reckons it, where position is the candidate's place in the list (0: first). LSF's
// defaults (EXINTERVAL 15 s, 5, 2) make that 105 s for the first backup; the master's
// lease here is a file renewed each EXINTERVAL, cheap enough to renew each second, so
// the defaults are EXINTERVAL 1 s, 2 and 1: 3 s for the first backup. A site that sets
// LSF's values gets LSF's timing.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "libconfig/cluster_config.h"

namespace lsf::config {

struct FailoverTiming {
  std::chrono::milliseconds exchange_interval{1000};  // EXINTERVAL: the master renews its lease this often
  int host_inactivity_limit = 2;                      // HOST_INACTIVITY_LIMIT
  int master_inactivity_limit = 1;                    // MASTER_INACTIVITY_LIMIT
  std::chrono::milliseconds probe_timeout{1000};      // PROBE_TIMEOUT: a probe of the master gives up after

  // How long the candidate at `position` waits after the master's last renewal.
  std::chrono::milliseconds takeover_after(int position) const {
    return (host_inactivity_limit + position * master_inactivity_limit) * exchange_interval;
  }
};

// From lsf.cluster's Parameters; values the parser refused keep their defaults.
FailoverTiming failover_timing(const ClusterConfig& config);

// The master candidates in order of preference.
std::vector<std::string> master_candidates(const ClusterConfig& config);

// The error for a value of one of the timing keys, or empty when it is one: each is
// a whole number of seconds (or times EXINTERVAL) from 1 to 3600.
std::string check_failover_param(const std::string& key, const std::string& value);

}  // namespace lsf::config
