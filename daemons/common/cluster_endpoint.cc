#include "daemons/common/cluster_endpoint.h"

#include <cstdlib>

#include "libconfig/config_loader.h"
#include "libconfig/text.h"

namespace lsf::net {

std::filesystem::path envdir_from_environment() {
  const char* env = std::getenv("LSF_ENVDIR");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path("/etc");
}

EndpointResult master_endpoint(const config::LsfConf& conf) {
  EndpointResult r;
  if (!conf.mbd_port) {
    r.error = "LSB_MBD_PORT is not defined in " + (conf.path.empty() ? std::string("lsf.conf") : conf.path);
    return r;
  }
  r.endpoint.port = static_cast<std::uint16_t>(*conf.mbd_port);
  if (auto host = conf.get("LSB_MBD_HOST"); host && !host->empty())
    r.endpoint.host = *host;
  else if (!conf.master_list.empty())
    r.endpoint.host = conf.master_list.front();
  else
    r.endpoint.host = "127.0.0.1";
  r.endpoint.local_socket = local_socket_path(conf);
  if (auto t = conf.get("LSB_RPC_TIMEOUT")) {
    if (auto secs = config::parse_int(*t); secs && *secs > 0) r.endpoint.timeout = std::chrono::seconds(*secs);
  }
  return r;
}

std::string local_socket_path(const config::LsfConf& conf) {
  if (auto path = conf.get("LSB_MBD_SOCKET"); path && !path->empty()) return *path == "none" ? "" : *path;
  if (!conf.mbd_port || *conf.mbd_port == 0 || conf.lsb_sharedir.empty()) return {};
  return (std::filesystem::path(conf.lsb_sharedir) / ("mbatchd." + std::to_string(*conf.mbd_port) + ".sock")).string();
}

std::string sbatchd_socket_path(const config::LsfConf& conf) {
  if (auto path = conf.get("LSB_SBD_SOCKET"); path && !path->empty()) return *path == "none" ? "" : *path;
  if (conf.lsb_sharedir.empty()) return {};
  return (std::filesystem::path(conf.lsb_sharedir) / ("sbatchd." + std::to_string(conf.sbd_port.value_or(0)) + ".sock"))
      .string();
}

EndpointResult master_endpoint_from_environment() {
  auto envdir = envdir_from_environment();
  if (!std::filesystem::exists(envdir / "lsf.conf")) {
    EndpointResult r;
    r.error = "cannot read " + (envdir / "lsf.conf").string() + " (is LSF_ENVDIR set?)";
    return r;
  }
  config::Diagnostics diags;
  auto conf = config::read_lsf_conf(envdir, config::local_week_instant(), diags);
  return master_endpoint(conf);
}

}  // namespace lsf::net
