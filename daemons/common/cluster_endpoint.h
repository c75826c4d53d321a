// Where commands and sbatchd find mbatchd, from lsf.conf as LSF reads it:
// LSF_ENVDIR (default /etc) holds lsf.conf; LSB_MBD_PORT is the port; the host is
// LSB_MBD_HOST when set, else the first host of LSF_MASTER_LIST. The local socket is
// LSB_MBD_SOCKET when set ("none": no socket), else LSB_SHAREDIR/mbatchd.<port>.sock.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "libconfig/cluster_config.h"

namespace lsf::net {

struct MasterEndpoint {
  std::string host;
  std::uint16_t port = 0;
  std::chrono::milliseconds timeout{30000};
  // mbatchd's local socket, tried first; empty when there is none.
  std::string local_socket;
};

// LSF_ENVDIR from the environment, or /etc, as LSF.
std::filesystem::path envdir_from_environment();

// Empty `error` on success.
struct EndpointResult {
  MasterEndpoint endpoint;
  std::string error;
};
EndpointResult master_endpoint(const config::LsfConf& conf);

// mbatchd's local socket path for this lsf.conf; empty when there is none.
std::string local_socket_path(const config::LsfConf& conf);
// sbatchd's local socket (LSB_SBD_SOCKET), which relays commands of the users of its
// host to mbatchd; empty when there is none.
std::string sbatchd_socket_path(const config::LsfConf& conf);

// Reads LSF_ENVDIR/lsf.conf and returns the endpoint, or an error naming the file.
EndpointResult master_endpoint_from_environment();

}  // namespace lsf::net
