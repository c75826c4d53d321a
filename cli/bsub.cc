// bsub: submit a batch job.
//
//   bsub [options] command [args]      or      bsub [options] < script
//
// Options as LSF's: -q -n -R -m -W -c -M -o -oo -e -eo -i -J -x -r -b -E -Ep -w -P -H
// -K -cwd. In a script read from stdin, `#BSUB` lines at the top give options too;
// the command line wins.
#include <poll.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <boost/program_options.hpp>

#include "cli/bsub_options.h"
#include "cli/cli_support.h"
#include "libconfig/limits.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;
using cli::bsub::build_spec;
using cli::bsub::interactive;
using cli::bsub::parse_options;
using cli::bsub::Refused;
using cli::bsub::split_args;

namespace {

// 128 random bits in hex: unique to this submission, so mbatchd can tell a retry from
// a new job.
std::string new_request_id() {
  std::random_device rd;
  std::string id;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    std::uint32_t v = rd();
    for (int b = 0; b < 8; ++b, v >>= 4) id += kHex[v & 0xf];
  }
  return id;
}

[[noreturn]] void not_submitted(const std::string& why) {
  std::cerr << why << ". Job not submitted.\n";
  std::exit(255);
}

// The job's exit code as bsub -K and -I return it: 0 for DONE, the job's own code (or
// 128 + signal) for EXIT, never 0 for EXIT.
int exit_code_of(const wire::JobInfo& j) {
  if (j.state() != wire::JOB_EXIT) return 0;
  int st = j.exit_status();
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
  return code == 0 ? 1 : code;
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
          code = exit_code_of(j);
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

// bsub -Ip/-Is: the terminal bsub runs on, raw while the job has it (keystrokes go to
// the job as typed, ^C included), restored whatever way bsub leaves.
class RawTerminal {
 public:
  RawTerminal() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    cfmakeraw(&raw);
    raw.c_oflag |= OPOST | ONLCR;  // our own messages still start at column 0
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~RawTerminal() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

// What bsub -Ip/-Is has read from its standard input and not yet delivered.
struct Keyboard {
  bool open = true;  // standard input not at its end yet
  std::string pending;

  // Waits up to `ms` for input and takes what there is; at the end of the input, the
  // terminal's end-of-file character, so the job sees it as a typed ^D.
  void wait(int ms) {
    if (!open) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return;
    }
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    if (poll(&fd, 1, ms) <= 0) return;
    char buf[4096];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n > 0) {
      pending.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      open = false;
      pending += '\x04';
    }
  }
};

// bsub -I, -Ip, -Is: progress on standard error, the job's output on standard output as
// it comes, then the job's exit code. With a terminal (-Ip, -Is) what is typed goes to
// the job; with -I standard input is not passed.
int follow_interactive(cli::Session& session, std::int64_t id, bool terminal) {
  std::cerr << "<<Waiting for dispatch ...>>" << std::endl;
  std::optional<RawTerminal> raw;
  if (terminal) raw.emplace();
  Keyboard keys;
  keys.open = terminal;
  bool started = false;
  bool drained = false;  // the host has said there is no more output
  std::int64_t offset = 0;
  for (;;) {
    wire::RequestEnvelope req;
    req.mutable_jobs()->add_jobs()->set_job_id(id);
    auto r = session.call(req);
    if (!r.ok() || r.reply->jobs().jobs_size() == 0) {
      keys.wait(200);
      continue;
    }
    const wire::JobInfo job = r.reply->jobs().jobs(0);
    const bool ended = job.state() == wire::JOB_DONE || job.state() == wire::JOB_EXIT;
    if (!started && !job.exec_hosts().empty()) {
      std::cerr << "<<Starting on " << job.exec_hosts(0) << ">>" << std::endl;
      started = true;
    }
    if (ended && (!started || drained)) return exit_code_of(job);
    // Typed input, once the job's terminal is there (until then its host says so).
    if (started && !ended && !keys.pending.empty()) {
      wire::RequestEnvelope in;
      in.mutable_job_input()->mutable_job()->set_job_id(id);
      in.mutable_job_input()->set_data(keys.pending);
      if (session.call(in).ok()) keys.pending.clear();
    }
    // Read what there is; after the end, until the host says there is no more.
    while (started && !drained) {
      wire::RequestEnvelope peek;
      peek.mutable_peek()->mutable_job()->set_job_id(id);
      peek.mutable_peek()->set_offset(offset);
      auto p = session.call(peek);
      if (!p.ok()) break;
      const auto& out = p.reply->peek();
      std::cout << out.text() << std::flush;
      if (out.next_offset() > offset) offset = out.next_offset();
      if (out.finished() && out.text().empty()) drained = true;
      if (out.text().empty()) break;
    }
    keys.wait(started ? 50 : 100);
  }
}

// bsub -pack FILE: one submission per line (bsub's options, then the command; blank
// lines and # comments skipped), sent LSB_MAX_PACK_JOBS at a time and made durable
// together. A bad line stops the pack there unless LSB_PACK_SKIP_ERROR=Y; the jobs
// before it are submitted. Exit 0 only when every line became a job.
int submit_pack(cli::Session& session, const std::string& file) {
  const auto& conf = session.lsf_conf();
  const bool skip_errors = config::iequals(conf.get("LSB_PACK_SKIP_ERROR").value_or("N"), "Y");
  int max_pack = 300;
  if (auto m = conf.get("LSB_MAX_PACK_JOBS")) max_pack = config::parse_int(*m).value_or(300);
  if (max_pack <= 0)
    not_submitted("-pack: job packs are disabled (LSB_MAX_PACK_JOBS=" + std::to_string(max_pack) + ")");
  std::ifstream in(file);
  if (!in) not_submitted("-pack: cannot read " + file);

  // Every line in file order: a spec to send, or why it cannot be.
  struct Line {
    int number;
    std::optional<wire::JobSpec> spec;
    std::string why;
  };
  std::vector<Line> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    std::string_view t = config::trim(text);
    if (t.empty() || t[0] == '#') continue;
    try {
      std::string err;
      auto words = cli::shell_words(t, &err);
      if (!err.empty()) throw Refused(err);
      std::vector<std::string> option_args, command;
      split_args(words, option_args, command);
      auto vm = parse_options(option_args);
      if (vm.count("pack") || interactive(vm) || vm.count("K") || vm.count("h") || vm.count("V"))
        throw Refused("-pack, -I, -Ip, -Is, -K, -h and -V cannot be used in a pack");
      lines.push_back({number, build_spec(vm, command, {}, conf, session.identity().host_name()), {}});
    } catch (const Refused& r) {
      lines.push_back({number, std::nullopt, r.why});
      if (!skip_errors) break;
    }
  }
  bool failed = false;
  size_t next = 0;  // the first line not reported yet
  while (next < lines.size()) {
    wire::RequestEnvelope req;
    auto* pack = req.mutable_submit_pack();
    pack->set_skip_errors(skip_errors);
    size_t end = next;
    for (; end < lines.size() && pack->specs_size() < max_pack; ++end)
      if (lines[end].spec) *pack->add_specs() = *lines[end].spec;
    wire::SubmitPackReply reply;
    if (pack->specs_size() > 0) reply = cli::require_ok("bsub", session.call(req)).submit_pack();
    int result = 0;
    for (; next < end; ++next) {
      const Line& line = lines[next];
      std::string why = line.why;
      if (line.spec) {
        if (result >= reply.results_size()) return 255;  // mbatchd stopped at an earlier refusal
        const auto& r = reply.results(result++);
        if (r.ok()) {
          std::cout << "Job <" << r.submitted().job_id() << "> is submitted to "
                    << (r.submitted().default_queue() ? "default " : "") << "queue <" << r.submitted().queue() << ">."
                    << std::endl;
          continue;
        }
        why = r.message();
      }
      std::cerr << file << ":" << line.number << ": " << why << ". Job not submitted." << std::endl;
      failed = true;
      if (!skip_errors) return 255;
    }
  }
  std::cout << std::flush;
  return failed ? 255 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc), option_args, command;
  split_args(args, option_args, command);
  po::variables_map vm;
  try {
    vm = parse_options(option_args);
  } catch (const Refused& r) {
    if (!r.detail.empty()) std::cerr << r.detail << "\n";
    not_submitted(r.why);
  }
  if (vm.count("h")) {
    std::cout << "Usage: bsub [-q queue] [-n min[,max]] [-R res_req] [-m hosts] [-W [hh:]mm] [-c [hh:]mm]\n"
                 "            [-M mem] [-o|-oo out] [-e|-eo err] [-i in] [-J name[indices]%n] [-x] [-r]\n"
                 "            [-b [[mm:]dd:]hh:mm] [-E cmd] [-Ep cmd] [-w dependency] [-P project] [-G user_group]\n"
                 "            [-sla service_class] [-sp priority] [-gpu - | \"num=N[/task|host]:mode=...\"]\n"
                 "            [-H] [-K | -I | -Ip | -Is]\n"
                 "            [-Q \"codes [EXCLUDE(codes)]\"] [-env \"all | none | [~]VAR[=value], ...\"] [-rn]\n"
                 "            [-cwd dir] command [args] | < script\n"
                 "       bsub -pack job_submission_file\n";
    return 0;
  }
  if (vm.count("V")) {
    std::cerr << cli::version_text();
    return 0;
  }

  if (vm.count("pack")) {
    if (option_args.size() != 2 || !command.empty())
      not_submitted("-pack cannot be used with other options or a command");
    cli::Session session("bsub");
    return submit_pack(session, vm["pack"].as<std::string>());
  }

  // A script on stdin: its #BSUB lines give options the command line does not.
  std::string script;
  if (command.empty() && !isatty(STDIN_FILENO)) {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    script = ss.str();
    const std::vector<std::string> directives = cli::bsub::script_directives(script);
    if (!directives.empty()) {
      try {
        vm = cli::bsub::parse_with_directives(directives, option_args);
      } catch (const Refused& r) {
        if (!r.detail.empty()) std::cerr << r.detail << "\n";
        not_submitted(r.why);
      }
    }
  }

  cli::Session session("bsub");
  wire::RequestEnvelope req;
  try {
    *req.mutable_submit()->mutable_spec() =
        build_spec(vm, command, script, session.lsf_conf(), session.identity().host_name());
  } catch (const Refused& r) {
    not_submitted(r.why);
  }

  req.mutable_submit()->mutable_spec()->set_request_id(new_request_id());
  auto result = session.call(req);
  if (!result.reply && result.may_have_arrived) {
    // mbatchd may have the job: asking again with the same request id gets that job,
    // never a second one.
    result = session.call(req);
    if (!result.reply && result.may_have_arrived) {
      std::cerr << "bsub: Request timed out; the job may have been submitted. Check with bjobs.\n";
      return 255;
    }
  }
  if (!result.reply) {
    std::cerr << "bsub: batch system daemon not responding: " << result.error << "\n";
    not_submitted("Cannot reach mbatchd");
  }
  if (result.reply->status() != wire::STATUS_OK) not_submitted(result.reply->message());
  const auto& s = result.reply->submit();
  // BSUB_STDERR=y: LSF's messages to standard error, leaving standard output to the job
  // (bsub -K, -I).
  const char* to_stderr = std::getenv("BSUB_STDERR");
  bool err = to_stderr && (*to_stderr == 'y' || *to_stderr == 'Y');
  (err ? std::cerr : std::cout) << "Job <" << s.job_id() << "> is submitted to "
                                << (s.default_queue() ? "default " : "") << "queue <" << s.queue() << ">." << std::endl;
  if (vm.count("K")) return wait_for_job(session, s.job_id());
  if (interactive(vm)) return follow_interactive(session, s.job_id(), vm.count("Ip") || vm.count("Is"));
  return 0;
}
