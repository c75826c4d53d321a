// lsid: the product, the cluster name and the master host. Scripts grep
// "My cluster name is" and "My master name is"; those lines are kept exactly.
#include <cstring>
#include <iostream>

#include "cli/cli_support.h"

using namespace lsf;

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "-V") == 0)) {
    std::cout << (std::strcmp(argv[1], "-h") == 0 ? "Usage: lsid [-h] [-V]\n" : "lsfsched " LSFSCHED_VERSION "\n");
    return 0;
  }
  cli::Session session("lsid");
  wire::RequestEnvelope req;
  req.mutable_cluster_info();
  const auto reply = cli::require_ok("lsid", session.call(req));
  const auto& c = reply.cluster_info();
  std::cout << "lsfsched " << c.version() << ", an LSF-compatible workload scheduler\n\n"
            << "My cluster name is " << c.cluster_name() << "\n"
            << "My master name is " << c.master_name() << "\n";
  return 0;
}
