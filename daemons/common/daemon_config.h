// How a daemon reads the cluster configuration at start: LSF_ENVDIR (or --envdir), the
// whole tree through libconfig, every error printed; a configuration with errors is
// never used.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "libconfig/config_loader.h"

namespace lsf::net {

// The directory of --envdir when given, else LSF_ENVDIR or /etc.
std::filesystem::path daemon_envdir(const std::string& envdir_option);

// Loads the configuration; on errors prints them with `daemon` named and returns a
// result whose usable() is false.
config::LoadResult load_daemon_config(const std::string& daemon, const std::filesystem::path& envdir);

}  // namespace lsf::net
