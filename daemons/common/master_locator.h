// Where mbatchd is now, for sbatchds (and anything else that can read LSB_SHAREDIR).
//
// The master's lease (master_lease.h) names the address and port of the mbatchd that
// holds the current term; after a takeover that is the new master. Without a readable
// lease, or while no term is held (released by a clean stop, or none yet), the
// configured endpoint stands: LSB_MBD_HOST, else the first master candidate.
//
// Thread: any; each call reads the lease afresh.
#pragma once

#include <filesystem>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/master_lease.h"

namespace lsf::net {

class MasterLocator {
 public:
  MasterLocator(MasterEndpoint configured, std::filesystem::path logdir)
      : configured_(std::move(configured)), lease_(std::move(logdir)) {}

  MasterEndpoint locate() const {
    MasterEndpoint e = configured_;
    auto term = lease_.current();
    if (term.ok() && term->epoch > 0 && !term->released() && !term->address.empty() && term->port != 0) {
      e.host = term->address;
      e.port = term->port;
    }
    return e;
  }

 private:
  MasterEndpoint configured_;
  MasterLease lease_;
};

}  // namespace lsf::net
