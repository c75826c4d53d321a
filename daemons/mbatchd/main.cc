// mbatchd: the master batch daemon.
//
//   mbatchd [--envdir DIR] [--host-name NAME] [--listen ADDR] [--daemon] [-C]
//   mbatchd --salvage    keep lsb.events up to damage in its middle, move the rest aside
//   mbatchd --fresh-snapshot   (what mbatchd restarts itself with after a failed write)
//   mbatchd --takeover TERM   (what a master candidate's sbatchd starts it with: TERM's lease is still)
//
// Reads LSF_ENVDIR/lsf.conf (LSF_ENVDIR from the environment, default /etc), recovers
// state from LSB_SHAREDIR/<cluster>/logdir and serves LSB_MBD_PORT. SIGTERM stops it
// cleanly; running jobs go on under their sbatchds. Before it reads the log it takes
// the next master term (master_role.h); it exits with status 3 when it had to step
// down because another master took a later one.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>
#include <vector>

#include <boost/program_options.hpp>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/daemon_config.h"
#include "daemons/common/daemon_log.h"
#include "daemons/common/daemon_process.h"
#include "daemons/common/host_names.h"
#include "daemons/mbatchd/duplicate_log.h"
#include "daemons/mbatchd/event_log_salvage.h"
#include "daemons/mbatchd/master_role.h"
#include "daemons/mbatchd/mbatchd.h"
#include "libconfig/config_loader.h"
#include "libconfig/failover_params.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  po::options_description opts("Options");
  opts.add_options()("envdir", po::value<std::string>(), "directory of lsf.conf (default: $LSF_ENVDIR or /etc)")(
      "host-name", po::value<std::string>(), "this host's name (default: the system host name)")(
      "listen", po::value<std::string>()->default_value("0.0.0.0"), "address to listen on")(
      "daemon", "run in the background")("check,C", "check the configuration and exit")("help,h", "this help")(
      "version,V", "print the version")(
      "salvage", "keep lsb.events up to damage in its middle, move the rest aside, say what was lost, and exit")(
      "fresh-snapshot",
      "write the recovered state to a new lsb.snapshot and lsb.events before taking changes (mbatchd restarts itself "
      "so after a failed write to the event log)")(
      "takeover", po::value<std::int64_t>(),
      "TERM: the lease of that master term is known to be still: claim the next one at once (a candidate's sbatchd)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
  } catch (const po::error& e) {
    std::cerr << "mbatchd: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << "Usage: mbatchd [options]\n" << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "lsfsched mbatchd " << LSFSCHED_VERSION << "\n";
    return 0;
  }
  const auto envdir = lsf::net::daemon_envdir(vm.count("envdir") ? vm["envdir"].as<std::string>() : "");
  auto loaded = lsf::net::load_daemon_config("mbatchd", envdir);
  if (!loaded.usable()) return 1;
  if (vm.count("check")) {
    std::cout << loaded.diagnostics.to_string() << "No fatal errors found.\n";
    return 0;
  }
  const auto& cfg = *loaded.config;
  auto auth = lsf::net::daemon_auth(envdir, cfg.lsf_conf);
  if (!auth.error.empty()) {
    std::cerr << "mbatchd: " << auth.error << "\n";
    return 1;
  }
  std::string host = vm.count("host-name") ? vm["host-name"].as<std::string>()
                                           : lsf::net::strip_domain(lsf::net::local_host_name(),
                                                                    cfg.lsf_conf.get("LSF_STRIP_DOMAIN").value_or(""));
  if (vm.count("daemon")) lsf::net::daemonize();
  // One mbatchd per host; which host is master is the lease's to say.
  auto lock = std::filesystem::path(cfg.lsf_conf.lsb_sharedir) / cfg.cluster_name / ("mbatchd." + host + ".lock");
  if (auto locked = lsf::net::take_lock_file(lock); !locked) {
    std::cerr << "mbatchd: another mbatchd is running for cluster " << cfg.cluster_name << ": " << locked.message()
              << "\n";
    return 1;
  }
  auto log = lsf::net::open_daemon_log("mbatchd", cfg.lsf_conf.logdir, host,
                                       cfg.lsf_conf.get("LSF_LOG_MASK").value_or("LOG_INFO"),
                                       !vm.count("daemon") && !vm.count("salvage"));
  const std::string listen = vm["listen"].as<std::string>();
  auto role = std::make_shared<lsf::mbd::MasterRole>(lsf::mbd::logdir_of(cfg), host, lsf::config::failover_timing(cfg));
  if (auto st =
          role->acquire(lsf::net::is_unspecified_address(listen) ? std::string() : listen,
                        static_cast<std::uint16_t>(cfg.lsf_conf.mbd_port.value_or(0)),
                        vm.count("takeover") ? std::optional(vm["takeover"].as<std::int64_t>()) : std::nullopt, *log);
      !st.ok()) {
    log->critical("cannot become master: {}", st.message());
    std::cerr << "mbatchd: cannot become master of cluster " << cfg.cluster_name << ": " << st.message() << "\n";
    return 1;
  }

  if (vm.count("salvage")) {
    // In a term of its own: no mbatchd may be writing the file being cut.
    auto report = lsf::mbd::salvage_event_log(lsf::mbd::event_log_dirs(cfg, host).primary,
                                              static_cast<std::int64_t>(std::time(nullptr)));
    for (const auto& line : lsf::mbd::describe(report)) std::cout << "mbatchd: " << line << "\n";
    role->release();
    return report.error.empty() ? 0 : 1;
  }

  for (const auto& d : loaded.diagnostics.items()) log->warn("{}", d.to_string());
  log->info("open file limit: {} descriptors", lsf::net::raise_descriptor_limit());

  lsf::mbd::MbatchdOptions mo;
  mo.envdir = envdir;
  mo.config = loaded.config;
  mo.host_name = host;
  mo.listen_address = listen;
  mo.role = role;
  mo.log = log;
  mo.key = auth.key;
  mo.pair_keys = auth.pair_keys;
  mo.trust_unsigned = auth.trust_unsigned;
  mo.fresh_snapshot = vm.count("fresh-snapshot") > 0;
  if (auto limits = lsf::net::apply_connection_limits(loaded.config->lsf_conf, mo.limits); !limits) {
    std::cerr << "mbatchd: " << limits.message() << "\n";
    return 1;
  }
  if (auth.trust_unsigned && !auth.key)
    log->warn("LSF_AUTH=none: requests over TCP are believed without a signature; use this only on a trusted network");
  bool restart = false, log_failed = false, fenced = false, handed_over = false;
  {
    lsf::mbd::Mbatchd mbd(mo);
    if (auto st = mbd.recover(); !st.ok()) {
      log->critical("cannot recover: {}", st.message());
      std::cerr << "mbatchd: cannot recover: " << st.message() << "\n";
      role->release();
      return 1;
    }
    if (auto st = mbd.start(); !st.ok()) {
      log->critical("{}", st.message());
      std::cerr << "mbatchd: " << st.message() << "\n";
      role->release();
      return 1;
    }
    lsf::net::asio::io_context signals_io;
    lsf::net::asio::signal_set signals(signals_io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      log->info("signal {} received; stopping", sig);
      mbd.stop();
    });
    std::thread signal_thread([&] { signals_io.run(); });
    mbd.run();
    signals_io.stop();
    signal_thread.join();
    restart = mbd.restart_requested();
    log_failed = mbd.event_log_failed();
    fenced = mbd.fenced();
    handed_over = mbd.handed_over();
  }
  if (fenced) {
    log->info("mbatchd stepped down");
    return 3;
  }
  // The next mbatchd (this one restarted, or a candidate's) claims at once.
  role->release();
  if (handed_over) {
    // The preferred candidate's sbatchd sees the released term and starts mbatchd there;
    // this host's sbatchd goes on as a candidate.
    log->info("mbatchd stopped: the master role is handed back to a preferred candidate");
    return 0;
  }
  log->info("mbatchd stopped");
  char fresh_flag[] = "--fresh-snapshot";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i)
    if (std::strcmp(argv[i], fresh_flag) != 0) args.push_back(argv[i]);
  if (log_failed) {
    // Its state held changes the log lost: a new image recovers what is durable and
    // rewrites the log before it takes changes. A pause when this run was already such
    // a restart, so that a disk failing every write does not make a busy loop.
    if (mo.fresh_snapshot) sleep(1);
    args.push_back(fresh_flag);
    restart = true;
  }
  if (restart) {
    // badmin mbdrestart: the same process image again, from the start, which reads
    // the configuration and replays lsb.snapshot and lsb.events. The lock file's
    // descriptor is close-on-exec, so the new image takes the lock again.
    log->info("restarting");
    log->flush();
    args.push_back(nullptr);
    execv("/proc/self/exe", args.data());
    log->critical("cannot restart: {}", std::strerror(errno));
    return 1;
  }
  return 0;
}
