// Recovery: the cluster's state as the log directory holds it, read before mbatchd
// serves anything. A function of the directory, the state and the configuration, so it
// runs (and is tested) without a daemon; EventLogCore (event_log_core.h) calls it at
// start and logs what it found.
//
// The contract, in the order it reads:
//   1. The log directory is made (0700) when missing; lsb.jobid is read.
//   2. lsb.snapshot, when there is one, is loaded whole: it is written atomically, so a
//      partial one is an error, not a torn write. Its term (epoch) is the newest so far.
//   3. lsb.events is replayed from the first record after the snapshot's sequence
//      number (a crash during a rotation replays nothing twice). A record of an older
//      master term than one already read is a late write of a master that had been
//      superseded, never acknowledged: it is skipped and counted. Any other record is
//      applied; one the state refuses stops recovery.
//   4. A partial last record (a torn write at a crash) is dropped with a warning;
//      `valid_bytes` is where the writer cuts the file before appending. A bad record
//      with data after it is damage: recovery fails and names `mbatchd --salvage`.
//   5. The next job id is raised to lsb.jobid's mark: ids handed out before records
//      were lost (a salvage, a cut at a full disk) are not given again.
//   6. When the snapshot carried no runtime history (there was none, or it was written
//      by a version before RUNTIME_ESTIMATE = PREDICT), the history is rebuilt from the
//      last kAcctHistoryBytes of lsb.acct: it holds every job that ended, the ones the
//      replay saw too, in the order they ended. A site upgrading keeps its users'
//      predictions, and a damaged lsb.acct costs predictions only, never the start.
//   7. The state is brought in line with the configuration in force (sync_config).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "daemons/common/status.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/job_id_mark.h"
#include "libconfig/cluster_config.h"

namespace lsf::mbd {

struct RecoveryResult {
  std::uint64_t snapshot_jobs = 0;    // jobs lsb.snapshot held
  std::uint64_t replayed = 0;         // records of lsb.events applied after it
  std::uint64_t superseded = 0;       // records of an older term skipped (step 3)
  std::int64_t newest_epoch = 0;      // the newest master term read; 0: none recorded
  std::uint64_t valid_bytes = 0;      // of lsb.events: just past its last whole record
  bool torn_tail = false;             // a partial last record was dropped
  JobIdMark job_ids{""};              // lsb.jobid as read: submissions move it on
  std::uint64_t acct_runtimes = 0;    // finished jobs read from lsb.acct (step 6)
  std::vector<std::string> warnings;  // for the daemon's log, one line each
  std::chrono::milliseconds took{0};
};

// Enough of lsb.acct for tens of thousands of finished jobs: only each user's last two
// count, and reading the whole of a years-old file would slow every start.
inline constexpr std::uint64_t kAcctHistoryBytes = 16u << 20;

// The state recovered from `logdir` into `state` (which holds nothing recovered yet);
// else why mbatchd must not start. On failure `state` is half loaded and not to be used.
daemon::Result<RecoveryResult> recover_state(const std::filesystem::path& logdir, ClusterState& state,
                                             const config::ClusterConfig& config, const ConfigIndex& index);

}  // namespace lsf::mbd
