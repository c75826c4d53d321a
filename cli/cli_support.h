// What every command shares: finding mbatchd, calling it, job ids as users write
// them (12, "12[3]"), LSF's time formats and error conventions.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/rpc_client.h"
#include "libconfig/cluster_config.h"

namespace lsf::cli {

// Connects lazily; every request carries the caller's identity.
class Session {
 public:
  // Prints a clear error and exits when lsf.conf cannot be read.
  explicit Session(const std::string& command);
  net::CallResult call(wire::RequestEnvelope request);
  const config::LsfConf& lsf_conf() const { return conf_; }
  const wire::Identity& identity() const { return identity_; }

 private:
  std::string command_;
  config::LsfConf conf_;
  net::MasterEndpoint endpoint_;
  wire::Identity identity_;
  std::optional<net::RpcClient> client_;
  std::string unsigned_hint_;  // why a refused unsigned request had no better way in
};

// Exits with LSF's wording when the call failed at the transport or was refused.
// Returns the reply otherwise: moved out of a temporary result (a listing of thousands
// of hosts or jobs is not copied), copied from one the caller keeps.
wire::ReplyEnvelope require_ok(const std::string& command, const net::CallResult& result);
wire::ReplyEnvelope require_ok(const std::string& command, net::CallResult&& result);

// Every job a JobsRequest asks for, page after page (a listing of any size never makes
// one reply too large); exits as require_ok does on a failure.
wire::JobsReply fetch_jobs(Session& session, const std::string& command, wire::RequestEnvelope request);

// The same for bhist / badmin hist (HistoryRequest) and bacct (AcctRequest).
wire::HistoryReply fetch_history(Session& session, const std::string& command, wire::RequestEnvelope request);
wire::AcctReply fetch_acct(Session& session, const std::string& command, wire::RequestEnvelope request);

// Whether a request of this kind changes anything in mbatchd (queries do not).
bool changes_state(wire::RequestEnvelope::RequestCase kind);

// Words as a shell splits them: blanks separate, '...' and "..." quote (quotes removed),
// a backslash escapes the next character outside single quotes. An unterminated quote
// sets *error.
std::vector<std::string> shell_words(std::string_view line, std::string* error);

// "12" or "12[3]"; nullopt for anything else.
std::optional<wire::JobRef> parse_job_ref(const std::string& text);
// The other way: "12", or "12[3]" for an array element.
std::string job_id_text(std::int64_t job_id, std::int32_t index);

// The hosts named by the "hosts" positional option (all when none), only those whose
// resources and load satisfy -R's select[] when "R" is given, as mbatchd reports them;
// exits 255 with the reason on failure.
wire::HostsReply ask_hosts(Session& session, const std::string& command,
                           const boost::program_options::variables_map& vm);

// Job ids as users write them: 12, "12[3]", and LSF's index lists "12[1-5,7,9-15:2]",
// each element of a list becoming a reference of its own (a wire JobRef names one).
// A list may name at most the cluster's MAX_JOB_ARRAY_SIZE elements, so no argument
// makes more references than an array can have; the limit is asked of mbatchd only
// when a list is given. Prints "<id>: Illegal job ID." or "<id>: Bad job array index
// list." (LSF's words) and exits 255 on a bad one.
std::vector<wire::JobRef> job_refs(Session& session, const std::string& command, const std::vector<std::string>& ids);

// One line per job: successes on stdout, refusals on stderr. 0 when all succeeded, else 255.
int print_results(const wire::SignalJobsReply& reply);

// A job's command as LSF shows it: a script's lines joined by `;` (without a trailing
// one), so one-line parsers and bjobs -l's unwrapping read it whole.
std::string shown_command(std::string_view command);

// What every command's -V and lsid print. The first line has LSF 10.1's shape, since
// scripts and workflow tools read the LSF version from it (`lsid | head -1`, `bjobs -V`)
// to decide which features they may use: the level named is the one whose features
// (bjobs -json, -o all) these commands have. The second line says what this really is.
std::string version_text();

// Parses a command line in LSF's option style. Adds -h (prints `usage`) and -V (prints
// the version); both exit 0. A bad option prints the error and the usage and exits 255.
boost::program_options::variables_map parse_options(const std::string& command, int argc, char** argv,
                                                    boost::program_options::options_description opts,
                                                    const boost::program_options::positional_options_description& pos,
                                                    const std::string& usage);

// LSF's option style: single-dash options of one or more letters (-l, -noheader),
// no abbreviations.
int option_style();

// boost's message for a bad option. boost fills its placeholders (`%option%` ...) with
// the words given and loops for ever when a word holds a placeholder itself (`bsub
// '--%option%'` hung): then the message is a plain "invalid option" instead.
std::string option_error_message(const boost::program_options::error& e, const std::vector<std::string>& words);

// "Oct 19 17:10" (bjobs), "10/19-17:10:27" (bjobs -W), "Wed Oct 19 17:10:27" (-l).
std::string short_time(std::int64_t t);
std::string wide_time(std::int64_t t);
std::string long_time(std::int64_t t);

const char* state_name(wire::JobState s);

// LSF's long formats (bjobs -l, bhist -l, bacct -l) wrap at 80 columns in mid-word,
// continuing with `indent` spaces.
void print_wrapped(const std::string& text, size_t indent);

// A wait status as LSF reports an exit code: the exit value, or 128 + the signal.
int exit_code(int wait_status);

// The -o format in force: the option's value, else the environment variable `name`
// (LSB_BJOBS_FORMAT, LSB_BQUEUES_FORMAT, LSB_BHOSTS_FORMAT), else lsf.conf's.
std::optional<std::string> custom_format(const boost::program_options::variables_map& vm, const char* name,
                                         const config::LsfConf& conf);

// Megabytes as lshosts and lsload print them: "512M", "7.8G", "38G".
std::string megabytes(double mb);

// A field cut to `width`, keeping the tail with a leading `*` as bjobs does for names.
std::string tail_truncate(const std::string& s, size_t width);
std::string head_truncate(const std::string& s, size_t width);

}  // namespace lsf::cli
