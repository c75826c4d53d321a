// Users' commands on an execution host reach mbatchd through that host's sbatchd, as
// LSF's do through its daemons: a user cannot read the cluster key, and mbatchd's own
// local socket is on the master only. sbatchd takes the command on its local socket,
// where the kernel names the caller, and forwards it signed with the key, marked as
// relayed so that mbatchd serves it as that user's and never as a daemon's.
//
// Calls to mbatchd block, so they run on a small pool of their own: a slow master
// must not stall the jobs this sbatchd runs. With master failover each command goes to
// the master the lease names when it is forwarded (master_locator.h).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/rpc_server.h"
#include "lsf.pb.h"

namespace lsf::sbd {

class CommandRelay {
 public:
  using Post = std::function<void(std::function<void()>)>;

  using Locate = std::function<net::MasterEndpoint()>;

  // `post` runs a callback on the thread that owns the connections (replies go back
  // there); `host_name` is this sbatchd's host; `locate`, when given, says where the
  // master is now (called on the relay's pool), else `master` stands.
  CommandRelay(net::MasterEndpoint master, std::optional<net::ClusterKey> key, bool trust_unsigned,
               std::string host_name, Post post, Locate locate = {});
  ~CommandRelay();
  CommandRelay(const CommandRelay&) = delete;
  CommandRelay& operator=(const CommandRelay&) = delete;

  // `request` came over the local socket: its caller is the kernel's.
  void forward(wire::RequestEnvelope request, net::Responder respond);

 private:
  net::MasterEndpoint master_;
  std::optional<net::ClusterKey> key_;
  bool trust_unsigned_;
  std::string host_name_;
  Post post_;
  Locate locate_;
  net::asio::thread_pool pool_{2};
};

}  // namespace lsf::sbd
