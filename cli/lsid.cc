// lsid: the product, the cluster name and the master host. Scripts grep
// "My cluster name is" and "My master name is"; those lines are kept exactly, and read
// the LSF level from the first line (see version_text).
#include <cstring>
#include <iostream>
#include <string_view>

#include "cli/cli_support.h"

using namespace lsf;

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "-V") == 0)) {
    if (std::strcmp(argv[1], "-h") == 0)
      std::cout << "Usage: lsid [-h] [-V]\n";
    else
      std::cerr << cli::version_text();
    return 0;
  }
  cli::Session session("lsid");
  wire::RequestEnvelope req;
  req.mutable_cluster_info();
  const auto reply = cli::require_ok("lsid", session.call(req));
  const auto& c = reply.cluster_info();
  // The daemon's version is the one that counts, and it may differ from this command's.
  std::string text = cli::version_text();
  if (c.version() != LSFSCHED_VERSION) {
    auto at = text.find(LSFSCHED_VERSION);
    text.replace(at, std::string_view(LSFSCHED_VERSION).size(), c.version());
  }
  std::cout << text << "\n"
            << "My cluster name is " << c.cluster_name() << "\n"
            << "My master name is " << c.master_name() << "\n";
  return 0;
}
