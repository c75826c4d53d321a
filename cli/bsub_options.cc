#include "cli/bsub_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/cli_support.h"
#include "cli/job_spec_options.h"
#include "daemons/common/host_names.h"
#include "libconfig/text.h"

extern char** environ;

namespace lsf::cli::bsub {
namespace {

namespace po = boost::program_options;

// Options that take a value; everything else starting with '-' is a flag.
const std::set<std::string> kWithValue = {"q",  "n", "R", "m",  "W", "c",   "M",   "o",   "oo",   "e",
                                          "eo", "i", "J", "b",  "E", "Ep",  "w",   "P",   "cwd",  "G",
                                          "u",  "L", "g", "sp", "Q", "env", "sla", "app", "pack", "gpu"};

po::options_description all_options() {
  po::options_description opts;
  add_spec_options(opts);
  opts.add_options()("q", po::value<std::vector<std::string>>()->composing(), "queues")(
      "cwd", po::value<std::string>(), "")("G", po::value<std::string>(), "")("u", po::value<std::string>(), "")(
      "L", po::value<std::string>(), "")("env", po::value<std::string>(), "")("sla", po::value<std::string>(), "")(
      "pack", po::value<std::string>(), "")("rn", "")("H", "")("K", "")("I", "")("Ip", "")("Is", "")("B", "")("N", "")(
      "h", "")("V", "");
  return opts;
}

}  // namespace

void split_args(const std::vector<std::string>& args, std::vector<std::string>& options,
                std::vector<std::string>& command) {
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a.size() > 1 && a[0] == '-') {
      std::string name = a.substr(1);
      options.push_back(a);
      if (kWithValue.count(name) && i + 1 < args.size()) options.push_back(args[++i]);
      continue;
    }
    command.assign(args.begin() + static_cast<long>(i), args.end());
    return;
  }
}

bool interactive(const po::variables_map& vm) { return vm.count("I") || vm.count("Ip") || vm.count("Is"); }

po::variables_map parse_options(const std::vector<std::string>& option_args) {
  static const po::options_description opts = all_options();
  po::variables_map vm;
  try {
    const int style = option_style();
    po::store(po::command_line_parser(option_args).options(opts).style(style).run(), vm);
  } catch (const po::error& e) {
    throw Refused("Bad argument", "bsub: " + option_error_message(e, option_args));
  }
  return vm;
}

po::variables_map parse_with_directives(const std::vector<std::string>& directives,
                                        const std::vector<std::string>& option_args) {
  po::variables_map vm = parse_options(option_args);
  const po::variables_map from_script = parse_options(directives);
  auto& merged = static_cast<std::map<std::string, po::variable_value>&>(vm);
  for (const auto& [name, value] : from_script)
    if (!vm.count(name) || vm[name].defaulted()) merged[name] = value;
  return vm;
}

wire::JobSpec build_spec(const po::variables_map& vm, const std::vector<std::string>& command,
                         const std::string& script, const config::LsfConf& conf, const std::string& from_host) {
  // Accepted by LSF, not built here yet: refused rather than silently ignored.
  if (vm.count("L")) throw Refused("-L: option not supported yet");
  if (vm.count("I") + vm.count("Ip") + vm.count("Is") > 1) throw Refused("-I, -Ip and -Is cannot be used together");
  if (interactive(vm) && vm.count("K")) throw Refused("-I, -Ip and -Is cannot be used with -K");
  wire::JobSpec out;
  auto* spec = &out;
  if (!command.empty()) {
    std::string cmd;
    // As LSF: the words joined by spaces, so `bsub "echo $HOME"` expands at run time.
    for (const auto& w : command) cmd += (cmd.empty() ? "" : " ") + w;
    spec->set_command(cmd);
  } else if (!script.empty()) {
    spec->set_command(script);
  } else {
    throw Refused("No command is specified");
  }
  if (vm.count("q"))
    for (const auto& q : vm["q"].as<std::vector<std::string>>())
      for (const auto& w : config::split_words(q)) spec->add_queues(w);
  if (spec->queues_size() == 0)
    if (const char* dq = std::getenv("LSB_DEFAULTQUEUE"); dq && *dq) spec->add_queues(dq);
  std::vector<std::string> set;
  read_spec_options(vm, conf, *spec, set, [](const std::string& why) { throw Refused(why); });
  // Without -J, the job is named after its command (a script with its lines joined by
  // `;`, as LSF shows it), cut to the 4,094 characters a job name may have, as LSF.
  if (!vm.count("J")) {
    std::string name = shown_command(spec->command());
    if (name.size() > 4094) name.resize(4094);
    spec->set_job_name(name);
  }
  if (vm.count("H")) spec->set_hold(true);
  if (interactive(vm)) spec->set_interactive(true);
  if (vm.count("Ip") || vm.count("Is")) spec->set_pty(true);
  if (vm.count("G")) spec->set_user_group(vm["G"].as<std::string>());
  if (vm.count("sla")) spec->set_service_class(vm["sla"].as<std::string>());
  if (vm.count("rn")) spec->set_not_rerunnable(true);
  // Mail is not sent by this scheduler: say so rather than pretend.
  for (const char* mail : {"B", "N", "u"})
    if (vm.count(mail)) std::cerr << "bsub: -" << mail << ": mail notification is not supported; ignored\n";
  if (vm.count("cwd")) {
    spec->set_cwd(vm["cwd"].as<std::string>());
  } else {
    std::vector<char> buf(4096);
    if (getcwd(buf.data(), buf.size())) spec->set_cwd(buf.data());
  }
  mode_t mask = umask(022);
  umask(mask);
  spec->set_umask(mask);
  spec->set_from_host(net::strip_domain(from_host, conf.get("LSF_STRIP_DOMAIN").value_or("")));
  // -env "all" (the default), "none", "all, ~VAR", or "VAR=value, VAR2": which of the
  // submission environment the job gets, and values set for it.
  std::set<std::string> excluded;
  std::vector<std::pair<std::string, std::string>> given;
  bool take_all = true;
  if (vm.count("env")) {
    take_all = false;
    for (const auto& item : config::split(vm["env"].as<std::string>(), ',')) {
      std::string w(config::trim(item));
      if (w.empty()) continue;
      if (config::iequals(w, "all")) {
        take_all = true;
      } else if (config::iequals(w, "none")) {
        take_all = false;
      } else if (w[0] == '~') {
        excluded.insert(w.substr(1));
      } else if (auto eq = w.find('='); eq != std::string::npos) {
        given.emplace_back(w.substr(0, eq), w.substr(eq + 1));
      } else if (const char* v = std::getenv(w.c_str())) {
        given.emplace_back(w, v);
      }
    }
  }
  std::set<std::string> named;
  for (const auto& [k, v] : given) named.insert(k);
  for (char** e = environ; take_all && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos || excluded.count(kv.substr(0, eq)) || named.count(kv.substr(0, eq))) continue;
    auto* v = spec->add_env();
    v->set_name(kv.substr(0, eq));
    v->set_value(kv.substr(eq + 1));
  }
  for (const auto& [k, val] : given) {
    auto* v = spec->add_env();
    v->set_name(k);
    v->set_value(val);
  }

  return out;
}

std::vector<std::string> script_directives(const std::string& script) {
  std::vector<std::string> directives;
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    std::string_view l = config::trim(line);
    if (l.rfind("#BSUB", 0) == 0) {
      std::string err;
      for (auto& w : shell_words(l.substr(5), &err)) directives.push_back(w);
    }
  }
  return directives;
}

}  // namespace lsf::cli::bsub
