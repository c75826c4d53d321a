// wire_probe: what a network client sends that the commands never would, for tests
// that a daemon stays up and answers the truth.
//
//   wire_probe idle PORT N SECONDS    open N TCP connections, send nothing, hold them
//                                      SECONDS; prints how many opened
//   wire_probe claim PORT BYTES       send a frame header naming BYTES and no body;
//                                      prints the daemon's answer
//   wire_probe capture FILE           sign a ping to mbatchd with the cluster key
//                                      (LSF_ENVDIR/lsf.sudoers), save the frame to FILE
//   wire_probe replay PORT FILE       send FILE's frame as it is; prints the answer
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/frame.h"
#include "daemons/common/request_auth.h"
#include "daemons/common/rpc_client.h"

using namespace lsf;

namespace {

int open_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

// Sends `bytes` and prints the message of the reply frame (or that the daemon closed
// the connection without one).
int exchange(int port, const std::string& bytes) {
  int fd = open_to(port);
  if (fd < 0) {
    std::cout << "cannot connect\n";
    return 1;
  }
  if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    std::cout << "cannot send\n";
    return 1;
  }
  std::string in;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 15000) <= 0) break;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
    if (in.size() >= 4) {
      net::FrameHeader h{};
      std::copy(in.begin(), in.begin() + 4, h.begin());
      if (in.size() >= 4 + net::decode_frame_length(h)) break;
    }
  }
  ::close(fd);
  wire::ReplyEnvelope reply;
  if (in.size() < 4 || !reply.ParseFromArray(in.data() + 4, static_cast<int>(in.size() - 4))) {
    std::cout << "closed without a reply\n";
    return 1;
  }
  std::cout << (reply.status() == wire::STATUS_OK ? std::string("accepted") : reply.message()) << "\n";
  return reply.status() == wire::STATUS_OK ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "idle" && argc == 5) {
    const int port = std::atoi(argv[2]), n = std::atoi(argv[3]), seconds = std::atoi(argv[4]);
    std::vector<int> fds;
    for (int i = 0; i < n; ++i)
      if (int fd = open_to(port); fd >= 0) fds.push_back(fd);
    std::cout << "opened " << fds.size() << std::endl;
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    for (int fd : fds) ::close(fd);
    return 0;
  }
  if (what == "claim" && argc == 4) {
    const auto n = static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10));
    std::string header{static_cast<char>(n >> 24), static_cast<char>((n >> 16) & 0xff),
                       static_cast<char>((n >> 8) & 0xff), static_cast<char>(n & 0xff)};
    return exchange(std::atoi(argv[2]), header);
  }
  if (what == "capture" && argc == 3) {
    auto key = net::load_cluster_key(net::envdir_from_environment());
    if (!key.key) {
      std::cerr << "wire_probe: no cluster key: " << key.error << "\n";
      return 2;
    }
    wire::RequestEnvelope req;
    req.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
    *req.mutable_caller() = net::current_identity();
    req.mutable_jobs();
    net::sign_request(req, *key.key, static_cast<std::int64_t>(std::time(nullptr)), "mbatchd");
    std::ofstream(argv[2], std::ios::binary) << net::encode_frame(req);
    return 0;
  }
  if (what == "replay" && argc == 4) {
    std::ifstream in(argv[3], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return exchange(std::atoi(argv[2]), ss.str());
  }
  std::cerr << "usage: wire_probe idle PORT N SECONDS | claim PORT BYTES | capture FILE | replay PORT FILE\n";
  return 2;
}
