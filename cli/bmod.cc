// bmod: change a pending job's submission options.
//
//   bmod [bsub options] [-Jn -Rn -mn -Wn -cn -Mn -on -en -in -bn -wn -En -Epn -rn -Qn -spn -appn -gn]
//        jobid | "jobid[index_list]"
//   bmod -aps "system=value" | "admin=value" | -apsn  jobid ...   (administrators)
//
// The options are bsub's; each `-Xn` form removes what -X set. The job must still be
// one its queue accepts; otherwise nothing changes. -aps sets a pending job's APS
// value (system: ahead of every calculated one) or adds to it (admin); each -aps
// replaces the last; -apsn removes both.
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/job_spec_options.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

[[noreturn]] void refuse(const std::string& why) {
  std::cerr << why << ". Job not modified.\n";
  std::exit(255);
}

// -Xn: the JobSpec fields it clears.
const std::vector<std::pair<const char*, std::vector<const char*>>> kResets = {
    {"Jn", {"job_name"}},
    {"Rn", {"res_req"}},
    {"mn", {"asked_hosts"}},
    {"Wn", {"run_limit_s"}},
    {"cn", {"cpu_limit_s"}},
    {"Mn", {"mem_limit_kb"}},
    {"on", {"out_file", "out_overwrite"}},
    {"en", {"err_file", "err_overwrite"}},
    {"in", {"in_file"}},
    {"bn", {"begin_time"}},
    {"wn", {"dependency"}},
    {"En", {"pre_exec"}},
    {"Epn", {"post_exec"}},
    {"rn", {"rerunnable", "not_rerunnable"}},
    {"Qn", {"requeue_exit_values"}},
    {"spn", {"user_priority"}},
    {"appn", {"app"}},
    {"gn", {"job_group"}},
    {"gpun", {"gpu"}},
};

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  cli::add_spec_options(opts);
  for (const auto& [opt, fields] : kResets) opts.add_options()(opt, "");
  opts.add_options()("aps", po::value<std::string>(), "")("apsn", "");
  opts.add_options()("jobs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  const std::string usage =
      "Usage: bmod [-n min[,max]] [-R res_req] [-m hosts] [-W [hh:]mm] [-c [hh:]mm] [-M mem] [-o|-oo out]\n"
      "            [-e|-eo err] [-i in] [-J name] [-x] [-r] [-b [[mm:]dd:]hh:mm] [-E cmd] [-Ep cmd]\n"
      "            [-w dependency] [-P project] [-Q codes] [-sp priority] [-app profile] [-g job_group]\n"
      "            [-gpu - | \"num=N[/task|host]:mode=...\"]\n"
      "            [-Jn|-Rn|-mn|-Wn|-cn|-Mn|-on|-en|-in|-bn|-wn|-En|-Epn|-rn|-Qn|-spn|-appn|-gn|-gpun]\n"
      "            [-aps \"system=value\" | -aps \"admin=value\" | -apsn]\n"
      "            jobid | \"jobid[index_list]\"\n";
  auto vm = cli::parse_options("bmod", argc, argv, opts, pos, usage);
  if (!vm.count("jobs")) {
    std::cerr << usage;
    return 255;
  }
  cli::Session session("bmod");
  wire::RequestEnvelope req;
  auto* q = req.mutable_modify();
  std::vector<std::string> set;
  cli::read_spec_options(vm, session.lsf_conf(), *q->mutable_changes(), set, refuse);
  for (const auto& s : set) q->add_set(s);
  if (vm.count("aps") && vm.count("apsn")) refuse("-aps and -apsn cannot be used together");
  if (vm.count("aps")) {
    // "system=10" or "admin=-2.5"; each replaces what the last -aps set.
    const std::string text = vm["aps"].as<std::string>();
    size_t eq = text.find('=');
    std::string kind = eq == std::string::npos ? text : text.substr(0, eq);
    double value = 0;
    try {
      size_t used = 0;
      value = eq == std::string::npos ? 0 : std::stod(text.substr(eq + 1), &used);
      if (eq + 1 + used != text.size()) value = 0;
    } catch (const std::exception&) {
      value = 0;
    }
    if ((kind != "system" && kind != "admin") || value == 0)
      refuse("-aps \"" + text + "\": expected \"system=value\" or \"admin=value\" with a non-zero value");
    (kind == "system" ? q->mutable_changes()->set_aps_system(value) : q->mutable_changes()->set_aps_admin(value));
    q->add_set(kind == "system" ? "aps_system" : "aps_admin");
    q->add_reset(kind == "system" ? "aps_admin" : "aps_system");
  }
  if (vm.count("apsn")) {
    q->add_reset("aps_system");
    q->add_reset("aps_admin");
  }
  for (const auto& [opt, fields] : kResets)
    if (vm.count(opt))
      for (const char* f : fields) q->add_reset(f);
  if (q->set_size() == 0 && q->reset_size() == 0) refuse("No options to modify");
  for (const auto& ref : cli::job_refs(session, "bmod", vm["jobs"].as<std::vector<std::string>>()))
    *q->add_jobs() = ref;
  auto result = session.call(req);
  if (result.reply && result.reply->status() != wire::STATUS_OK) refuse(result.reply->message());
  return cli::print_results(cli::require_ok("bmod", result).signal_jobs());
}
