// bsub's command line read into the JobSpec it would submit, with nothing sent: which
// words are options and which the command, the options as LSF reads them, and the
// `#BSUB` lines of a script. bsub.cc sends the result; tests/fuzz feeds it any bytes.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "libconfig/cluster_config.h"
#include "lsf.pb.h"

namespace lsf::cli::bsub {

// A submission bsub will not make: LSF's reason (printed before ". Job not submitted.")
// and, for a bad option, the parser's own words.
struct Refused {
  explicit Refused(std::string w, std::string d = {}) : why(std::move(w)), detail(std::move(d)) {}
  std::string why;
  std::string detail;
};

// Splits argv into options and the command: the first word that is not an option or
// an option's value starts the command, whatever follows it.
void split_args(const std::vector<std::string>& args, std::vector<std::string>& options,
                std::vector<std::string>& command);

// bsub -I, -Ip or -Is.
bool interactive(const boost::program_options::variables_map& vm);

// One bsub command line, parsed: its options (throws Refused on a bad one).
boost::program_options::variables_map parse_options(const std::vector<std::string>& option_args);

// The spec to submit for parsed options and the command (or a script read from
// stdin). Throws Refused with LSF's reason. Reads the environment, the working
// directory and the umask, as bsub passes them to the job.
wire::JobSpec build_spec(const boost::program_options::variables_map& vm, const std::vector<std::string>& command,
                         const std::string& script, const config::LsfConf& conf, const std::string& from_host);

// The words of a script's `#BSUB` lines, in order.
std::vector<std::string> script_directives(const std::string& script);

// A script's directives and the command line's options together, as LSF takes them:
// an option given on the command line replaces the script's, whole (a -m list too).
boost::program_options::variables_map parse_with_directives(const std::vector<std::string>& directives,
                                                            const std::vector<std::string>& option_args);

}  // namespace lsf::cli::bsub
