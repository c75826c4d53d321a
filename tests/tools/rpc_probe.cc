// rpc_probe: sends mbatchd what only an sbatchd should, over the local socket as the
// calling user, and prints the answer: for tests that a local user cannot pose as a
// daemon (repoint a host, end someone's job).
//
//   rpc_probe register-host HOST PORT    claim HOST is served at 127.0.0.1:PORT
//   rpc_probe job-finish HOST JOBID      report job JOBID ended with exit code 0
//   rpc_probe job-input JOBID TEXT       type TEXT into job JOBID's terminal (as bsub -Ip)
#include <cstdlib>
#include <iostream>
#include <string>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/rpc_client.h"

using namespace lsf;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: rpc_probe register-host HOST PORT | job-finish HOST JOBID | job-input JOBID TEXT\n";
    return 2;
  }
  const std::string what = argv[1];
  auto ep = net::master_endpoint_from_environment();
  if (!ep.error.empty()) {
    std::cerr << ep.error << "\n";
    return 2;
  }
  wire::RequestEnvelope req;
  *req.mutable_caller() = net::current_identity();
  if (what == "register-host") {
    auto* r = req.mutable_register_host();
    r->set_host_name(argv[2]);
    r->set_address("127.0.0.1");
    r->set_port(static_cast<std::uint32_t>(std::atoi(argv[3])));
  } else if (what == "job-finish") {
    auto* s = req.mutable_job_status();
    s->set_host_name(argv[2]);
    s->set_job_id(std::atoll(argv[3]));
    s->set_event(wire::JOB_EVENT_FINISH);
  } else if (what == "job-input") {
    req.mutable_job_input()->mutable_job()->set_job_id(std::atoll(argv[2]));
    req.mutable_job_input()->set_data(argv[3]);
  } else {
    std::cerr << "rpc_probe: unknown request " << what << "\n";
    return 2;
  }
  net::RpcClient client(ep.endpoint.host, ep.endpoint.port, ep.endpoint.timeout);
  client.set_local_socket(ep.endpoint.local_socket);
  auto result = client.call(req);
  if (!result.reply) {
    std::cerr << result.error << "\n";
    return 1;
  }
  std::cout << (result.ok() ? "accepted" : result.reply->message()) << "\n";
  return result.ok() ? 0 : 1;
}
