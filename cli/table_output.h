// -o, -json and -noheader for bqueues and bhosts: the rows of a custom format, printed
// as text or in LSF's JSON envelope.
#pragma once

#include <functional>
#include <span>
#include <string>

#include <boost/program_options.hpp>

#include "cli/output_format.h"
#include "libconfig/cluster_config.h"

namespace lsf::cli {

// Prints `count` items in the custom format in force (-o, else `format_variable` from
// the environment or lsf.conf) and returns true; returns false when none is in force.
// Exits 255 with the error on a bad format, or on -json without a format.
bool print_custom(const std::string& command, const char* format_variable,
                  const boost::program_options::variables_map& vm, const config::LsfConf& conf,
                  std::span<const FieldDef> fields, size_t count,
                  const std::function<std::string(size_t item, const Column&)>& value, const char* count_key);

}  // namespace lsf::cli
