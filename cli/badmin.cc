// badmin: administrative commands.
//
//   badmin ckconfig [-v]                 check the configuration LSF_ENVDIR names locally
//   badmin reconfig [-v] [-f]            make mbatchd re-read it (kept when it has errors)
//   badmin hclose [-C comment] [host ...] / hopen [host ...]
//   badmin qclose | qopen | qact | qinact [queue ...]
#include <pwd.h>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/badmin_status.h"
#include "cli/cli_support.h"
#include "libconfig/config_loader.h"
#include "libconfig/summary.h"

namespace po = boost::program_options;
using namespace lsf::config;

namespace {

int usage(std::ostream& os, int code) {
  os << "Usage: badmin ckconfig [-v]\n"
        "       badmin reconfig [-v] [-f]\n"
        "       badmin mbdrestart [-v] [-f]\n"
        "       badmin hist\n"
        "       badmin showstatus [-json]\n"
        "       badmin perfmon view [-json]\n"
        "       badmin hclose [-C comment] [host ...] | hopen [-C comment] [host ...]\n"
        "       badmin qclose | qopen | qact | qinact [queue ...]\n"
        "       badmin -h | -V\n"
        "ckconfig  check the configuration files under LSF_ENVDIR (default /etc)\n"
        "reconfig  make mbatchd re-read the configuration; with errors it keeps the running one\n";
  return code;
}

int reconfig(const std::vector<std::string>& args) {
  bool verbose = false;
  for (const auto& a : args) {
    if (a == "-v")
      verbose = true;
    else if (a != "-f") {
      std::cerr << "badmin reconfig: unknown option " << a << "\n";
      return usage(std::cerr, 2);
    }
  }
  lsf::cli::Session session("badmin");
  lsf::wire::RequestEnvelope req;
  req.mutable_reconfig();
  std::cout << "\nChecking configuration files ...\n\n";
  const auto reply = lsf::cli::require_ok("badmin", session.call(req));
  const auto& r = reply.reconfig();
  for (const auto& e : r.errors()) std::cout << e << "\n";
  if (verbose)
    for (const auto& w : r.warnings()) std::cout << w << "\n";
  if (!r.applied()) {
    std::cout << "\nThere are fatal errors.\n\nThe running configuration is kept; fix the errors and run "
                 "badmin reconfig again.\n";
    return 1;
  }
  if (r.warnings_size() > 0)
    std::cout << "\nThere are warning errors.\n\n";
  else
    std::cout << "No errors found.\n\n";
  std::cout << "Reconfiguration initiated\n";
  return 0;
}

int control(const std::string& sub, const std::vector<std::string>& args) {
  lsf::wire::RequestEnvelope req;
  std::vector<std::string> names;
  std::string comment;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-C" && i + 1 < args.size()) {
      comment = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << "badmin " << sub << ": unknown option " << args[i] << "\n";
      return usage(std::cerr, 2);
    } else {
      names.push_back(args[i]);
    }
  }
  if (sub == "hclose" || sub == "hopen") {
    auto* h = req.mutable_host_control();
    h->set_op(sub == "hclose" ? lsf::wire::CONTROL_CLOSE : lsf::wire::CONTROL_OPEN);
    h->set_comment(comment);
    for (const auto& n : names) h->add_hosts(n);
  } else {
    auto* q = req.mutable_queue_control();
    q->set_op(sub == "qclose"  ? lsf::wire::CONTROL_CLOSE
              : sub == "qopen" ? lsf::wire::CONTROL_OPEN
              : sub == "qact"  ? lsf::wire::CONTROL_ACTIVATE
                               : lsf::wire::CONTROL_INACTIVATE);
    for (const auto& n : names) q->add_queues(n);
  }
  lsf::cli::Session session("badmin");
  const auto reply = lsf::cli::require_ok("badmin", session.call(req));
  // LSF prints host control lines on stderr and queue control lines on stdout.
  std::ostream& out = sub[0] == 'h' ? std::cerr : std::cout;
  for (const auto& line : reply.control().lines()) out << line << "\n";
  return reply.control().all_ok() ? 0 : 1;
}

int ckconfig(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("verbose,v", "print every diagnostic and a summary")("help,h", "help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
  } catch (const po::error& e) {
    std::cerr << "badmin ckconfig: " << lsf::cli::option_error_message(e, args) << "\n";
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
    std::cerr << lsf::cli::version_text();
    return 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "ckconfig") return ckconfig(rest);
  if (args[0] == "reconfig") return reconfig(rest);
  if (args[0] == "perfmon") return lsf::cli::perfmon(rest);
  if (args[0] == "mbdrestart") return lsf::cli::mbdrestart(rest);
  if (args[0] == "hist") return lsf::cli::hist(rest);
  if (args[0] == "showstatus") return lsf::cli::showstatus(rest);
  for (const char* sub : {"hclose", "hopen", "qclose", "qopen", "qact", "qinact"})
    if (args[0] == sub) return control(args[0], rest);
  std::cerr << "badmin: " << args[0]
            << ": not a badmin command (this build has: ckconfig reconfig mbdrestart perfmon hist showstatus hclose "
               "hopen qclose "
               "qopen qact qinact)\n";
  return 2;
}
