#include "cli/cli_support.h"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>

#include "daemons/common/cluster_key.h"
#include "libconfig/config_loader.h"

namespace lsf::cli {

namespace {

// How long a command waits for a connection to one master candidate before it tries
// the next (LSF_MASTER_LIST of two or more).
constexpr std::chrono::milliseconds kCandidateConnectTimeout{2000};

}  // namespace

Session::Session(const std::string& command) : command_(command), identity_(net::current_identity()) {
  auto envdir = net::envdir_from_environment();
  config::Diagnostics diags;
  if (!std::filesystem::exists(envdir / "lsf.conf")) {
    std::cerr << command << ": cannot read " << (envdir / "lsf.conf").string() << " (is LSF_ENVDIR set?)\n";
    std::exit(255);
  }
  conf_ = config::read_lsf_conf(envdir, config::local_week_instant(), diags);
  auto ep = net::master_endpoint(conf_);
  if (!ep.error.empty()) {
    std::cerr << command << ": " << ep.error << "\n";
    std::exit(255);
  }
  endpoint_ = ep.endpoint;
}

net::CallResult Session::call(wire::RequestEnvelope request) {
  if (!client_) {
    client_.emplace(endpoint_.host, endpoint_.port, endpoint_.timeout);
    client_->set_local_socket(endpoint_.local_socket);
    // An ordinary user cannot read the key and is refused over TCP; an administrator
    // (or root) on a host without the master's socket signs with it. Elsewhere a user
    // goes through this host's sbatchd, which names them as its kernel does.
    if (auto key = net::load_cluster_key(net::envdir_from_environment()); key.key) {
      client_->set_key(*key.key, "mbatchd");
    } else if (std::error_code ec; !std::filesystem::exists(endpoint_.local_socket, ec)) {
      const std::string relay = net::sbatchd_socket_path(conf_);
      if (!relay.empty() && std::filesystem::exists(relay, ec))
        client_->set_local_socket(relay);
      else
        unsigned_hint_ = " (this host has neither mbatchd's socket nor sbatchd's" +
                         (relay.empty() ? std::string(" (LSB_SBD_SOCKET=none)") : " at " + relay) +
                         ", and the cluster key is not readable: run the command on the master host, or on a host "
                         "whose sbatchd is running)";
    }
  }
  *request.mutable_caller() = identity_;
  const bool changes = changes_state(request.request_case());
  const bool follow = conf_.master_list.size() >= 2 && !conf_.get("LSB_MBD_HOST");
  // With candidates to follow, a host that is gone costs a connect timeout, not the
  // whole call's (a host that is up completes the TCP handshake in its kernel at once).
  const auto connect_within = std::min(endpoint_.timeout, kCandidateConnectTimeout);
  if (follow) client_->set_connect_timeout(connect_within);
  auto result = client_->call(request);
  // Master failover: when the master is not where lsf.conf points (nothing answers
  // there, or an mbatchd whose term was taken over), the other candidates of
  // LSF_MASTER_LIST are asked in order; the first error is the one reported. Not with
  // LSB_MBD_HOST, which says where mbatchd is (a local cluster: its socket follows the
  // master).
  auto elsewhere = [](const net::CallResult& r) {
    return r.reply ? r.reply->status() == wire::STATUS_NOT_MASTER : !r.may_have_arrived;
  };
  for (size_t i = 0; follow && i < conf_.master_list.size() && elsewhere(result); ++i) {
    const std::string& host = conf_.master_list[i];
    if (host == endpoint_.host) continue;
    net::RpcClient next(host, endpoint_.port, endpoint_.timeout);
    next.set_connect_timeout(connect_within);
    if (auto key = net::load_cluster_key(net::envdir_from_environment()); key.key) next.set_key(*key.key, "mbatchd");
    if (auto again = next.call(request); !elsewhere(again)) {
      result = std::move(again);
      // The session's later calls (pages of a reply, a command's second request) go
      // there first.
      if (result.reply) {
        endpoint_.host = host;
        client_.reset();
      }
      break;
    }
  }
  // No candidate answered and the first took no connection in time: it is given the
  // whole timeout after all, should it be up but too loaded to take one at once.
  if (follow && client_ && result.connect_timed_out && connect_within < endpoint_.timeout) {
    client_->set_connect_timeout(std::chrono::milliseconds(0));
    result = client_->call(request);
  }
  if (!unsigned_hint_.empty() && result.reply && result.reply->status() == wire::STATUS_PERMISSION_DENIED &&
      result.reply->message().find("not signed with the cluster key") != std::string::npos)
    result.reply->set_message(result.reply->message() + unsigned_hint_);
  // A request that reached mbatchd may still be carried out after we stop waiting:
  // saying it failed would make users repeat it.
  if (!result.reply && result.may_have_arrived && changes)
    result.error = "Request timed out; it may have taken effect. Check with bjobs (" + result.error + ")";
  return result;
}

wire::JobsReply fetch_jobs(Session& session, const std::string& command, wire::RequestEnvelope request) {
  auto* q = request.mutable_jobs();
  q->set_paged(true);
  wire::JobsReply all;
  for (;;) {
    auto reply = require_ok(command, session.call(request));
    auto page = std::move(*reply.mutable_jobs());
    for (auto& e : *page.mutable_errors()) all.add_errors(std::move(e));
    for (auto& j : *page.mutable_jobs()) *all.add_jobs() = std::move(j);
    if (!page.more() || page.jobs_size() == 0) return all;
    const auto& last = all.jobs(all.jobs_size() - 1);
    q->mutable_after()->set_job_id(last.job_id());
    q->mutable_after()->set_index(last.index());
  }
}

wire::HistoryReply fetch_history(Session& session, const std::string& command, wire::RequestEnvelope request) {
  auto* q = request.mutable_history();
  q->set_paged(true);
  wire::HistoryReply all;
  for (;;) {
    auto reply = require_ok(command, session.call(request));
    auto page = std::move(*reply.mutable_history());
    for (auto& e : *page.mutable_events()) *all.add_events() = std::move(e);
    if (!page.more() || page.events_size() == 0) return all;
    q->set_after_seq(all.events(all.events_size() - 1).seq());
  }
}

wire::AcctReply fetch_acct(Session& session, const std::string& command, wire::RequestEnvelope request) {
  auto* q = request.mutable_acct();
  q->set_paged(true);
  wire::AcctReply all;
  for (;;) {
    auto reply = require_ok(command, session.call(request));
    auto page = std::move(*reply.mutable_acct());
    for (auto& r : *page.mutable_records()) *all.add_records() = std::move(r);
    if (!page.more() || page.next_offset() <= q->offset()) return all;
    q->set_offset(page.next_offset());
  }
}

bool changes_state(wire::RequestEnvelope::RequestCase kind) {
  using R = wire::RequestEnvelope;
  switch (kind) {
    case R::kPing:
    case R::kClusterInfo:
    case R::kJobs:
    case R::kQueues:
    case R::kHosts:
    case R::kConfigInfo:
    case R::kUsers:
    case R::kHostPartitions:
    case R::kGuaranteePools:
    case R::kApplications:
    case R::kJobGroups:
    case R::kExports:
    case R::kClusters:
    case R::kPeek:
    case R::kWaitCondition:
    case R::kHistory:
    case R::kAcct:
    case R::kLimits:
    case R::kSharedResources:
      return false;
    default:
      return true;
  }
}

namespace {

void exit_unless_ok(const std::string& command, const net::CallResult& result) {
  if (!result.reply) {
    if (result.error.rfind("Request timed out", 0) == 0)
      std::cerr << command << ": " << result.error << "\n";
    else
      std::cerr << command << ": batch system daemon not responding: " << result.error << "\n";
    std::exit(255);
  }
  if (result.reply->status() != wire::STATUS_OK) {
    std::cerr << result.reply->message() << "\n";
    std::exit(255);
  }
}

}  // namespace

wire::ReplyEnvelope require_ok(const std::string& command, const net::CallResult& result) {
  exit_unless_ok(command, result);
  return *result.reply;
}

wire::ReplyEnvelope require_ok(const std::string& command, net::CallResult&& result) {
  exit_unless_ok(command, result);
  return std::move(*result.reply);
}

std::vector<std::string> shell_words(std::string_view line, std::string* error) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote && error) *error = std::string("unterminated ") + quote + " quote";
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string job_id_text(std::int64_t job_id, std::int32_t index) {
  return std::to_string(job_id) + (index > 0 ? "[" + std::to_string(index) + "]" : "");
}

std::optional<wire::JobRef> parse_job_ref(const std::string& text) {
  wire::JobRef ref;
  std::string id = text;
  if (auto b = text.find('['); b != std::string::npos) {
    if (text.back() != ']') return std::nullopt;
    std::string idx = text.substr(b + 1, text.size() - b - 2);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    ref.set_index(std::stoi(idx));
    id = text.substr(0, b);
  }
  if (id.empty() || id.size() > 12 || id.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  ref.set_job_id(std::stoll(id));
  return ref;
}

wire::HostsReply ask_hosts(Session& session, const std::string& command,
                           const boost::program_options::variables_map& vm) {
  wire::RequestEnvelope req;
  req.mutable_hosts();
  if (vm.count("hosts"))
    for (const auto& h : vm["hosts"].as<std::vector<std::string>>()) req.mutable_hosts()->add_names(h);
  if (vm.count("R")) req.mutable_hosts()->set_res_req(vm["R"].as<std::string>());
  auto reply = require_ok(command, session.call(req));
  return std::move(*reply.mutable_hosts());
}

int print_results(const wire::SignalJobsReply& reply) {
  int rc = 0;
  for (const auto& r : reply.results()) {
    if (r.ok()) {
      std::cout << r.message() << "\n";
    } else {
      std::cerr << r.message() << "\n";
      rc = 255;
    }
  }
  return rc;
}

std::string option_error_message(const boost::program_options::error& e, const std::vector<std::string>& words) {
  auto holds_placeholder = [](const std::string& w) {
    for (size_t open = w.find('%'); open != std::string::npos; open = w.find('%', open + 1)) {
      size_t end = open + 1;
      while (end < w.size() && (std::islower(static_cast<unsigned char>(w[end])) || w[end] == '_')) ++end;
      if (end > open + 1 && end < w.size() && w[end] == '%') return true;
    }
    return false;
  };
  if (std::any_of(words.begin(), words.end(), holds_placeholder)) return "invalid option";
  return e.what();
}

boost::program_options::variables_map parse_options(const std::string& command, int argc, char** argv,
                                                    boost::program_options::options_description opts,
                                                    const boost::program_options::positional_options_description& pos,
                                                    const std::string& usage) {
  namespace po = boost::program_options;
  opts.add_options()("h", "")("V", "");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).style(option_style()).run(), vm);
  } catch (const po::error& e) {
    std::cerr << command << ": " << option_error_message(e, std::vector<std::string>(argv, argv + argc)) << "\n"
              << usage;
    std::exit(255);
  }
  if (vm.count("h")) {
    std::cout << usage;
    std::exit(0);
  }
  if (vm.count("V")) {
    std::cerr << version_text();  // LSF prints its version to stderr
    std::exit(0);
  }
  return vm;
}

std::string shown_command(std::string_view command) {
  while (!command.empty() && (command.back() == '\n' || command.back() == '\r')) command.remove_suffix(1);
  std::string out(command);
  std::replace(out.begin(), out.end(), '\n', ';');
  return out;
}

std::string version_text() {
  return "IBM Spectrum LSF Standard 10.1.0.14, Nov 26 2026\n"
         "lsfsched " LSFSCHED_VERSION
         ", an open LSF-compatible workload scheduler (not IBM software; the line above is the LSF level it "
         "behaves as)\n";
}

int option_style() {
  namespace cls = boost::program_options::command_line_style;
  return (cls::unix_style | cls::allow_long_disguise) & ~cls::allow_guessing;
}

namespace {
std::string format(std::int64_t t, const char* fmt) {
  if (t <= 0) return "-";
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  std::ostringstream os;
  os << std::put_time(&tm, fmt);
  return os.str();
}
}  // namespace

std::string short_time(std::int64_t t) { return format(t, "%b %e %H:%M"); }
std::string wide_time(std::int64_t t) { return format(t, "%m/%d-%H:%M:%S"); }
std::string long_time(std::int64_t t) { return format(t, "%a %b %e %H:%M:%S"); }

void print_wrapped(const std::string& text, size_t indent) {
  const size_t width = 79;
  std::string rest = text;
  bool first = true;
  while (!rest.empty()) {
    size_t room = first ? width : width - indent;
    std::string part = rest.substr(0, room);
    rest = rest.size() > room ? rest.substr(room) : "";
    std::cout << (first ? "" : std::string(indent, ' ')) << part << "\n";
    first = false;
  }
}

std::optional<std::string> custom_format(const boost::program_options::variables_map& vm, const char* name,
                                         const config::LsfConf& conf) {
  if (vm.count("o")) return vm["o"].as<std::string>();
  if (const char* env = std::getenv(name); env && *env) return std::string(env);
  if (auto v = conf.get(name); v && !v->empty()) return *v;
  return std::nullopt;
}

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return wait_status;
}

std::string megabytes(double mb) {
  char buf[32];
  if (mb < 1024)
    std::snprintf(buf, sizeof buf, "%.0fM", mb);
  else if (mb < 10 * 1024)
    std::snprintf(buf, sizeof buf, "%.1fG", mb / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.0fG", mb / 1024);
  return buf;
}

const char* state_name(wire::JobState s) {
  switch (s) {
    case wire::JOB_PEND:
      return "PEND";
    case wire::JOB_PSUSP:
      return "PSUSP";
    case wire::JOB_RUN:
      return "RUN";
    case wire::JOB_USUSP:
      return "USUSP";
    case wire::JOB_SSUSP:
      return "SSUSP";
    case wire::JOB_DONE:
      return "DONE";
    case wire::JOB_EXIT:
      return "EXIT";
    case wire::JOB_UNKWN:
      return "UNKWN";
    case wire::JOB_ZOMBI:
      return "ZOMBI";
    default:
      return "UNKWN";
  }
}

std::string tail_truncate(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return "*" + s.substr(s.size() - (width - 1));
}

std::string head_truncate(const std::string& s, size_t width) { return s.size() <= width ? s : s.substr(0, width); }

}  // namespace lsf::cli
