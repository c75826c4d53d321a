// sbatchd: the batch daemon of one host.
//
//   sbatchd [--envdir DIR] [--host-name NAME] [--port N] [--listen ADDR]
//           [--advertise ADDR] [--state-dir DIR] [--load-file FILE] [--gpu-file FILE] [--daemon]
//
// Several may run on one machine as virtual hosts, each with its own --host-name and
// --port. SIGTERM stops sbatchd; its jobs keep running and are regained at restart.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "daemons/common/asio.h"
#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/daemon_config.h"
#include "daemons/common/daemon_log.h"
#include "daemons/common/daemon_process.h"
#include "daemons/common/host_names.h"
#include "daemons/sbatchd/sbatchd.h"
#include "daemons/sbatchd/state_dir.h"
#include "libconfig/config_loader.h"
#include "libconfig/failover_params.h"
#include "libconfig/text.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  po::options_description opts("Options");
  opts.add_options()("envdir", po::value<std::string>(), "directory of lsf.conf (default: $LSF_ENVDIR or /etc)")(
      "host-name", po::value<std::string>(), "the host this sbatchd is (default: the system host name)")(
      "port", po::value<int>(), "port to serve (default: LSB_SBD_PORT; 0 = any free port)")(
      "listen", po::value<std::string>(),
      "address to listen on (default: the address the host name resolves to; 0.0.0.0: all)")(
      "advertise", po::value<std::string>(),
      "name or address mbatchd reaches this sbatchd at (default: the --listen address when it names one, else the "
      "host name)")("state-dir", po::value<std::string>(),
                    "where job state is kept (default: LSB_SHAREDIR/<cluster>/sbatchd/<host>)")(
      "load-file", po::value<std::string>(), "file of `index = value` lines overriding measured load")(
      "gpu-file", po::value<std::string>(),
      "GPU description file: the host's GPUs instead of NVML's (a test tool; see daemons/sbatchd/gpu_file.h)")(
      "daemon", "run in the background")("help,h", "this help")("version,V", "print the version");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
  } catch (const po::error& e) {
    std::cerr << "sbatchd: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << "Usage: sbatchd [options]\n" << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "lsfsched sbatchd " << LSFSCHED_VERSION << "\n";
    return 0;
  }
  const auto envdir = lsf::net::daemon_envdir(vm.count("envdir") ? vm["envdir"].as<std::string>() : "");
  auto loaded = lsf::net::load_daemon_config("sbatchd", envdir);
  if (!loaded.usable()) return 1;
  const auto& cfg = *loaded.config;
  auto endpoint = lsf::net::master_endpoint(cfg.lsf_conf);
  if (!endpoint.error.empty()) {
    std::cerr << "sbatchd: " << endpoint.error << "\n";
    return 1;
  }
  auto auth = lsf::net::daemon_auth(envdir, cfg.lsf_conf);
  if (!auth.error.empty()) {
    std::cerr << "sbatchd: " << auth.error << "\n";
    return 1;
  }
  lsf::sbd::SbatchdOptions so;
  so.key = auth.key;
  so.trust_unsigned = auth.trust_unsigned;
  if (auto limits = lsf::net::apply_connection_limits(cfg.lsf_conf, so.limits); !limits) {
    std::cerr << "sbatchd: " << limits.message() << "\n";
    return 1;
  }
  so.allow_root_jobs = lsf::config::parse_yes_no(cfg.lsf_conf.get("LSF_ROOT_USER").value_or("N")).value_or(false);
  so.host_name = vm.count("host-name") ? vm["host-name"].as<std::string>()
                                       : lsf::net::strip_domain(lsf::net::local_host_name(),
                                                                cfg.lsf_conf.get("LSF_STRIP_DOMAIN").value_or(""));
  if (!cfg.find_host(so.host_name)) {
    std::cerr << "sbatchd: host " << so.host_name << " is not in lsf.cluster." << cfg.cluster_name << "\n";
    return 1;
  }
  // What mbatchd on another host can reach: the host name, and the address it stands for.
  std::string listen_warning;
  if (vm.count("listen")) {
    so.listen_address = vm["listen"].as<std::string>();
  } else {
    auto resolved = lsf::net::resolve_host(so.host_name);
    if (!resolved) {
      std::cerr << "sbatchd: " << resolved.error()
                << ": give the address to listen on (--listen ADDRESS, or 0.0.0.0 for all)\n";
      return 1;
    }
    so.listen_address = *resolved;
    if (lsf::net::is_loopback_address(so.listen_address))
      listen_warning = "host name " + so.host_name + " resolves to " + so.listen_address +
                       ", a loopback address: mbatchd on another host cannot reach this sbatchd; fix the hosts " +
                       "file or DNS, or start sbatchd with --listen ADDRESS (or 0.0.0.0) --advertise NAME";
  }
  if (vm.count("advertise"))
    so.advertise_address = vm["advertise"].as<std::string>();
  else if (vm.count("listen") && !lsf::net::is_unspecified_address(so.listen_address))
    so.advertise_address = so.listen_address;
  else
    so.advertise_address = so.host_name;
  so.port = static_cast<std::uint16_t>(vm.count("port") ? vm["port"].as<int>() : cfg.lsf_conf.sbd_port.value_or(0));
  so.master = endpoint.endpoint;
  so.command_socket = lsf::net::sbatchd_socket_path(cfg.lsf_conf);
  // Jobs' files: in LSB_SBD_STATEDIR/<cluster>/<host> when it is set (a local disk or a
  // tmpfs: every job creates and removes files there), else under LSB_SHAREDIR.
  if (vm.count("state-dir")) {
    so.state_dir = vm["state-dir"].as<std::string>();
  } else if (auto dir = cfg.lsf_conf.get("LSB_SBD_STATEDIR"); dir && !dir->empty()) {
    std::filesystem::path base(*dir);
    if (base.is_relative()) base = envdir / base;
    so.state_dir = base / cfg.cluster_name / so.host_name;
  } else {
    so.state_dir = std::filesystem::path(cfg.lsf_conf.lsb_sharedir) / cfg.cluster_name / "sbatchd" / so.host_name;
  }
  if (vm.count("load-file")) so.load_file = vm["load-file"].as<std::string>();
  if (vm.count("gpu-file")) so.gpu_file = vm["gpu-file"].as<std::string>();
  so.detect_gpus = lsf::config::parse_yes_no(cfg.lsf_conf.get("LSF_GPU_AUTOCONFIG").value_or("Y")).value_or(true);
  so.report_interval = std::chrono::seconds(std::max(1, cfg.params.sbd_sleep_time));
  // Master failover (master_watch.h): with two candidates or more, reports follow the
  // master's lease, and a candidate starts mbatchd when the master is gone.
  const auto candidates = lsf::config::master_candidates(cfg);
  const auto logdir = std::filesystem::path(cfg.lsf_conf.lsb_sharedir) / cfg.cluster_name / "logdir";
  if (cfg.lsf_conf.master_list.size() >= 2) {
    so.master_lease_dir = logdir;
    auto me = std::find(candidates.begin(), candidates.end(), so.host_name);
    if (me != candidates.end()) {
      lsf::sbd::MasterWatch::Options mw;
      mw.logdir = logdir;
      mw.host_name = so.host_name;
      mw.position = static_cast<int>(me - candidates.begin());
      mw.timing = lsf::config::failover_timing(cfg);
      mw.key = auth.key;
      // mbatchd beside this sbatchd, on this host's address.
      std::error_code ec;
      auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
      mw.mbatchd_argv = {(self.parent_path() / "mbatchd").string(),
                         "--envdir",
                         envdir.string(),
                         "--host-name",
                         so.host_name,
                         "--listen",
                         so.listen_address};
      so.master_watch = mw;
    }
  }
  if (vm.count("daemon")) lsf::net::daemonize();
  // Checked before the lock file is opened there: in a directory a user controls, that
  // open (as root) could follow a link and truncate any file.
  if (auto prepared = lsf::sbd::prepare_state_directory(so.state_dir); !prepared) {
    std::cerr << "sbatchd: " << prepared.message() << "\n";
    return 1;
  }
  if (auto locked = lsf::net::take_lock_file(so.state_dir / "sbatchd.lock"); !locked) {
    std::cerr << "sbatchd: another sbatchd serves host " << so.host_name << ": " << locked.message() << "\n";
    return 1;
  }
  so.log = lsf::net::open_daemon_log("sbatchd", cfg.lsf_conf.logdir, so.host_name,
                                     cfg.lsf_conf.get("LSF_LOG_MASK").value_or("LOG_INFO"), !vm.count("daemon"));
  so.log->info("open file limit: {} descriptors", lsf::net::raise_descriptor_limit());
  if (!listen_warning.empty()) so.log->warn("{}", listen_warning);
  lsf::sbd::Sbatchd sbd(so);
  if (auto started = sbd.start(); !started) {
    so.log->critical("{}", started.message());
    std::cerr << "sbatchd: " << started.message() << "\n";
    return 1;
  }
  // Signals are handled on a thread of their own: SIGCHLD belongs to the daemon's loop.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&block, &sig);
    so.log->info("signal {} received; stopping (jobs keep running)", sig);
    sbd.stop();
  });
  sbd.run();
  // Wake the waiter if we stopped for another reason.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  so.log->info("sbatchd stopped");
  return 0;
}
