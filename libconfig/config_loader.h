// Finds and reads a whole cluster configuration the way LSF does:
// LSF_ENVDIR/lsf.conf names LSF_CONFDIR (lsf.shared, lsf.cluster.<name>) and
// LSB_CONFDIR (<name>/configdir/lsb.*). The cluster is the first one of lsf.shared's
// Cluster section that has an lsf.cluster.<name> file.
//
// Relative directories in lsf.conf are taken from the directory that holds lsf.conf,
// so a configuration tree can be moved as a whole. Defaults when lsf.conf is silent:
// LSF_CONFDIR = LSF_ENVDIR, LSB_CONFDIR = LSF_CONFDIR/lsbatch.
//
// The result carries every diagnostic; a configuration with errors is still returned
// (for `badmin ckconfig -v`), but daemons must not use it: see LoadResult::usable().
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "libconfig/cluster_config.h"
#include "libconfig/diagnostics.h"
#include "libconfig/semantic_checks.h"
#include "libconfig/time_window.h"

namespace lsf::config {

struct LoadOptions {
  std::filesystem::path envdir;  // the directory holding lsf.conf
  WeekInstant now;               // for `#if time(...)` blocks
  CheckOptions checks;
};

struct LoadResult {
  std::shared_ptr<const ClusterConfig> config;
  Diagnostics diagnostics;
  bool usable() const { return config && !diagnostics.has_errors(); }
};

LoadResult load_cluster_config(const LoadOptions& options);

// lsf.conf alone, with its directories made absolute: what commands read to find
// mbatchd. Problems go to `diags`; a missing file gives an empty LsfConf.
LsfConf read_lsf_conf(const std::filesystem::path& envdir, const WeekInstant& now, Diagnostics& diags);

// Explicit file paths, for trees that do not follow the LSF layout (the compatibility
// corpus keeps autoconf templates such as lsb.queues.in). Absent files are skipped as
// LSF skips them; lsf.conf is optional here.
struct ConfigFiles {
  std::optional<std::filesystem::path> lsf_conf, lsf_shared, lsf_cluster, lsf_task;
  std::optional<std::filesystem::path> lsb_params, lsb_queues, lsb_hosts, lsb_users, lsb_resources,
      lsb_serviceclasses, lsb_modules, lsb_applications;
  std::string cluster_name;  // empty: the first Cluster of lsf.shared
};

LoadResult load_config_files(const ConfigFiles& files, const WeekInstant& now, const CheckOptions& checks = {});

// The current local time as a WeekInstant (the one function here that reads a clock;
// callers that need determinism pass their own instant instead).
WeekInstant local_week_instant();

}  // namespace lsf::config
