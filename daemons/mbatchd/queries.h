// Queries: the requests that read what mbatchd recorded and change nothing:
// bhist and bacct, read back from lsb.events (and lsb.events.1) and lsb.acct. The
// queries answered from the state are JobQueries's and ConfigQueries's
// (job_queries.h, config_queries.h).
//
// Owns: nothing. It reads the configuration mbatchd holds (by reference to its
// pointer, so a reconfig is seen) and the log files, which the event log's writer
// thread appends to: both are append-only, so a read sees whole records up to some
// point.
// Thread: the state thread (the io_context), as the request table calls it; it takes
// no lock and touches no state the pass reads.
#pragma once

#include <memory>
#include <string>

#include "libconfig/cluster_config.h"
#include "lsf.pb.h"

namespace lsf::mbd {

class Queries {
 public:
  // `host`: this mbatchd's, which decides where its log is (duplicate_log.h).
  explicit Queries(const std::shared_ptr<const config::ClusterConfig>& config, std::string host = {});

  // bhist, badmin hist: the records of the jobs asked for (or of the user's jobs, or
  // the cluster's own events), in pages when asked.
  wire::ReplyEnvelope history(const wire::RequestEnvelope& request) const;
  // bacct: the lsb.acct records that match, in pages when asked.
  wire::ReplyEnvelope acct(const wire::RequestEnvelope& request) const;

 private:
  const std::shared_ptr<const config::ClusterConfig>& config_;
  std::string host_;
};

}  // namespace lsf::mbd
