// rpc_probe: sends mbatchd what only an sbatchd should, over the local socket as the
// calling user, and prints the answer: for tests that a local user cannot pose as a
// daemon (repoint a host, end someone's job).
//
//   rpc_probe register-host HOST PORT    claim HOST is served at 127.0.0.1:PORT
//   rpc_probe job-finish HOST JOBID      report job JOBID ended with exit code 0
//   rpc_probe job-input JOBID TEXT       type TEXT into job JOBID's terminal (as bsub -Ip)
//
// And sends an sbatchd, signed with the cluster key (root), what mbatchd would send
// were it to reach the wrong sbatchd, or for another run of a job:
//   rpc_probe sbatchd-start PORT SBD_HOST JOB_HOST FILE     a job, for JOB_HOST, that creates FILE
//   rpc_probe sbatchd-kill PORT SBD_HOST JOB_HOST JOBID ATTEMPT
// and mbatchd, over TCP, a load report of HOST from a clock SECONDS behind this one's
// (signed at that time too):
//   rpc_probe clock-report HOST SECONDS
#include <cstdlib>
#include <iostream>
#include <string>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/daemon_config.h"
#include "daemons/common/frame.h"
#include "daemons/common/request_auth.h"
#include "daemons/common/rpc_client.h"

using namespace lsf;

namespace {

// "accepted", or the daemon's refusal, or the transport error; the exit status.
int print_result(const net::CallResult& result) {
  if (!result.reply) {
    std::cerr << result.error << "\n";
    return 1;
  }
  std::cout << (result.ok() ? "accepted" : result.reply->message()) << "\n";
  return result.ok() ? 0 : 1;
}

int to_sbatchd(int argc, char** argv) {
  const std::string what = argv[1];
  if ((what == "sbatchd-start" && argc != 6) || (what == "sbatchd-kill" && argc != 7)) {
    std::cerr << "usage: rpc_probe sbatchd-start PORT SBD_HOST JOB_HOST FILE | sbatchd-kill PORT SBD_HOST JOB_HOST "
                 "JOBID ATTEMPT\n";
    return 2;
  }
  const auto envdir = net::daemon_envdir("");
  auto loaded = net::load_daemon_config("rpc_probe", envdir);
  if (!loaded.usable()) return 2;
  auto auth = net::daemon_auth(envdir, loaded.config->lsf_conf);
  if (!auth.error.empty() || !auth.key) {
    std::cerr << "rpc_probe: no cluster key: " << auth.error << "\n";
    return 2;
  }
  wire::RequestEnvelope req;
  *req.mutable_caller() = net::current_identity();
  if (what == "sbatchd-start") {
    auto* l = req.mutable_start_jobs()->add_launches();
    l->set_job_id(990001);
    l->set_user(req.caller().user_name());
    l->add_exec_hosts(argv[4]);
    l->set_attempt(1);
    l->mutable_spec()->set_command(std::string("touch ") + argv[5]);
    l->mutable_spec()->set_out_file("/dev/null");
  } else {
    auto* s = req.mutable_signal_job();
    s->set_job_id(std::atoll(argv[5]));
    s->set_signal(9);
    s->set_host_name(argv[4]);
    s->set_attempt(std::atoi(argv[6]));
  }
  net::RpcClient client("127.0.0.1", static_cast<std::uint16_t>(std::atoi(argv[2])), std::chrono::seconds(10));
  client.set_key(*auth.key, std::string("sbatchd@") + argv[3]);
  auto result = client.call(req);
  return print_result(result);
}

int clock_report(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: rpc_probe clock-report HOST SECONDS\n";
    return 2;
  }
  const auto envdir = net::daemon_envdir("");
  auto loaded = net::load_daemon_config("rpc_probe", envdir);
  if (!loaded.usable()) return 2;
  auto auth = net::daemon_auth(envdir, loaded.config->lsf_conf);
  auto ep = net::master_endpoint(loaded.config->lsf_conf);
  if (!auth.key || !ep.error.empty()) {
    std::cerr << "rpc_probe: no cluster key or master: " << auth.error << ep.error << "\n";
    return 2;
  }
  const std::int64_t behind = std::atoll(argv[3]);
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  wire::RequestEnvelope req;
  req.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  *req.mutable_caller() = net::current_identity();
  req.mutable_load_report()->set_host_name(argv[2]);
  req.mutable_load_report()->set_clock_ms(now_ms - behind * 1000);
  net::sign_request(req, *auth.key, now_ms / 1000 - behind, "mbatchd", "");
  net::RpcClient client(ep.endpoint.host, ep.endpoint.port, ep.endpoint.timeout);
  auto result = client.call_raw(net::encode_frame(req));
  return print_result(result);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]).rfind("sbatchd-", 0) == 0) return to_sbatchd(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "clock-report") return clock_report(argc, argv);
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
  // RPC_PROBE_SOCKET: another local socket (sbatchd's, which relays to mbatchd).
  const char* socket = std::getenv("RPC_PROBE_SOCKET");
  client.set_local_socket(socket ? socket : ep.endpoint.local_socket);
  auto result = client.call(req);
  return print_result(result);
}
