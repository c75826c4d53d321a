#include "daemons/sbatchd/job_supervisor.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "daemons/sbatchd/job_report.h"
#include "daemons/sbatchd/plain_command.h"
#include "daemons/sbatchd/user_identity.h"
#include "libconfig/gpu_request.h"
#include "libsched/host_runs.h"

namespace lsf::sbd {
namespace fs = std::filesystem;

std::string job_key(std::int64_t id, std::int32_t index) { return std::to_string(id) + "." + std::to_string(index); }

namespace {

using User = UserIdentity;

// The relayed side of a job's pseudo-terminal, and the FIFO its input arrives by.
struct Terminal {
  int master = -1;
  std::string slave_name;
  int input = -1;       // <key>.in, read side
  int input_keep = -1;  // a write side held open, so the FIFO never reads as closed
  int output = -1;      // the spool file
};

// Fails with why the terminal could not be made. `output` is the already opened spool
// or -o file, which the terminal's output is copied to.
daemon::Status open_terminal(Terminal& t, const fs::path& fifo, int output, const uid_t* owner) {
  t.output = output;
  t.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (t.master < 0 || grantpt(t.master) != 0 || unlockpt(t.master) != 0)
    return daemon::fail(std::string("cannot open a pseudo-terminal: ") + std::strerror(errno));
  const char* name = ptsname(t.master);
  if (!name) return daemon::fail(std::string("ptsname: ") + std::strerror(errno));
  t.slave_name = name;
  if (owner && ::chown(name, *owner, static_cast<gid_t>(-1)) != 0)
    return daemon::fail(std::string("cannot hand the terminal to the user: ") + std::strerror(errno));
  ::unlink(fifo.c_str());
  if (mkfifo(fifo.c_str(), 0600) != 0)
    return daemon::fail("cannot make " + fifo.string() + ": " + std::strerror(errno));
  t.input = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  t.input_keep = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (t.input < 0 || t.input_keep < 0)
    return daemon::fail("cannot open the terminal's files: " + std::string(std::strerror(errno)));
  return {};
}

void write_all(int fd, const char* data, ssize_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, static_cast<size_t>(n));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data += w;
    n -= w;
  }
}

// Copies terminal output to the spool and FIFO input to the terminal until the job
// has ended and its output is read.
void relay_terminal(Terminal& t, pid_t pid, int& status, rusage& usage) {
  std::vector<char> buf(65536);
  bool ended = false;
  std::chrono::steady_clock::time_point ended_at;
  for (;;) {
    pollfd fds[2] = {{t.master, POLLIN, 0}, {t.input, POLLIN, 0}};
    int n = poll(fds, 2, ended ? 20 : 200);
    if (n < 0 && errno != EINTR) break;
    bool got = false;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = ::read(t.master, buf.data(), buf.size());
      if (r > 0) {
        write_all(t.output, buf.data(), r);
        got = true;
      } else if (r < 0 && errno != EINTR && errno != EAGAIN) {
        if (ended) break;  // EIO: every holder of the terminal has closed it
        usleep(50000);     // closed while the job lives on: wait for its end
      }
    }
    if (fds[1].revents & POLLIN) {
      ssize_t r = ::read(t.input, buf.data(), buf.size());
      if (r > 0) write_all(t.master, buf.data(), r);
    }
    if (!ended) {
      pid_t w = wait4(pid, &status, WNOHANG, &usage);
      if (w == pid) {
        ended = true;
        ended_at = std::chrono::steady_clock::now();
      }
    } else if (!got && std::chrono::steady_clock::now() - ended_at > std::chrono::seconds(2)) {
      // Linux hands what the job wrote last to this side a moment after it is written,
      // so the end is the terminal's (EIO above); this bounds the wait for a program
      // that keeps the terminal open after the job.
      break;
    }
  }
  for (int fd : {t.master, t.input, t.input_keep, t.output})
    if (fd >= 0) ::close(fd);
}

std::string substitute(std::string s, const wire::JobLaunch& l) {
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
  };
  replace("%J", std::to_string(l.job_id()));
  replace("%I", std::to_string(l.index()));
  return s;
}

// No fsync: these files must survive an sbatchd crash, not a host crash,
// which ends the job anyway. The mode is set whatever the umask.
bool write_file(const fs::path& path, const std::string& text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return false;
  bool ok = ::fchmod(fd, mode) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The GPU environment of the job's first host, where the job runs: CUDA_VISIBLE_DEVICES
// names the host's devices by the index NVML and nvidia-smi give them (CUDA numbers them
// the same way only in PCI bus order); with num=N/task, CUDA_VISIBLE_DEVICES<n> names
// the N devices of the host's task n (from 0), in the order the scheduler gave them, for
// blaunch'd tasks to pick theirs. mps=...,nocvd asks for none of it. The launch's -gpu
// is the job's requirement from every level (mbatchd's make_launch).
void add_gpu_environment(const wire::JobLaunch& l, std::map<std::string, std::string>& env) {
  if (l.gpus_size() == 0 || l.exec_hosts().empty()) return;
  const auto req = config::GpuRequest::parse(l.spec().gpu());
  if (req && req->mps && req->mps->nocvd) return;
  const std::string& host = l.exec_hosts(0);
  std::vector<int> ids;
  for (const auto& g : l.gpus())
    if (g.host() == host) ids.push_back(g.gpu());
  auto joined = [&](size_t from, size_t to) {
    std::string out;
    for (size_t k = from; k < to && k < ids.size(); ++k) out += (out.empty() ? "" : ",") + std::to_string(ids[k]);
    return out;
  };
  env["CUDA_VISIBLE_DEVICES"] = joined(0, ids.size());
  if (!env.count("CUDA_DEVICE_ORDER")) env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  if (!req || !req->per_task.value_or(false)) return;
  const auto num = static_cast<size_t>(std::max(1, req->num.value_or(1)));
  const auto tasks = static_cast<size_t>(std::count(l.exec_hosts().begin(), l.exec_hosts().end(), host));
  for (size_t t = 0; t < tasks && t * num < ids.size(); ++t)
    env["CUDA_VISIBLE_DEVICES" + std::to_string(t)] = joined(t * num, (t + 1) * num);
}

// Environment of the job: the submission's, then LSF's own variables on top.
// What LSF sets for a job (IBM's "Environment variables set for job execution") that
// this project has the facts for. LS_JOBPID is added in the job's own process.
std::vector<std::string> job_environment(const wire::JobLaunch& l, const User& user, const fs::path& hostfile,
                                         const std::string& cwd) {
  std::map<std::string, std::string> env;
  for (const auto& e : l.spec().env()) env[e.name()] = e.value();
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["HOME"] = user.home;
  env["USER"] = user.name;
  env["LOGNAME"] = user.name;
  env["LSFUSER"] = user.name;
  env["LSB_JOBID"] = std::to_string(l.job_id());
  env["LSB_JOBINDEX"] = std::to_string(l.index());
  env["LSB_JOBNAME"] = l.job_name();
  env["LSB_QUEUE"] = l.queue();
  std::string hosts, mcpu;
  for (const auto& h : l.exec_hosts()) hosts += (hosts.empty() ? "" : " ") + h;
  for (const auto& [h, n] : sched::host_runs(l.exec_hosts()))
    mcpu += (mcpu.empty() ? "" : " ") + h + " " + std::to_string(n);
  env["LSB_HOSTS"] = hosts;
  env["LSB_MCPU_HOSTS"] = mcpu;
  env["LSB_DJOB_HOSTFILE"] = hostfile.string();
  env["LS_SUBCWD"] = l.spec().cwd();
  env["LSB_SUB_HOST"] = l.spec().from_host();
  if (!l.spec().out_file().empty()) env["LSB_OUTPUTFILE"] = substitute(l.spec().out_file(), l);
  if (!l.spec().err_file().empty()) env["LSB_ERRORFILE"] = substitute(l.spec().err_file(), l);
  // Slots allocated to the job (all hosts), and the most it asked for (bsub -n min,max).
  env["LSB_DJOB_NUMPROC"] = std::to_string(std::max(1, l.exec_hosts_size()));
  env["LSB_MAX_NUM_PROCESSORS"] =
      std::to_string(std::max({1, l.spec().min_processors(), l.spec().max_processors(), l.exec_hosts_size()}));
  env["LSB_PROJECT_NAME"] = l.spec().project().empty() ? "default" : l.spec().project();
  if (!l.cluster_name().empty()) env["LSB_EXEC_CLUSTER"] = l.cluster_name();
  if (!cwd.empty()) env["LS_EXECCWD"] = cwd;
  add_gpu_environment(l, env);
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

// Whether the user can work in `cwd`, checked with the user's rights; if not, why.
daemon::Status check_cwd(const User& user, const std::string& cwd) {
  if (cwd.empty()) return {};
  ActingAs as(user);
  if (!as.ok()) return daemon::fail("cannot take the identity of user " + user.name);
  struct stat st {};
  int err = 0;
  if (::stat(cwd.c_str(), &st) != 0)
    err = errno;
  else if (!S_ISDIR(st.st_mode))
    err = ENOTDIR;
  else if (faccessat(AT_FDCWD, cwd.c_str(), X_OK, AT_EACCESS) != 0)
    err = errno;
  if (err == 0) return {};
  return daemon::fail("cannot change to the job's working directory " + cwd + ": " + std::strerror(err));
}

// Runs `command` with /bin/sh as the job's user and waits; returns the wait status.
int run_as_user(const std::string& command, const User& user, bool switch_user, const std::string& cwd,
                const std::vector<std::string>& env, std::string* error, rusage* usage) {
  pid_t pid = fork();
  if (pid < 0) {
    if (error) *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGHUP, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (switch_user && !become_user(user)) _exit(126);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    umask(022);
    std::vector<char*> envp;
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    execle("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr), envp.data());
    _exit(127);
  }
  int status = 0;
  while (wait4(pid, &status, 0, usage) < 0 && errno == EINTR) {
  }
  return status;
}

// Why sbatchd ended the job, if it did: the reason it saved in the job's state file
// (<key>.job) before signalling it; else TERM_CPULIMIT for a job the CPU limit's
// SIGXCPU ended, as sbatchd reports it.
std::string exit_reason_of(const fs::path& dir, const std::string& key, int status) {
  wire::SbdJob job;
  std::ifstream in(dir / (key + ".job"), std::ios::binary);
  if (in && job.ParseFromIstream(&in) && !job.exit_reason().empty()) return job.exit_reason();
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) return "TERM_CPULIMIT";
  return {};
}

// The job's child tells the supervisor why it could not exec through this pipe; a
// successful exec closes it (close-on-exec) with nothing written.
void report_child_failure(int fd, const std::string& why) {
  write_all(fd, why.data(), static_cast<ssize_t>(why.size()));
  _exit(126);
}

// What the job's own process is given by the supervisor: pointers into the
// supervisor's memory, which it shares until it execs.
struct JobChild {
  const wire::JobLaunch* plan = nullptr;
  const User* user = nullptr;
  bool switch_user = false;
  const std::string* cwd = nullptr;
  const Terminal* term = nullptr;
  int spool = -1;
  int failed = -1;  // the report pipe's write side
  const std::string* in = nullptr;
  const std::string* out = nullptr;
  const std::string* err = nullptr;
  const char* command = nullptr;
  std::vector<char*> envp;  // the job's environment; LS_JOBPID is written into jobpid
  char jobpid[32] = "LS_JOBPID=";
  std::vector<char*> argv;              // the command's words when it needs no shell
  std::vector<const char*> candidates;  // where to find argv[0], in PATH order
};

constexpr std::size_t kJobChildStack = 256 * 1024;

// The job's process: its group or terminal session, its user, directory, files and
// limits, then the exec. Failures go back through the report pipe. It shares the
// supervisor's memory, so the error paths' allocations land in the supervisor's heap:
// safe because the supervisor has one thread and is suspended until this exec or exit.
int run_job_child(void* arg) {
  const JobChild& c = *static_cast<JobChild*>(arg);
  const wire::JobLaunch& l = *c.plan;
  const int failed = c.failed;
  if (c.term->master >= 0) {
    // A session of its own, with the terminal as its controlling tty.
    setsid();
    int slave = ::open(c.term->slave_name.c_str(), O_RDWR);
    if (slave < 0) report_child_failure(failed, std::string("cannot open the job's terminal: ") + std::strerror(errno));
    ioctl(slave, TIOCSCTTY, 0);
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) dup2(slave, fd);
    if (slave > STDERR_FILENO) ::close(slave);
  } else {
    setpgid(0, 0);
  }
  for (int s : {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGQUIT}) signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (c.switch_user && !become_user(*c.user)) report_child_failure(failed, "cannot switch to user " + c.user->name);
  if (!c.cwd->empty() && chdir(c.cwd->c_str()) != 0)
    report_child_failure(failed,
                         "cannot change to the job's working directory " + *c.cwd + ": " + std::strerror(errno));
  umask(static_cast<mode_t>(l.spec().umask() ? l.spec().umask() : 022));
  // Opened after the switch: the user's rights decide, links included.
  auto redirect = [&](const std::string& path, int target, int flags, const char* what) {
    int fd = ::open(path.c_str(), flags | O_NOCTTY, 0644);
    if (fd < 0)
      report_child_failure(failed,
                           std::string("cannot open the job's ") + what + " " + path + ": " + std::strerror(errno));
    dup2(fd, target);
    if (fd != target) ::close(fd);
  };
  int out_flags = O_WRONLY | O_CREAT | (l.spec().out_overwrite() ? O_TRUNC : O_APPEND);
  int err_flags = O_WRONLY | O_CREAT | (l.spec().err_overwrite() ? O_TRUNC : O_APPEND);
  if (c.term->master < 0) {
    redirect(c.in->empty() ? "/dev/null" : *c.in, STDIN_FILENO, O_RDONLY, "input file");
    // Without -o the output would be mailed in LSF; here it is spooled for bpeek and
    // dropped when the job ends.
    if (c.spool >= 0) {
      dup2(c.spool, STDOUT_FILENO);
    } else {
      redirect(*c.out, STDOUT_FILENO, out_flags, "output file");
    }
    if (c.err->empty()) {
      dup2(STDOUT_FILENO, STDERR_FILENO);
    } else {
      redirect(*c.err, STDERR_FILENO, err_flags, "error file");
    }
  }
  if (l.cpu_limit_s() > 0) {
    rlimit rl{static_cast<rlim_t>(l.cpu_limit_s()), static_cast<rlim_t>(l.cpu_limit_s() + 5)};
    setrlimit(RLIMIT_CPU, &rl);
  }
  // The pid goes into the supervisor's buffer: harmless, it is this process's own.
  char* jobpid = const_cast<char*>(c.jobpid);
  std::snprintf(jobpid + 10, sizeof c.jobpid - 10, "%d", static_cast<int>(getpid()));
  // Plain words: exec'd as sh would find them along PATH. A candidate that is missing
  // or may not be run is passed over, as sh does; any other failure, and no candidate
  // at all, leaves the command to sh, which gives sh's own answer.
  for (const char* program : c.candidates) {
    execve(program, c.argv.data(), c.envp.data());
    if (errno != ENOENT && errno != ENOTDIR && errno != EACCES) break;
  }
  const char* sh_argv[] = {"sh", "-c", c.command, nullptr};
  execve("/bin/sh", const_cast<char* const*>(sh_argv), c.envp.data());
  report_child_failure(failed, std::string("cannot run /bin/sh: ") + std::strerror(errno));
  return 126;
}

// <key>.run, appended to by the supervisor alone: "pid N" once the job is started,
// then "exit <kind> <wait status> <cpu s> <max rss KB> <end time> <message>". One file
// for both, each line one write(): a job costs sbatchd's directory as few new inodes
// as it can, which on ext4 under a stream of short jobs is most of sbatchd's time.
class RunFile {
 public:
  explicit RunFile(fs::path path) : path_(std::move(path)) {}
  RunFile(const RunFile&) = delete;
  RunFile& operator=(const RunFile&) = delete;
  void append(const std::string& line) {
    if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    // Nothing to tell if it fails: sbatchd then finds the supervisor gone without an outcome.
    if (fd_ >= 0) write_all(fd_, line.data(), static_cast<ssize_t>(line.size()));
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

// LSB_DJOB_HOSTFILE: one line per slot. A job whose slots are all on one host (most
// jobs) shares a file with every job of that shape, written once; others get their own
// (<key>.hosts). Either is readable by the job and writable by root only.
fs::path write_host_file(const wire::JobLaunch& l, const fs::path& dir, const std::string& key) {
  std::string text;
  for (const auto& h : l.exec_hosts()) text += h + "\n";
  const bool one_host =
      l.exec_hosts_size() > 0 &&
      std::all_of(l.exec_hosts().begin(), l.exec_hosts().end(), [&](const auto& h) { return h == l.exec_hosts(0); }) &&
      std::all_of(l.exec_hosts(0).begin(), l.exec_hosts(0).end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '@';
      });
  if (!one_host) {
    fs::path path = dir / (key + ".hosts");
    write_file(path, text, 0644);  // before the job exists: nobody reads it half written
    return path;
  }
  fs::path path = dir / ("hostfile." + l.exec_hosts(0) + "." + std::to_string(l.exec_hosts_size()));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == static_cast<off_t>(text.size()))
    return path;
  // Supervisors may race to write it: each through a name of its own, then rename.
  fs::path tmp = path;
  tmp += "." + key + ".tmp";
  if (write_file(tmp, text, 0644)) ::rename(tmp.c_str(), path.c_str());
  return path;
}

[[noreturn]] void supervise(const wire::JobLaunch& l, const fs::path& dir, std::optional<User> known, bool allow_root) {
  const std::string key = job_key(l.job_id(), l.index());
  RunFile run(dir / (key + ".run"));
  auto finish = [&](const std::string& kind, int status, double cpu, long rss, const std::string& msg) {
    std::ostringstream os;
    os << "exit " << kind << " " << status << " " << cpu << " " << rss << " " << std::time(nullptr) << " " << msg;
    std::string line = os.str();
    // One line, whatever the message holds: the reader takes the line as the outcome.
    std::replace(line.begin(), line.end(), '\n', ' ');
    run.append(line + "\n");
    _exit(0);
  };
  const bool root = geteuid() == 0;
  User user;
  if (known) {
    user = *known;
  } else {
    if (root) finish("nostart", 0, 0, 0, "user " + l.user() + " does not exist on this host");
    // Not root: run as ourselves, whoever submitted.
    user.name = l.user();
    user.home = std::getenv("HOME") ? std::getenv("HOME") : "/tmp";
  }
  // A job as root only where the site asked for it (LSF_ROOT_USER=Y): a forged or
  // stolen-key request must not be enough to run commands as root.
  if (root && user.uid == 0 && !allow_root)
    finish("nostart", 0, 0, 0, "jobs may not run as root on this host (LSF_ROOT_USER is not Y)");
  const std::string cwd = l.spec().cwd();
  if (auto can = check_cwd(user, cwd); !can) finish("nostart", 0, 0, 0, can.message());

  const fs::path hostfile = write_host_file(l, dir, key);
  auto env = job_environment(l, user, hostfile, cwd);

  for (const auto& pre : {l.queue_pre_exec(), l.spec().pre_exec()}) {
    if (pre.empty()) continue;
    int st = run_as_user(pre, user, root, cwd, env, nullptr, nullptr);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) finish("preexec", st, 0, 0, "pre-exec failed: " + pre);
  }

  std::string command = l.spec().command();
  if (!l.job_starter().empty()) {
    std::string starter = l.job_starter();
    auto p = starter.find("%USRCMD");
    command = p == std::string::npos ? starter + " " + command : starter.replace(p, 7, command);
  }
  const bool spooled = l.spec().out_file().empty();
  std::string out = output_path(l, dir).string();
  // The spool file lives in sbatchd's directory, which the user cannot enter: it is
  // opened here, as root, and handed to the job as a descriptor.
  int spool = -1;
  if (spooled) {
    spool = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (spool < 0)
      finish("nostart", 0, 0, 0, "cannot create the job's output spool " + out + ": " + std::strerror(errno));
    if (root && ::fchown(spool, user.uid, user.gid) != 0) {
      // Only the job's own later opens would need it; it writes through this descriptor.
    }
  }
  std::string err = l.spec().err_file().empty() ? "" : substitute(l.spec().err_file(), l);
  std::string in = l.spec().in_file().empty() ? "" : substitute(l.spec().in_file(), l);
  if (!err.empty() && fs::path(err).is_relative() && !cwd.empty()) err = (fs::path(cwd) / err).string();
  if (!in.empty() && fs::path(in).is_relative() && !cwd.empty()) in = (fs::path(cwd) / in).string();

  // bsub -Ip/-Is: the job's terminal is a pseudo-terminal whose other side this
  // process relays: what the job writes goes to the spool file bpeek reads, what
  // sbatchd writes into <key>.in goes to the job. A -o file is opened with the
  // user's rights, never as root.
  Terminal term;
  if (l.spec().pty()) {
    int output = spool;
    if (!spooled) {
      auto opened = open_user_file_for_appending(user, out);
      if (!opened) finish("nostart", 0, 0, 0, "cannot open the job's output file " + opened.error());
      output = *opened;
    }
    spool = -1;
    if (auto opened = open_terminal(term, dir / (key + ".in"), output, root ? &user.uid : nullptr); !opened)
      finish("nostart", 0, 0, 0, opened.message());
  }

  int report[2] = {-1, -1};
  if (pipe2(report, O_CLOEXEC) != 0) finish("nostart", 0, 0, 0, std::string("pipe: ") + std::strerror(errno));

  // Everything the job's process needs is made here, before it exists: it shares this
  // process's memory until its exec (clone with CLONE_VM | CLONE_VFORK, as posix_spawn
  // does), which spares copying the supervisor's page tables for each job.
  JobChild child;
  child.plan = &l;
  child.user = &user;
  child.switch_user = root;
  child.cwd = &cwd;
  child.term = &term;
  child.spool = spool;
  child.failed = report[1];
  child.in = &in;
  child.out = &out;
  child.err = &err;
  child.command = command.c_str();
  for (auto& e : env) child.envp.push_back(e.data());
  child.envp.push_back(child.jobpid);
  child.envp.push_back(nullptr);
  std::string path_var;
  for (const auto& e : env)
    if (e.rfind("PATH=", 0) == 0) path_var = e.substr(5);
  std::vector<std::string> words, candidates;
  if (auto plain = plain_command_words(command)) {
    words = std::move(*plain);
    candidates = program_candidates(words[0], path_var);
  }
  for (auto& w : words) child.argv.push_back(w.data());
  child.argv.push_back(nullptr);
  for (auto& c : candidates) child.candidates.push_back(c.c_str());
  std::unique_ptr<char[]> stack(new char[kJobChildStack]);  // untouched pages cost nothing
  pid_t pid = ::clone(run_job_child, stack.get() + kJobChildStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  if (pid < 0) finish("nostart", 0, 0, 0, std::string("clone: ") + std::strerror(errno));
  ::close(report[1]);
  if (spool >= 0) ::close(spool);
  // Also here, so the group exists before anyone signals it; not for a terminal job,
  // whose setsid() would fail once it leads a group.
  if (term.master < 0) setpgid(pid, pid);
  {
    std::string why;
    char buf[512];
    for (;;) {
      ssize_t r = ::read(report[0], buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      why.append(buf, static_cast<std::size_t>(r));
    }
    ::close(report[0]);
    if (!why.empty()) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      for (int fd : {term.master, term.input, term.input_keep, term.output})
        if (fd >= 0) ::close(fd);
      finish("nostart", status, 0, 0, why);
    }
  }
  run.append("pid " + std::to_string(pid) + "\n");
  int status = 0;
  rusage usage{};
  if (term.master >= 0) {
    relay_terminal(term, pid, status, usage);
  } else {
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
  }
  double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  // Whatever the job left running in its group goes with it, as in LSF.
  kill(-pid, SIGKILL);

  // LSF's job report, after the job's own output in its -o file. Not for a spooled job
  // (LSF would mail it) nor an interactive one (its output is the user's terminal).
  if (!spooled && !l.spec().interactive() && !l.spec().pty()) {
    JobEnd end;
    end.wait_status = status;
    end.cpu_time = cpu;
    end.max_rss_kb = usage.ru_maxrss;
    end.end_time = std::time(nullptr);
    end.exit_reason = exit_reason_of(dir, key, status);
    end.home = user.home;
    // Written or not, the job's outcome is the same; nobody is there to tell.
    (void)append_as_user(user, out, job_report(l, end));
  }

  auto post_env = env;
  post_env.push_back("LSB_JOBEXIT_STAT=" + std::to_string(status));
  for (const auto& post : {l.spec().post_exec(), l.queue_post_exec()}) {
    if (!post.empty()) run_as_user(post, user, root, cwd, post_env, nullptr, nullptr);
  }
  finish("done", status, cpu, usage.ru_maxrss, "");
  _exit(0);
}

}  // namespace

fs::path output_path(const wire::JobLaunch& l, const fs::path& state_dir) {
  if (l.spec().out_file().empty()) return state_dir / (job_key(l.job_id(), l.index()) + ".out");
  fs::path out = substitute(l.spec().out_file(), l);
  return out.is_relative() && !l.spec().cwd().empty() ? fs::path(l.spec().cwd()) / out : out;
}

daemon::Result<pid_t> spawn_supervisor(const wire::JobLaunch& launch, const fs::path& state_dir, bool allow_root) {
  // The user is looked up here, before the fork: the name service is loaded once in
  // sbatchd rather than in every supervisor.
  std::optional<User> user = lookup_user(launch.user());
  pid_t pid = fork();
  if (pid < 0) return daemon::fail(std::string("fork: ") + std::strerror(errno));
  if (pid > 0) return pid;
  setsid();
  // Nothing of sbatchd's (sockets, epoll, log files) stays open in the supervisor.
  if (close_range(3, ~0U, 0) != 0)
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    if (null > 2) ::close(null);
  }
  for (int s : {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2}) signal(s, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  supervise(launch, state_dir, user, allow_root);
}

RunState read_run_state(const fs::path& dir, const std::string& key) {
  RunState state;
  std::ifstream in(dir / (key + ".run"));
  std::string line;
  // A line is read only when whole: the supervisor may be writing the last one.
  while (std::getline(in, line) && !in.eof()) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag == "pid") {
      long pid = 0;
      if (words >> pid) state.job_pid = static_cast<pid_t>(pid);
    } else if (tag == "exit") {
      JobOutcome out;
      if (!(words >> out.kind >> out.wait_status >> out.cpu_time >> out.max_rss_kb >> out.end_time)) continue;
      std::getline(words, out.message);
      if (!out.message.empty() && out.message.front() == ' ') out.message.erase(0, 1);
      state.outcome = std::move(out);
    }
  }
  return state;
}

}  // namespace lsf::sbd
