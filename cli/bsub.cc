// bsub: submit a batch job.
//
//   bsub [options] command [args]      or      bsub [options] < script
//
// Options as LSF's: -q -n -R -m -W -c -M -o -oo -e -eo -i -J -x -r -b -E -Ep -w -P -H
// -K -cwd. In a script read from stdin, `#BSUB` lines at the top give options too;
// the command line wins.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "libconfig/limits.h"
#include "libconfig/text.h"

extern char** environ;

namespace po = boost::program_options;
using namespace lsf;

namespace {

[[noreturn]] void not_submitted(const std::string& why) {
  std::cerr << why << ". Job not submitted.\n";
  std::exit(255);
}

// Options that take a value; everything else starting with '-' is a flag.
const std::set<std::string> kWithValue = {"q", "n", "R", "m",  "W", "c", "M",   "o", "oo", "e", "eo", "i",
                                          "J", "b", "E", "Ep", "w", "P", "cwd", "G", "u",  "L", "g",  "sp"};
const std::set<std::string> kFlags = {"x", "r", "H", "K", "B", "N", "rn", "h", "V"};

// Splits argv into options and the command: the first word that is not an option or
// an option's value starts the command, whatever follows it.
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

// -b [[month:]day:]hour:minute -> the next such time.
std::int64_t parse_begin_time(const std::string& text) {
  auto parts = config::split(text, ':');
  if (parts.size() < 2 || parts.size() > 4) not_submitted("Bad time specification");
  std::vector<int> v;
  for (const auto& p : parts) {
    auto n = config::parse_int(p);
    if (!n) not_submitted("Bad time specification");
    v.push_back(static_cast<int>(*n));
  }
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  tm.tm_sec = 0;
  tm.tm_min = v.back();
  tm.tm_hour = v[v.size() - 2];
  if (v.size() >= 3) tm.tm_mday = v[v.size() - 3];
  if (v.size() == 4) tm.tm_mon = v[0] - 1;
  if (tm.tm_min > 59 || tm.tm_hour > 23) not_submitted("Bad time specification");
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t < now) {
    if (v.size() == 2)
      t += 24 * 3600;
    else if (v.size() == 3) {
      tm.tm_mon += 1;
      t = std::mktime(&tm);
    } else {
      tm.tm_year += 1;
      t = std::mktime(&tm);
    }
  }
  return t;
}

// [hours:]minutes[/host_spec] -> seconds, read as lsb.queues limits are.
std::int64_t parse_minutes(const std::string& text, const char* what) {
  auto limit = config::TimeLimit::parse(text);
  if (!limit) not_submitted(std::string("Bad ") + what + " specification");
  return std::int64_t{limit->minutes} * 60;
}

int wait_for_job(cli::Session& session, std::int64_t id) {
  std::cout << "<<Waiting for dispatch ...>>" << std::endl;
  bool started = false;
  for (;;) {
    wire::RequestEnvelope req;
    req.mutable_jobs()->add_jobs()->set_job_id(id);
    req.mutable_jobs()->set_user("all");
    auto r = session.call(req);
    if (r.ok() && r.reply->jobs().jobs_size() > 0) {
      bool all_done = true;
      int code = 0;
      for (const auto& j : r.reply->jobs().jobs()) {
        if (!started && !j.exec_hosts().empty()) {
          std::cout << "<<Starting on " << j.exec_hosts(0) << ">>" << std::endl;
          started = true;
        }
        if (j.state() != wire::JOB_DONE && j.state() != wire::JOB_EXIT) {
          all_done = false;
        } else if (j.state() == wire::JOB_EXIT) {
          int st = j.exit_status();
          code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
          if (code == 0) code = 1;
        }
      }
      if (all_done) {
        std::cout << "<<Job is finished>>" << std::endl;
        return code;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc), option_args, command;
  split_args(args, option_args, command);

  // A script on stdin: its #BSUB lines come first, so the command line overrides them.
  std::string script;
  if (command.empty() && !isatty(STDIN_FILENO)) {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    script = ss.str();
    std::vector<std::string> directives;
    std::istringstream lines(script);
    std::string line;
    while (std::getline(lines, line)) {
      std::string_view l = config::trim(line);
      if (l.rfind("#BSUB", 0) == 0) {
        std::string err;
        for (auto& w : config::split_words(l.substr(5), &err)) directives.push_back(w);
      }
    }
    option_args.insert(option_args.begin(), directives.begin(), directives.end());
  }

  po::options_description opts;
  opts.add_options()("q", po::value<std::vector<std::string>>()->composing(), "queues")(
      "n", po::value<std::string>(), "min[,max] slots")("R", po::value<std::vector<std::string>>(), "res req")(
      "m", po::value<std::vector<std::string>>(), "hosts")("W", po::value<std::string>(), "run limit")(
      "c", po::value<std::string>(), "cpu limit")("M", po::value<std::string>(), "memory limit")(
      "o", po::value<std::string>(), "")("oo", po::value<std::string>(), "")("e", po::value<std::string>(), "")(
      "eo", po::value<std::string>(), "")("i", po::value<std::string>(), "")("J", po::value<std::string>(), "")(
      "b", po::value<std::string>(), "")("E", po::value<std::string>(), "")("Ep", po::value<std::string>(), "")(
      "w", po::value<std::string>(), "")("P", po::value<std::string>(), "")("cwd", po::value<std::string>(), "")(
      "G", po::value<std::string>(), "")("u", po::value<std::string>(), "")("L", po::value<std::string>(), "")(
      "g", po::value<std::string>(), "")("sp", po::value<std::string>(), "")("x", "")("r", "")("rn", "")("H", "")(
      "K", "")("B", "")("N", "")("h", "")("V", "");
  po::variables_map vm;
  try {
    const int style = cli::option_style();
    po::store(po::command_line_parser(option_args).options(opts).style(style).run(), vm);
  } catch (const po::error& e) {
    std::cerr << "bsub: " << e.what() << "\n";
    not_submitted("Bad argument");
  }
  if (vm.count("h")) {
    std::cout << "Usage: bsub [-q queue] [-n min[,max]] [-R res_req] [-m hosts] [-W [hh:]mm] [-c [hh:]mm]\n"
                 "            [-M mem] [-o|-oo out] [-e|-eo err] [-i in] [-J name[indices]%n] [-x] [-r]\n"
                 "            [-b [[mm:]dd:]hh:mm] [-E cmd] [-Ep cmd] [-w dependency] [-P project] [-H] [-K]\n"
                 "            [-cwd dir] command [args] | < script\n";
    return 0;
  }
  if (vm.count("V")) {
    std::cout << "lsfsched " << LSFSCHED_VERSION << "\n";
    return 0;
  }

  cli::Session session("bsub");
  wire::RequestEnvelope req;
  auto* spec = req.mutable_submit()->mutable_spec();
  if (!command.empty()) {
    std::string cmd;
    // As LSF: the words joined by spaces, so `bsub "echo $HOME"` expands at run time.
    for (const auto& w : command) cmd += (cmd.empty() ? "" : " ") + w;
    spec->set_command(cmd);
  } else if (!script.empty()) {
    spec->set_command(script);
  } else {
    not_submitted("No command is specified");
  }
  if (vm.count("q"))
    for (const auto& q : vm["q"].as<std::vector<std::string>>())
      for (const auto& w : config::split_words(q)) spec->add_queues(w);
  if (spec->queues_size() == 0)
    if (const char* dq = std::getenv("LSB_DEFAULTQUEUE"); dq && *dq) spec->add_queues(dq);
  if (vm.count("n")) {
    auto text = vm["n"].as<std::string>();
    auto comma = text.find(',');
    auto min = config::parse_int(text.substr(0, comma));
    auto max = comma == std::string::npos ? min : config::parse_int(text.substr(comma + 1));
    if (!min || !max || *min < 1 || *max < *min) not_submitted("Bad argument for option -n");
    spec->set_min_processors(static_cast<int>(*min));
    spec->set_max_processors(static_cast<int>(*max));
  }
  if (vm.count("R")) {
    std::string rr;
    for (const auto& r : vm["R"].as<std::vector<std::string>>()) rr += (rr.empty() ? "" : " ") + r;
    spec->set_res_req(rr);
  }
  if (vm.count("m"))
    for (const auto& m : vm["m"].as<std::vector<std::string>>())
      for (const auto& w : config::split_words(m)) spec->add_asked_hosts(w);
  if (vm.count("W")) spec->set_run_limit_s(parse_minutes(vm["W"].as<std::string>(), "runtime"));
  if (vm.count("c")) spec->set_cpu_limit_s(parse_minutes(vm["c"].as<std::string>(), "CPU time"));
  if (vm.count("M")) {
    auto mem = config::parse_memory(vm["M"].as<std::string>(), session.lsf_conf().unit_for_limits);
    if (!mem) not_submitted("Bad memory limit specification");
    spec->set_mem_limit_kb(*mem);
  }
  if (vm.count("o")) spec->set_out_file(vm["o"].as<std::string>());
  if (vm.count("oo")) {
    spec->set_out_file(vm["oo"].as<std::string>());
    spec->set_out_overwrite(true);
  }
  if (vm.count("e")) spec->set_err_file(vm["e"].as<std::string>());
  if (vm.count("eo")) {
    spec->set_err_file(vm["eo"].as<std::string>());
    spec->set_err_overwrite(true);
  }
  if (vm.count("i")) spec->set_in_file(vm["i"].as<std::string>());
  if (vm.count("J")) {
    std::string name = vm["J"].as<std::string>();
    auto b = name.find('[');
    if (b != std::string::npos) {
      auto e = name.find(']', b);
      if (e == std::string::npos) not_submitted("Bad job array index list");
      spec->set_array_spec(name.substr(b + 1, e - b - 1));
      std::string rest = name.substr(e + 1);
      if (!rest.empty()) {
        auto lim = rest[0] == '%' ? config::parse_int(rest.substr(1)) : std::nullopt;
        if (!lim || *lim < 1) not_submitted("Bad job array index list");
        spec->set_array_limit(static_cast<int>(*lim));
      }
      name = name.substr(0, b);
    }
    spec->set_job_name(name);
  } else {
    spec->set_job_name(command.empty() ? script.substr(0, script.find('\n')) : spec->command());
  }
  if (vm.count("x")) spec->set_exclusive(true);
  if (vm.count("r")) spec->set_rerunnable(true);
  if (vm.count("H")) spec->set_hold(true);
  if (vm.count("b")) spec->set_begin_time(parse_begin_time(vm["b"].as<std::string>()));
  if (vm.count("E")) spec->set_pre_exec(vm["E"].as<std::string>());
  if (vm.count("Ep")) spec->set_post_exec(vm["Ep"].as<std::string>());
  if (vm.count("w")) spec->set_dependency(vm["w"].as<std::string>());
  if (vm.count("P")) spec->set_project(vm["P"].as<std::string>());
  if (vm.count("cwd")) {
    spec->set_cwd(vm["cwd"].as<std::string>());
  } else {
    std::vector<char> buf(4096);
    if (getcwd(buf.data(), buf.size())) spec->set_cwd(buf.data());
  }
  mode_t mask = umask(022);
  umask(mask);
  spec->set_umask(mask);
  spec->set_from_host(session.identity().host_name());
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    auto* v = spec->add_env();
    v->set_name(kv.substr(0, eq));
    v->set_value(kv.substr(eq + 1));
  }

  auto result = session.call(req);
  if (!result.reply) {
    std::cerr << "bsub: batch system daemon not responding: " << result.error << "\n";
    not_submitted("Cannot reach mbatchd");
  }
  if (result.reply->status() != wire::STATUS_OK) not_submitted(result.reply->message());
  const auto& s = result.reply->submit();
  std::cout << "Job <" << s.job_id() << "> is submitted to " << (s.default_queue() ? "default " : "") << "queue <"
            << s.queue() << ">." << std::endl;
  if (vm.count("K")) return wait_for_job(session, s.job_id());
  return 0;
}
