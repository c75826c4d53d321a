// mbatchd's request handling, in-process: each input is one request as mbatchd's RPC
// server hands it to the daemon, after it has settled who is asking. A real Mbatchd
// serves a small cluster (three hosts, four queues, two application profiles, a limit)
// from a temporary directory, with the event log's fdatasync a no-op. No sbatchd runs:
// hosts are unavailable unless a request registers one, at an address that refuses
// every connection, so calls to hosts fail at once instead of waiting.
//
// Input: one byte that says who is asking, then a serialized RequestEnvelope.
//   bits 0-1: alice (uid 1000), bob (1001), lsfadmin (1002, a ClusterAdmin), root (0);
//   bit 2:    a caller holding the cluster key (a daemon, an admin command over TCP):
//             the request's own caller is believed and daemon-only requests are served.
//             Without it, a local-socket caller: the chosen user replaces what the
//             request claims, as the kernel's credentials do.
//
// Checked beyond "no crash, no leak, no UB, < 1 s": every request gets exactly one
// reply, and what the server would write reads back as a ReplyEnvelope.
//
// State carries over from input to input, as in a running daemon; every fresh daemon
// starts with a few jobs (ids 1-4) for kill, bmod, bswitch and the rest to find. It is
// made afresh (empty log) once it holds more than kMaxJobs jobs, and from its own log
// (recovery) when a request stopped it (badmin mbdrestart).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <google/protobuf/stubs/logging.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>

#include "daemons/common/asio.h"
#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"

namespace lsf::mbd {

// Reaches what the RPC server and run() use (a friend of Mbatchd, for this harness only).
struct MbatchdFuzzAccess {
  static void handle(Mbatchd& m, wire::RequestEnvelope& r, const net::Peer& peer, const net::Responder& respond) {
    m.handle(r, peer, respond);
  }
  static net::asio::io_context& io(Mbatchd& m) { return m.io_; }
  static EventLogWriter& event_log(Mbatchd& m) { return *m.event_log_; }
  static std::size_t jobs(const Mbatchd& m) { return m.state_.jobs().size(); }
};

}  // namespace lsf::mbd

namespace {

namespace fs = std::filesystem;
using lsf::mbd::MbatchdFuzzAccess;

// Past this many jobs (array elements count one each) the daemon starts over empty:
// memory stays bounded and passes stay well under a second.
constexpr std::size_t kMaxJobs = 3000;
// How long a request may take to be answered; past it the harness reports no reply.
constexpr std::chrono::seconds kReplyWait{5};

struct User {
  const char* name;
  std::uint32_t uid;
};
constexpr User kUsers[] = {{"alice", 1000}, {"bob", 1001}, {"lsfadmin", 1002}, {"root", 0}};

// The quickstart cluster's shape (conf-examples/quickstart), with an LSF administrator
// besides root, queue administrators, user groups, application profiles and a limit.
const std::pair<const char*, const char*> kConfigFiles[] = {
    {"conf/lsf.conf",
     "LSF_CONFDIR=.\nLSB_CONFDIR=lsbatch\nLSB_SHAREDIR=../work\nLSF_LOGDIR=../log\nLSF_UNIT_FOR_LIMITS=MB\n"
     "LSF_MASTER_LIST=\"hostA\"\n"},
    {"conf/lsf.shared",
     "Begin Cluster\nClusterName\nfuzz\nEnd Cluster\n\n"
     "Begin HostType\nTYPENAME\nLINUX64\nEnd HostType\n\n"
     "Begin HostModel\nMODELNAME CPUFACTOR ARCHITECTURE\nGeneric 1.0 (x86_64)\nEnd HostModel\n\n"
     "Begin Resource\nRESOURCENAME TYPE INTERVAL INCREASING DESCRIPTION\n"
     "bigmem Boolean () () (Host with a lot of memory)\n"
     "licA Numeric () N (Floating licence A)\nEnd Resource\n"},
    {"conf/lsf.cluster.fuzz",
     "Begin ClusterAdmins\nAdministrators = root lsfadmin\nEnd ClusterAdmins\n\n"
     "Begin Host\nHOSTNAME model type server r1m RESOURCES\n"
     "hostA Generic LINUX64 1 - ()\nhostB Generic LINUX64 1 - ()\nhostC Generic LINUX64 1 - (bigmem)\nEnd Host\n\n"
     "Begin ResourceMap\nRESOURCENAME LOCATION\nlicA (4@[all])\nEnd ResourceMap\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.params",
     "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 10\nSBD_SLEEP_TIME = 7\nJOB_ACCEPT_INTERVAL = 0\n"
     "MAX_JOB_ARRAY_SIZE = 100\nMAX_USER_PRIORITY = 100\nMAX_JOB_NUM = 200\nCLEAN_PERIOD = 60\nEnd Parameters\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.queues",
     "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nDESCRIPTION = every host\nEnd Queue\n\n"
     "Begin Queue\nQUEUE_NAME = short\nPRIORITY = 40\nRUNLIMIT = 10\nUJOB_LIMIT = 4\nADMINISTRATORS = bob\n"
     "REQUEUE_EXIT_VALUES = 42\nEnd Queue\n\n"
     "Begin Queue\nQUEUE_NAME = night\nPRIORITY = 20\nRUN_WINDOW = 20:00-8:00 5:19:00-1:8:00\nHOSTS = hostB hostC\n"
     "EXCLUSIVE = Y\nEnd Queue\n\n"
     "Begin Queue\nQUEUE_NAME = share\nPRIORITY = 10\nFAIRSHARE = USER_SHARES[[alice, 3] [default, 1]]\n"
     "RES_REQ = select[type==any]\nEnd Queue\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.hosts",
     "Begin Host\nHOST_NAME MXJ JL/U r1m DISPATCH_WINDOW\ndefault 4 () () ()\nEnd Host\n\n"
     "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nallhosts (hostA hostB hostC)\nEnd HostGroup\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.users",
     "Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nstaff (all)\ndevs (alice bob)\nEnd UserGroup\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.resources",
     "Begin Limit\nNAME = per_user\nPER_USER = all\nSLOTS = 6\nEnd Limit\n"},
    {"conf/lsbatch/fuzz/configdir/lsb.applications",
     "Begin Application\nNAME = fluent\nPROCLIMIT = 1 2 3\nRES_REQ = span[hosts=1]\nEnd Application\n\n"
     "Begin Application\nNAME = rerun\nRERUNNABLE = Y\nEnd Application\n"},
};

// FUZZ_REQUEST_VERBOSE=1: each request and its reply on stderr, to see what an input does.
bool verbose() {
  static const bool on = std::getenv("FUZZ_REQUEST_VERBOSE") != nullptr;
  return on;
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_request: %s\n", why.c_str());
  std::abort();
}

// A TCP port on 127.0.0.1 that refuses connections: bound, never listened on, held for
// the life of the process so nothing else takes it.
class RefusingPort {
 public:
  RefusingPort() {
    socket_.open(lsf::net::tcp::v4());
    socket_.bind({lsf::net::asio::ip::make_address("127.0.0.1"), 0});
  }
  std::uint16_t port() const { return socket_.local_endpoint().port(); }

 private:
  lsf::net::asio::io_context io_;
  lsf::net::tcp::socket socket_{io_};
};

// One mbatchd and the directory it lives in.
class Harness {
 public:
  Harness() {
    char templ[] = "/tmp/fuzz-request.XXXXXX";
    if (!mkdtemp(templ)) fail("cannot make a temporary directory");
    dir_ = templ;
    for (const auto& [name, text] : kConfigFiles) {
      fs::create_directories((dir_ / name).parent_path());
      std::ofstream(dir_ / name) << text;
    }
    log_ = std::make_shared<spdlog::logger>("mbatchd", std::make_shared<spdlog::sinks::null_sink_mt>());
    start(/*fresh=*/true);
  }
  ~Harness() {
    mbd_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // Serves one request as the RPC server would, checks its reply, and makes the daemon
  // afresh when it stopped or grew past kMaxJobs.
  void serve(lsf::wire::RequestEnvelope& request, const lsf::net::Peer& peer) {
    serve_one(request, peer);
    auto& io = MbatchdFuzzAccess::io(*mbd_);
    if (mbd_->restart_requested() || mbd_->event_log_failed() || io.stopped()) {
      // badmin mbdrestart, or a failed write: let stop() finish as run() would, then
      // recover from the log as main.cc does (after a failed write, --fresh-snapshot).
      const bool log_failed = mbd_->event_log_failed();
      const auto deadline = std::chrono::steady_clock::now() + kReplyWait;
      while (!io.stopped() && std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(10));
      start(/*fresh=*/false, /*fresh_snapshot=*/log_failed);
    } else if (MbatchdFuzzAccess::jobs(*mbd_) > kMaxJobs) {
      start(/*fresh=*/true);
    }
  }

  std::uint16_t refusing_port() const { return refusing_.port(); }

 private:
  void serve_one(lsf::wire::RequestEnvelope& request, const lsf::net::Peer& peer) {
    const auto kind = request.request_case();
    auto replies = std::make_shared<int>(0);
    const lsf::net::Responder respond = [replies](lsf::wire::ReplyEnvelope reply) {
      if (++*replies > 1) fail("a second reply to one request: " + reply.ShortDebugString());
      // What the server writes, the command reads.
      std::string bytes;
      lsf::wire::ReplyEnvelope back;
      if (!reply.SerializeToString(&bytes) || !back.ParseFromString(bytes))
        fail("a reply that does not read back: " + reply.ShortDebugString());
      if (verbose()) std::fprintf(stderr, "  -> %s\n", reply.ShortDebugString().c_str());
    };
    if (verbose()) std::fprintf(stderr, "request: %s\n", request.ShortDebugString().c_str());
    MbatchdFuzzAccess::handle(*mbd_, request, peer, respond);

    // Until the reply has come and everything the request appended to the event log is
    // durable (its callbacks have run), then until nothing is left ready to run.
    auto& io = MbatchdFuzzAccess::io(*mbd_);
    auto durable = std::make_shared<bool>(false);
    MbatchdFuzzAccess::event_log(*mbd_).when_durable([durable](bool) { *durable = true; });
    const auto deadline = std::chrono::steady_clock::now() + kReplyWait;
    while (!io.stopped() && !(*durable && *replies > 0) && std::chrono::steady_clock::now() < deadline)
      io.run_one_for(std::chrono::milliseconds(10));
    while (!io.stopped() && io.poll() > 0) {
    }
    if (*replies == 0)
      fail("no reply within " + std::to_string(kReplyWait.count()) + " s to a request of kind " +
           std::to_string(static_cast<int>(kind)));
  }

  // A daemon on the configuration; `fresh`: with an empty log and the first jobs.
  void start(bool fresh, bool fresh_snapshot = false) {
    mbd_.reset();
    if (fresh) {
      std::error_code ec;
      fs::remove_all(dir_ / "work", ec);
    }
    lsf::config::LoadOptions lo;
    lo.envdir = dir_ / "conf";
    lo.now = lsf::config::local_week_instant();
    auto loaded = lsf::config::load_cluster_config(lo);
    if (!loaded.usable()) fail("the cluster's configuration does not load:\n" + loaded.diagnostics.to_string());
    lsf::mbd::MbatchdOptions o;
    o.envdir = lo.envdir;
    o.config = loaded.config;
    o.host_name = "hostA";
    o.listen_address = "127.0.0.1";  // no key, no LSF_AUTH=none: its port serves nobody
    o.log = log_;
    o.fresh_snapshot = fresh_snapshot;
    o.event_log.ops.fdatasync = [](int) { return 0; };
    mbd_ = std::make_unique<lsf::mbd::Mbatchd>(std::move(o));
    if (auto st = mbd_->recover(); !st.ok()) fail("cannot recover: " + st.message());
    if (auto st = mbd_->start(); !st.ok()) fail("cannot start: " + st.message());
    if (!fresh) return;
    // Jobs 1-4 for the requests that name jobs.
    auto submit = [&](const User& u, auto fill) {
      lsf::wire::RequestEnvelope r;
      r.set_protocol_version(lsf::wire::PROTOCOL_VERSION_CURRENT);
      r.mutable_caller()->set_uid(u.uid);
      r.mutable_caller()->set_user_name(u.name);
      auto* spec = r.mutable_submit()->mutable_spec();
      fill(*spec);
      serve_one(r, lsf::net::Peer{});
    };
    submit(kUsers[0], [](lsf::wire::JobSpec& s) { s.set_command("sleep 100"); });
    submit(kUsers[1], [](lsf::wire::JobSpec& s) {
      s.set_command("make -j4");
      s.set_job_name("build");
      s.add_queues("short");
    });
    submit(kUsers[0], [](lsf::wire::JobSpec& s) {
      s.set_command("./run.sh $LSB_JOBINDEX");
      s.set_job_name("arr");
      s.set_array_spec("1-5");
      s.set_array_limit(2);
    });
    submit(kUsers[2], [](lsf::wire::JobSpec& s) {
      s.set_command("sleep 1");
      s.set_hold(true);
      s.set_job_group("/fuzz/a");
      s.set_project("chem");
      s.set_dependency("done(1)");
    });
  }

  fs::path dir_;
  std::shared_ptr<spdlog::logger> log_;
  RefusingPort refusing_;
  std::unique_ptr<lsf::mbd::Mbatchd> mbd_;
};

Harness& harness() {
  static Harness h;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Strings that are not UTF-8 make a request unparsable; protobuf need not say so each time.
  google::protobuf::SetLogHandler(nullptr);
  harness();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lsf;
  if (size < 1) return 0;
  wire::RequestEnvelope request;
  if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  // What the server refuses before mbatchd sees it; any version reaches the handler here.
  if (request.request_case() == wire::RequestEnvelope::REQUEST_NOT_SET) return 0;
  request.set_protocol_version(wire::PROTOCOL_VERSION_CURRENT);
  request.clear_auth();  // checked and cleared by the server

  net::Peer peer;
  const User& user = kUsers[data[0] & 3];
  if (data[0] & 4) {
    peer.kind = net::PeerKind::kClusterKey;
  } else {
    peer.kind = net::PeerKind::kLocalUser;
    auto* caller = request.mutable_caller();
    caller->set_uid(user.uid);
    caller->set_gid(user.uid);
    caller->set_user_name(user.name);
  }
  Harness& h = harness();
  if (request.has_register_host()) {
    // Where mbatchd then calls this host: at once refused, never a wait.
    request.mutable_register_host()->set_address("127.0.0.1");
    request.mutable_register_host()->set_port(h.refusing_port());
  }
  h.serve(request, peer);
  return 0;
}
