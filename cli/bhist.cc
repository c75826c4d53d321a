// bhist: the history of jobs, from the event log mbatchd keeps.
//
//   bhist [-a | -d | -p | -r | -s] [-l [-gpu]] [-w] [-u user | -u all] [-J name] [-q queue] [-m host]
//         [-P project] [-C time0,time1] [-D time0,time1] [-S time0,time1] [jobid | "jobid[index_list]" ...]
//
// Default: the caller's unfinished jobs, with the seconds each spent in each state;
// -l: every event of each job, then that summary. mbatchd sends the records of the
// jobs asked for (or of the user's); the filters are applied here, on the replay.
// -l -gpu: each dispatch's GPU_ALLOCATION, from the JOB_START record.
#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <boost/program_options.hpp>

#include "cli/cli_support.h"
#include "cli/gpu_views.h"
#include "cli/history_text.h"
#include "cli/time_interval.h"
#include "libconfig/text.h"

namespace po = boost::program_options;
using namespace lsf;

namespace {

enum Slot { kPend, kPsusp, kRun, kUsusp, kSsusp, kUnkwn, kSlots };

struct History {
  std::int64_t id = 0;
  std::int32_t index = 0;
  std::string user, name, project, command, queue;
  std::string job_name;  // as given to -J (without the element's index)
  std::string gpu_req;   // -gpu as submitted (for which task each device serves)
  wire::JobState state = wire::JOB_PEND;
  std::int64_t since = 0;  // entered `state`
  std::int64_t submit_time = 0, end_time = 0;
  std::vector<std::int64_t> dispatch_times;
  std::set<std::string> exec_hosts;  // every host it was dispatched to
  std::int64_t seconds[kSlots] = {};
  std::vector<std::pair<std::int64_t, std::string>> lines;  // -l: time, event text
  std::map<size_t, wire::JobInfo> gpu_blocks;               // -l -gpu: the GPUs given at lines[k]'s dispatch
  bool ended() const { return state == wire::JOB_DONE || state == wire::JOB_EXIT; }
};

int slot_of(wire::JobState s) {
  switch (s) {
    case wire::JOB_PEND:
      return kPend;
    case wire::JOB_PSUSP:
      return kPsusp;
    case wire::JOB_RUN:
      return kRun;
    case wire::JOB_USUSP:
      return kUsusp;
    case wire::JOB_SSUSP:
      return kSsusp;
    case wire::JOB_UNKWN:
      return kUnkwn;
    default:
      return -1;
  }
}

void enter(History& h, wire::JobState to, std::int64_t at) {
  if (int s = slot_of(h.state); s >= 0 && h.since > 0) h.seconds[s] += std::max<std::int64_t>(0, at - h.since);
  h.state = to;
  h.since = at;
}

std::string cpu_text(double cpu) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", cpu);
  return buf;
}

// Replays the records into one history per job or element.
std::map<std::pair<std::int64_t, std::int32_t>, History> replay(const wire::HistoryReply& reply) {
  std::map<std::pair<std::int64_t, std::int32_t>, History> out;
  auto each = [&](std::int64_t id, std::int32_t index, auto&& f) {
    for (auto& [key, h] : out)
      if (key.first == id && (index == 0 || key.second == index)) f(h);
  };
  for (const auto& r : reply.events()) {
    const std::int64_t t = r.time();
    if (r.has_job_new()) {
      const auto& e = r.job_new();
      // A plain job is element 0. (Built in one step: GCC 12 warns, wrongly, about a
      // vector made from the range and then grown.)
      const std::vector<std::int32_t> indices = e.indices().empty()
                                                    ? std::vector<std::int32_t>{0}
                                                    : std::vector<std::int32_t>(e.indices().begin(), e.indices().end());
      for (auto i : indices) {
        History h;
        h.id = e.job_id();
        h.index = i;
        h.user = e.user();
        h.job_name = e.spec().job_name().empty() ? e.spec().command() : e.spec().job_name();
        h.name = i > 0 ? h.job_name + "[" + std::to_string(i) + "]" : h.job_name;
        h.project = e.spec().project().empty() ? "default" : e.spec().project();
        h.command = e.spec().command();
        h.gpu_req = e.spec().gpu();
        h.queue = e.queue();
        h.state = e.spec().hold() ? wire::JOB_PSUSP : wire::JOB_PEND;
        h.since = e.submit_time();
        h.submit_time = e.submit_time();
        std::string text = "Submitted from host <" + e.spec().from_host() + ">, to Queue <" + e.queue() + ">, CWD <" +
                           e.spec().cwd() + ">";
        if (!e.spec().out_file().empty()) text += ", Output File <" + e.spec().out_file() + ">";
        if (e.spec().min_processors() > 1) text += ", " + std::to_string(e.spec().min_processors()) + " Task(s)";
        if (!e.spec().res_req().empty()) text += ", Requested Resources <" + e.spec().res_req() + ">";
        h.lines.emplace_back(e.submit_time(), text + ";");
        if (e.spec().hold()) h.lines.emplace_back(e.submit_time(), "Suspended by the user or administrator;");
        out[{h.id, h.index}] = std::move(h);
      }
    } else if (r.has_job_start()) {
      const auto& e = r.job_start();
      each(e.job_id(), e.index(), [&](History& h) {
        enter(h, wire::JOB_RUN, t);
        h.dispatch_times.push_back(t);
        h.exec_hosts.insert(e.exec_hosts().begin(), e.exec_hosts().end());
        // LSF adds `, Effective RES_REQ <...>`; the event does not carry the merged requirement.
        h.lines.emplace_back(
            t, "Dispatched " + cli::dispatched_text(e.exec_hosts()) + (e.forced() ? ", by brun -f" : "") + ";");
        if (!e.gpus().empty()) {
          wire::JobInfo alloc;
          alloc.set_gpu_req(h.gpu_req);
          *alloc.mutable_exec_hosts() = e.exec_hosts();
          *alloc.mutable_gpus() = e.gpus();
          h.gpu_blocks[h.lines.size() - 1] = std::move(alloc);
        }
      });
    } else if (r.has_job_execute()) {
      const auto& e = r.job_execute();
      each(e.job_id(), e.index(), [&](History& h) {
        const std::string pid = std::to_string(e.pid());
        h.lines.emplace_back(t, "Starting (Pid " + pid + ");");
        // Scripts take the job's start from this line (LSF's JOB_EXECUTE).
        if (!e.exec_home().empty() || !e.exec_cwd().empty())
          h.lines.emplace_back(t, "Running with execution home <" + e.exec_home() + ">, Execution CWD <" +
                                      e.exec_cwd() + ">, Execution Pid <" + pid + ">;");
      });
    } else if (r.has_job_status()) {
      const auto& e = r.job_status();
      each(e.job_id(), e.index(), [&](History& h) {
        std::string text, then;  // `then`: a second line at the same time
        switch (e.state()) {
          case wire::JOB_DONE:
            text = "Done successfully. The CPU time used is " + cpu_text(e.cpu_time()) + " seconds;";
            // sbatchd reports a job finished only after its post-execution commands ran
            // (whether they succeeded is not reported; bsub -w post_done reads DONE alike).
            then = "Post job process done successfully;";
            break;
          case wire::JOB_EXIT:
            text = "Exited with exit code " + std::to_string(cli::exit_code(e.exit_status())) +
                   ". The CPU time used is " + cpu_text(e.cpu_time()) + " seconds;";
            then = "Completed <exit>" +
                   (e.reason().empty() ? std::string() : "; " + cli::exit_reason_explained(e.reason())) + ";";
            break;
          case wire::JOB_USUSP:
            text = "Suspended by the user or administrator;";
            break;
          case wire::JOB_PSUSP:
            text = "Suspended by the user or administrator while pending;";
            break;
          case wire::JOB_SSUSP:
            text = "Suspended by LSF" + (e.reason().empty() ? std::string() : ": " + e.reason()) + ";";
            break;
          case wire::JOB_RUN:
            text = "Running;";
            break;
          case wire::JOB_PEND:
            text = "Resumed: pending again;";
            break;
          default:
            text = std::string("Status <") + cli::state_name(e.state()) + ">;";
            break;
        }
        enter(h, e.state(), t);
        if (h.ended()) h.end_time = t;
        h.lines.emplace_back(t, text);
        if (!then.empty()) h.lines.emplace_back(t, then);
      });
    } else if (r.has_job_requeue()) {
      const auto& e = r.job_requeue();
      each(e.job_id(), e.index(), [&](History& h) {
        enter(h, e.hold() ? wire::JOB_PSUSP : wire::JOB_PEND, t);
        h.lines.emplace_back(t, std::string("Job has been requeued") + (e.hold() ? " and held" : "") + ";");
      });
    } else if (r.has_job_switch()) {
      const auto& e = r.job_switch();
      each(e.job_id(), e.index(), [&](History& h) {
        h.queue = e.queue();
        h.lines.emplace_back(t, "Switched to Queue <" + e.queue() + ">;");
      });
    } else if (r.has_job_modify()) {
      const auto& e = r.job_modify();
      each(e.job_id(), e.index(), [&](History& h) {
        // The submission as it is now: -J and -P select by the current name and project.
        if (!e.spec().job_name().empty()) h.job_name = e.spec().job_name();
        if (!e.spec().project().empty()) h.project = e.spec().project();
        h.lines.emplace_back(t, "Parameters of Job are changed;");
      });
    } else if (r.has_job_move()) {
      const auto& e = r.job_move();
      each(e.job_id(), e.index(), [&](History& h) { h.lines.emplace_back(t, "Job moved in its queue (btop/bbot);"); });
    }
  }
  return out;
}

std::string padded(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string label(const History& h) {
  return std::to_string(h.id) + (h.index > 0 ? "[" + std::to_string(h.index) + "]" : "");
}

// LSF's options this bhist does not have: refused by name, never ignored.
[[noreturn]] void refuse(const std::string& option, const std::string& why) {
  std::cerr << "bhist: " << option << ": option not supported" << (why.empty() ? "" : " (" + why + ")") << "\n";
  std::exit(255);
}

cli::TimeInterval interval_of(const po::variables_map& vm, const char* option) {
  return cli::time_interval_option("bhist", option, vm[option].as<std::string>());
}

// The filters of -J, -q, -m, -P, -C, -D and -S: each given one must hold.
struct Filters {
  std::optional<std::string> name, queue, host, project;
  std::optional<cli::TimeInterval> completed, dispatched, submitted;
  bool keeps(const History& h) const {
    if (name && fnmatch(name->c_str(), h.job_name.c_str(), 0) != 0 && fnmatch(name->c_str(), h.name.c_str(), 0) != 0)
      return false;
    if (queue && h.queue != *queue) return false;
    if (host && !h.exec_hosts.count(*host)) return false;
    if (project && h.project != *project) return false;
    if (completed && !(h.ended() && completed->contains(h.end_time))) return false;
    if (dispatched && std::none_of(h.dispatch_times.begin(), h.dispatch_times.end(),
                                   [&](std::int64_t t) { return dispatched->contains(t); }))
      return false;
    if (submitted && !submitted->contains(h.submit_time)) return false;
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts;
  opts.add_options()("a", "")("d", "")("p", "")("r", "")("s", "")("l", "")("w", "")("u", po::value<std::string>(), "")(
      "n", po::value<std::string>(), "")("J", po::value<std::string>(), "")("q", po::value<std::string>(), "")(
      "m", po::value<std::string>(), "")("P", po::value<std::string>(), "")("C", po::value<std::string>(), "")(
      "D", po::value<std::string>(), "")("S", po::value<std::string>(), "")("gpu", "")(
      "jobs", po::value<std::vector<std::string>>(), "");
  // Refused (LSF has them; see refuse()).
  opts.add_options()("b", "")("e", "")("t", "")("UF", "")("Jd", "")("Lp", "")("aff", "")("hostfile", "")("data", "")(
      "cname", "")("T", po::value<std::string>(), "")("f", po::value<std::string>(), "")(
      "N", po::value<std::string>(), "")("G", po::value<std::string>(), "")("g", po::value<std::string>(), "")(
      "app", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("jobs", -1);
  auto vm = cli::parse_options(
      "bhist", argc, argv, opts, pos,
      "Usage: bhist [-a | -d | -p | -r | -s] [-l [-gpu]] [-w] [-n number_logfiles] [-u user | -u all]\n"
      "             [-J job_name] [-q queue] [-m host] [-P project]\n"
      "             [-C start,end] [-D start,end] [-S start,end] [jobid | \"jobid[index_list]\" ...]\n");
  if (vm.count("f")) refuse("-f", "bhist reads the event log through mbatchd, not a local file");
  if (vm.count("gpu") && !vm.count("l")) {
    std::cerr << "bhist: -gpu: use it with -l\n";
    return 255;
  }
  for (const char* o : {"b", "e", "t", "UF", "Jd", "Lp", "aff", "hostfile", "data", "cname", "T", "N", "G", "g", "app"})
    if (vm.count(o)) refuse(std::string("-") + o, "");
  Filters filters;
  if (vm.count("J")) filters.name = vm["J"].as<std::string>();
  if (vm.count("q")) filters.queue = vm["q"].as<std::string>();
  if (vm.count("m")) filters.host = vm["m"].as<std::string>();
  if (vm.count("P")) filters.project = vm["P"].as<std::string>();
  if (vm.count("C")) filters.completed = interval_of(vm, "C");
  if (vm.count("D")) filters.dispatched = interval_of(vm, "D");
  if (vm.count("S")) filters.submitted = interval_of(vm, "S");
  cli::Session session("bhist");
  wire::RequestEnvelope req;
  auto* q = req.mutable_history();
  // The jobs and elements asked for: mbatchd sends an array's JOB_NEW, from which the
  // replay makes every element; only the asked ones are shown (index 0: all).
  std::set<std::pair<std::int64_t, std::int32_t>> asked;
  if (vm.count("jobs"))
    for (const auto& ref : cli::job_refs(session, "bhist", vm["jobs"].as<std::vector<std::string>>())) {
      *q->add_jobs() = ref;
      asked.insert({ref.job_id(), ref.index()});
    }
  if (vm.count("u")) q->set_user(vm["u"].as<std::string>());
  if (vm.count("n")) {
    // LSF's range: 0 (every file) to 100.
    const auto text = vm["n"].as<std::string>();
    auto n = config::parse_int(text);
    if (!n || *n < 0 || *n > 100) {
      std::cerr << "bhist: -n " << text << ": the number of event log files must be 0 (all) to 100\n";
      return 255;
    }
    q->set_log_files(*n);
  }
  const auto reply = cli::fetch_history(session, "bhist", req);
  auto histories = replay(reply);
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  const bool named = vm.count("jobs") > 0;
  // Without a state option, -C, -D and -S (like job ids) select jobs in any state;
  // -C itself only finished ones.
  const bool by_time = vm.count("C") || vm.count("D") || vm.count("S");
  std::vector<History*> shown;
  for (auto& [key, h] : histories) {
    if (named && !asked.count({h.id, 0}) && !asked.count({h.id, h.index})) continue;
    if (!filters.keeps(h)) continue;
    bool keep = named || vm.count("a") ? true
                : vm.count("d")        ? h.ended()
                : vm.count("p")        ? h.state == wire::JOB_PEND || h.state == wire::JOB_PSUSP
                : vm.count("r")        ? h.state == wire::JOB_RUN
                : vm.count("s")        ? h.state == wire::JOB_USUSP || h.state == wire::JOB_SSUSP
                : by_time              ? true
                                       : !h.ended();
    if (keep) shown.push_back(&h);
  }
  if (shown.empty()) {
    std::cerr << "No matching job found\n";
    return named ? 255 : 0;
  }
  // Time spent up to the end (finished) or up to now.
  for (History* h : shown) {
    std::int64_t until = h->ended() ? h->since : now;
    if (int s = slot_of(h->state); s >= 0) h->seconds[s] += std::max<std::int64_t>(0, until - h->since);
  }
  auto total = [](const History& h) {
    std::int64_t t = 0;
    for (auto s : h.seconds) t += s;
    return t;
  };
  if (vm.count("l")) {
    // -gpu: the hosts' devices (model, memory) as they report them now.
    std::optional<wire::HostsReply> gpu_hosts;
    if (vm.count("gpu")) {
      wire::RequestEnvelope h;
      h.mutable_hosts();
      gpu_hosts.emplace();
      if (auto r = session.call(h); r.reply && r.reply->status() == wire::STATUS_OK) *gpu_hosts = r.reply->hosts();
    }
    bool first = true;
    for (const History* h : shown) {
      if (!first) std::cout << std::string(78, '-') << "\n";
      first = false;
      std::cout << "\n";
      cli::print_wrapped("Job <" + label(*h) + ">, Job Name <" + h->name + ">, User <" + h->user + ">, Project <" +
                             h->project + ">, Command <" + h->command + ">",
                         21);
      for (size_t k = 0; k < h->lines.size(); ++k) {
        cli::print_wrapped(cli::long_time(h->lines[k].first) + ": " + h->lines[k].second, 21);
        if (auto b = h->gpu_blocks.find(k); gpu_hosts && b != h->gpu_blocks.end()) {
          cli::print_gpu_allocation(std::cout, b->second, *gpu_hosts);
          std::cout << "\n";
        }
      }
      std::cout << "\nSummary of time in seconds spent in various states by  "
                << cli::long_time(h->ended() ? h->since : now) << "\n";
      std::cout << "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n";
      std::string line = " ";
      for (auto v : h->seconds) line += " " + padded(std::to_string(v), 8);
      line += " " + std::to_string(total(*h));
      std::cout << line << "\n\n";
    }
    return 0;
  }
  std::cout << "Summary of time in seconds spent in various states:\n"
            << "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL\n";
  for (const History* h : shown) {
    std::string name = vm.count("w") ? h->name : cli::tail_truncate(h->name, 9);
    std::string user = vm.count("w") ? h->user : h->user.substr(0, 7);
    std::string line = padded(label(*h), 7) + " " + padded(user, 7) + " " + padded(name, 9);
    for (auto v : h->seconds) line += " " + padded(std::to_string(v), 7);
    line += " " + std::to_string(total(*h));
    std::cout << line << "\n";
  }
  return 0;
}
