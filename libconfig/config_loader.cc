#include "libconfig/config_loader.h"

#include <ctime>

#include "libconfig/file_parsers.h"
#include "libconfig/section_reader.h"
#include "libconfig/source_text.h"

namespace fs = std::filesystem;

namespace lsf::config {
namespace {

std::string display_name(const fs::path& p, std::string_view fallback) {
  auto name = p.filename().string();
  return name.empty() ? std::string(fallback) : name;
}

fs::path resolve(const std::string& value, const fs::path& base, const fs::path& fallback) {
  fs::path p = value.empty() ? fallback : fs::path(value);
  if (p.is_relative()) p = base / p;
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();  // "conf/" -> "conf"
  return p;
}

// Absolute directories for everything lsf.conf names, with LSF's defaults.
void resolve_directories(LsfConf& conf, const fs::path& conf_dir) {
  fs::path envdir = conf_dir;
  fs::path confdir = resolve(conf.confdir, envdir, envdir);
  conf.envdir = envdir.string();
  conf.confdir = confdir.string();
  conf.lsb_confdir = resolve(conf.lsb_confdir, envdir, confdir / "lsbatch").string();
  conf.lsb_sharedir = resolve(conf.lsb_sharedir, envdir, envdir / "work").string();
  conf.logdir = resolve(conf.logdir, envdir, envdir / "log").string();
}

// Reads one sectioned file; returns nullopt when it is absent or unreadable.
std::optional<SectionFile> read_file(const std::optional<fs::path>& path, std::string_view kind,
                                     const WeekInstant& now, Diagnostics& diags) {
  if (!path) return std::nullopt;
  auto lines = read_config_file(*path, display_name(*path, kind), now, diags);
  if (!lines) return std::nullopt;
  return read_sections(*lines, diags);
}

}  // namespace

WeekInstant local_week_instant() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  return WeekInstant{tm.tm_wday, tm.tm_hour, tm.tm_min};
}

LoadResult load_config_files(const ConfigFiles& files, const WeekInstant& now, const CheckOptions& checks) {
  LoadResult result;
  auto& diags = result.diagnostics;
  auto config = std::make_shared<ClusterConfig>();

  if (files.lsf_conf) {
    if (auto lines = read_config_file(*files.lsf_conf, display_name(*files.lsf_conf, "lsf.conf"), now, diags)) {
      FileContext ctx{"lsf.conf", diags};
      parse_lsf_conf(*lines, ctx, config->lsf_conf);
      config->lsf_conf.path = files.lsf_conf->string();
      resolve_directories(config->lsf_conf, files.lsf_conf->parent_path());
    }
  }
  const MemoryUnit unit = config->lsf_conf.unit_for_limits;

  if (auto f = read_file(files.lsf_shared, "lsf.shared", now, diags)) {
    FileContext ctx{"lsf.shared", diags, unit};
    parse_lsf_shared(*f, ctx, *config);
  }
  config->cluster_name = files.cluster_name;
  if (config->cluster_name.empty() && !config->clusters.empty()) config->cluster_name = config->clusters.front().name;

  if (auto f = read_file(files.lsf_cluster, "lsf.cluster", now, diags)) {
    FileContext ctx{"lsf.cluster", diags, unit};
    parse_lsf_cluster(*f, ctx, *config);
  }
  if (auto f = read_file(files.lsf_task, "lsf.task", now, diags)) {
    FileContext ctx{"lsf.task", diags, unit};
    parse_lsf_task(*f, ctx);
  }
  if (auto f = read_file(files.lsb_params, "lsb.params", now, diags)) {
    FileContext ctx{"lsb.params", diags, unit};
    parse_lsb_params(*f, ctx, config->params);
  }
  if (auto f = read_file(files.lsb_queues, "lsb.queues", now, diags)) {
    FileContext ctx{"lsb.queues", diags, unit};
    parse_lsb_queues(*f, ctx, config->queues);
  } else if (!files.lsb_queues || !fs::exists(*files.lsb_queues)) {
    // As in LSF: without lsb.queues there is one queue, named default.
    Queue q;
    q.name = "default";
    q.where = {"lsb.queues", 0};
    config->queues.push_back(q);
  }
  if (auto f = read_file(files.lsb_hosts, "lsb.hosts", now, diags)) {
    FileContext ctx{"lsb.hosts", diags, unit};
    parse_lsb_hosts(*f, ctx, *config);
  }
  if (auto f = read_file(files.lsb_users, "lsb.users", now, diags)) {
    FileContext ctx{"lsb.users", diags, unit};
    parse_lsb_users(*f, ctx, *config);
  }
  if (auto f = read_file(files.lsb_resources, "lsb.resources", now, diags)) {
    FileContext ctx{"lsb.resources", diags, unit};
    parse_lsb_resources(*f, ctx, *config);
  }
  if (auto f = read_file(files.lsb_serviceclasses, "lsb.serviceclasses", now, diags)) {
    FileContext ctx{"lsb.serviceclasses", diags, unit};
    parse_lsb_serviceclasses(*f, ctx, config->service_classes);
  }
  if (auto f = read_file(files.lsb_applications, "lsb.applications", now, diags)) {
    FileContext ctx{"lsb.applications", diags, unit};
    parse_lsb_applications(*f, ctx, config->applications);
  }
  if (auto f = read_file(files.lsb_modules, "lsb.modules", now, diags)) {
    FileContext ctx{"lsb.modules", diags, unit};
    parse_lsb_modules(*f, ctx, *config);
  }

  check_cluster_config(*config, checks, diags);
  result.config = std::move(config);
  return result;
}

LsfConf read_lsf_conf(const fs::path& envdir, const WeekInstant& now, Diagnostics& diags) {
  LsfConf lsf_conf;
  const fs::path conf = envdir / "lsf.conf";
  if (auto lines = read_config_file(conf, "lsf.conf", now, diags)) {
    FileContext ctx{"lsf.conf", diags};
    parse_lsf_conf(*lines, ctx, lsf_conf);
    lsf_conf.path = conf.string();
  }
  resolve_directories(lsf_conf, envdir);
  return lsf_conf;
}

LoadResult load_cluster_config(const LoadOptions& options) {
  const fs::path conf = options.envdir / "lsf.conf";
  if (!fs::exists(conf)) {
    LoadResult r;
    r.diagnostics.error({"lsf.conf", 0}, "cannot read " + conf.string() + " (is LSF_ENVDIR right?)");
    return r;
  }
  // A first look at lsf.conf and lsf.shared only finds the files; the full read below
  // reports their problems.
  Diagnostics scratch;
  LsfConf lsf_conf = read_lsf_conf(options.envdir, options.now, scratch);
  const fs::path confdir = lsf_conf.confdir;

  ConfigFiles files;
  files.lsf_conf = conf;
  files.lsf_shared = confdir / "lsf.shared";
  if (fs::exists(confdir / "lsf.task")) files.lsf_task = confdir / "lsf.task";
  if (auto f = read_file(files.lsf_shared, "lsf.shared", options.now, scratch)) {
    ClusterConfig shared;
    FileContext ctx{"lsf.shared", scratch};
    parse_lsf_shared(*f, ctx, shared);
    for (const auto& c : shared.clusters) {
      if (fs::exists(confdir / ("lsf.cluster." + c.name))) {
        files.cluster_name = c.name;
        break;
      }
    }
  }
  fs::path configdir;
  if (!files.cluster_name.empty()) {
    files.lsf_cluster = confdir / ("lsf.cluster." + files.cluster_name);
    configdir = fs::path(lsf_conf.lsb_confdir) / files.cluster_name / "configdir";
    auto optional_file = [&](const char* name) -> std::optional<fs::path> {
      fs::path p = configdir / name;
      if (fs::exists(p)) return p;
      return std::nullopt;
    };
    files.lsb_params = optional_file("lsb.params");
    files.lsb_queues = optional_file("lsb.queues");
    files.lsb_hosts = optional_file("lsb.hosts");
    files.lsb_users = optional_file("lsb.users");
    files.lsb_resources = optional_file("lsb.resources");
    files.lsb_serviceclasses = optional_file("lsb.serviceclasses");
    files.lsb_modules = optional_file("lsb.modules");
    files.lsb_applications = optional_file("lsb.applications");
  }

  LoadResult result = load_config_files(files, options.now, options.checks);
  if (files.cluster_name.empty() && fs::exists(*files.lsf_shared))
    result.diagnostics.error({"lsf.shared", 0}, "no cluster of the Cluster section has an lsf.cluster.<name> file in " +
                                                    confdir.string());
  else if (!configdir.empty() && !fs::is_directory(configdir))
    result.diagnostics.error({"lsf.conf", 0}, "no batch configuration directory " + configdir.string() +
                                                  " (LSB_CONFDIR/<cluster>/configdir)");
  return result;
}

}  // namespace lsf::config
