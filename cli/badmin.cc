// badmin: administrative commands. This issue brings `ckconfig`; the others
// (reconfig, hclose, qclose, ...) talk to mbatchd and arrive with the runtime.
//
//   badmin ckconfig [-v]   check the configuration LSF_ENVDIR names; exit 1 on errors
#include <cstdlib>
#include <iostream>
#include <pwd.h>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "libconfig/config_loader.h"
#include "libconfig/summary.h"

namespace po = boost::program_options;
using namespace lsf::config;

namespace {

int usage(std::ostream& os, int code) {
  os << "Usage: badmin ckconfig [-v]\n"
        "       badmin -h | -V\n"
        "ckconfig  check the configuration files under LSF_ENVDIR (default /etc)\n";
  return code;
}

int ckconfig(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("verbose,v", "print every diagnostic and a summary")("help,h", "help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
  } catch (const po::error& e) {
    std::cerr << "badmin ckconfig: " << e.what() << "\n";
    return usage(std::cerr, 2);
  }
  if (vm.count("help")) return usage(std::cout, 0);
  const char* env = std::getenv("LSF_ENVDIR");
  LoadOptions options;
  options.envdir = env && *env ? env : "/etc";
  options.now = local_week_instant();
  options.checks.user_exists = [](const std::string& name) { return getpwnam(name.c_str()) != nullptr; };
  bool verbose = vm.count("verbose") > 0;

  std::cout << "\nChecking configuration files ...\n\n";
  LoadResult result = load_cluster_config(options);
  for (const auto& d : result.diagnostics.items())
    if (verbose || d.severity == Severity::kError) std::cout << d.to_string() << "\n";
  const auto& diags = result.diagnostics;
  if (verbose && result.config) std::cout << "\n" << render_config_summary(*result.config);
  std::cout << "\n";
  if (diags.has_errors()) {
    std::cout << diags.error_count() << " error(s) and " << diags.warning_count()
              << " warning(s) found.\nThere are fatal errors in the configuration files; "
                 "the running configuration is kept.\n";
    return 1;
  }
  if (diags.warning_count() > 0)
    std::cout << "---------------------------------------------------------\n"
              << "No fatal errors found.\n"
              << diags.warning_count() << " warning(s) found" << (verbose ? "" : "; run badmin ckconfig -v to see them")
              << ".\n";
  else
    std::cout << "---------------------------------------------------------\nNo errors found.\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage(std::cerr, 2);
  if (args[0] == "-h" || args[0] == "--help") return usage(std::cout, 0);
  if (args[0] == "-V") {
    std::cout << "lsfsched 0.1.0 (LSF-compatible scheduler)\n";
    return 0;
  }
  if (args[0] == "ckconfig") return ckconfig({args.begin() + 1, args.end()});
  std::cerr << "badmin: " << args[0] << ": not a badmin command (this build has: ckconfig)\n";
  return 2;
}
