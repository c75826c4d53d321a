// The job options bsub and bmod share (-n -R -m -W -c -M -o -oo -e -eo -i -J -x -r -b
// -E -Ep -w -P -Q -gpu), read into a JobSpec as LSF reads them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "libconfig/cluster_config.h"
#include "lsf.pb.h"

namespace lsf::cli {

// Declares the shared options (each with a value where LSF's takes one).
void add_spec_options(boost::program_options::options_description& opts);

// Reads the options present in `vm` into `spec`, naming each JobSpec field it set in
// `set` (bmod sends only those). A bad value calls `fail` with LSF's reason, which must
// not return. -J keeps array brackets out of the name: `name[1-10]%2` sets array_spec
// and array_limit too.
void read_spec_options(const boost::program_options::variables_map& vm, const config::LsfConf& conf,
                       wire::JobSpec& spec, std::vector<std::string>& set,
                       const std::function<void(const std::string&)>& fail);

// -b [[month:]day:]hour:minute: the next such time; nullopt when malformed.
std::optional<std::int64_t> parse_begin_time(const std::string& text);

}  // namespace lsf::cli
