// Figures for the runtime: durable submissions per second over the API with N
// concurrent clients, submit-to-RUN latency on an idle cluster, and replay time of
// an event log. Prints figures; never fails on a time.
//
//   rpc_bench submit  --clients N --jobs M [--sleep-max S]   (LSF_ENVDIR names a running cluster)
//                     with --sleep-max, each job is `sleep R`, R from 1 to S at random
//                     (for host_emulator --run-jobs); else /bin/true
//   rpc_bench latency --jobs M
//   rpc_bench replay  --events N --dir DIR        (in-process; no cluster needed)
//   rpc_bench spawn   --jobs N [--workers W]      the machine's fork+exec ceiling: W
//                     workers (default: one per core) each fork, exec /bin/true and wait
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "daemons/common/cluster_endpoint.h"
#include "daemons/common/cluster_key.h"
#include "daemons/common/rpc_client.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/event_log_reader.h"
#include "daemons/mbatchd/event_log_writer.h"

using namespace lsf;
using Clock = std::chrono::steady_clock;

namespace {

long arg(int argc, char** argv, const std::string& name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stol(argv[i + 1]);
  return fallback;
}

wire::RequestEnvelope submit_request(const wire::Identity& id, const std::string& command = "/bin/true") {
  wire::RequestEnvelope r;
  *r.mutable_caller() = id;
  auto* s = r.mutable_submit()->mutable_spec();
  s->set_command(command);
  s->set_job_name("bench");
  s->set_cwd("/tmp");
  s->set_out_file("/dev/null");
  return r;
}

net::MasterEndpoint endpoint() {
  auto ep = net::master_endpoint_from_environment();
  if (!ep.error.empty()) {
    std::cerr << ep.error << "\n";
    std::exit(1);
  }
  return ep.endpoint;
}

// SIGTERM ends `submit` early (scale_bench.sh's background load): what was sent is counted.
std::atomic<bool> submit_stopped{false};

int submit(int clients, long jobs, long sleep_max) {
  auto ep = endpoint();
  auto id = net::current_identity();
  std::signal(SIGTERM, [](int) { submit_stopped = true; });
  std::atomic<long> next{0}, failed{0}, sent{0};
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937 random(static_cast<unsigned>(c) * 7919U + static_cast<unsigned>(std::time(nullptr)));
      std::uniform_int_distribution<long> seconds(1, std::max(1L, sleep_max));
      net::RpcClient client(ep.host, ep.port, ep.timeout);
      client.set_local_socket(ep.local_socket);
      if (auto key = net::load_cluster_key(net::envdir_from_environment()); key.key)
        client.set_key(*key.key, "mbatchd");
      while (!submit_stopped && next.fetch_add(1) < jobs) {
        if (!client.call(submit_request(id, sleep_max > 0 ? "sleep " + std::to_string(seconds(random)) : "/bin/true"))
                 .ok())
          ++failed;
        ++sent;
      }
    });
  }
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("durable submissions over the API, %2d client(s): %8.0f jobs/s (%ld jobs in %.2f s, %ld failed)\n",
              clients, static_cast<double>(sent) / secs, sent.load(), secs, failed.load());
  return 0;
}

int latency(long jobs) {
  auto ep = endpoint();
  auto id = net::current_identity();
  net::RpcClient client(ep.host, ep.port, ep.timeout);
  client.set_local_socket(ep.local_socket);
  if (auto key = net::load_cluster_key(net::envdir_from_environment()); key.key) client.set_key(*key.key, "mbatchd");
  std::vector<double> ms;
  for (long i = 0; i < jobs; ++i) {
    auto start = Clock::now();
    auto r = client.call(submit_request(id));
    if (!r.ok()) {
      std::cerr << r.message() << "\n";
      return 1;
    }
    std::int64_t job = r.reply->submit().job_id();
    for (;;) {
      wire::RequestEnvelope q;
      *q.mutable_caller() = id;
      q.mutable_jobs()->add_jobs()->set_job_id(job);
      auto s = client.call(q);
      if (s.ok() && s.reply->jobs().jobs_size() > 0 && s.reply->jobs().jobs(0).state() != wire::JOB_PEND) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let it finish: an idle cluster each time
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(p * static_cast<double>(ms.size())))];
  };
  std::printf("submit-to-RUN latency on an idle cluster (%ld jobs): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", jobs,
              pct(0.50), pct(0.99), ms.back());
  return 0;
}

int replay(long events, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    mbd::EventLogWriter w(dir, 0, [](std::function<void()> f) { f(); });
    // A realistic mix: each job is submitted, started, executed and finished.
    std::int64_t seq = 0;
    for (long job = 1; seq < events; ++job) {
      wire::EventRecord r;
      r.set_time(1700000000 + job);
      r.set_seq(++seq);
      auto* n = r.mutable_job_new();
      n->set_job_id(job);
      n->set_user("alice");
      n->set_queue("normal");
      n->mutable_spec()->set_command("/bin/true");
      n->mutable_spec()->set_cwd("/home/alice/work");
      n->mutable_spec()->set_min_processors(1);
      w.append(r);
      wire::EventRecord s;
      s.set_seq(++seq);
      s.mutable_job_start()->set_job_id(job);
      s.mutable_job_start()->add_exec_hosts("hostA");
      w.append(s);
      wire::EventRecord e;
      e.set_seq(++seq);
      e.mutable_job_execute()->set_job_id(job);
      e.mutable_job_execute()->set_pid(1000 + static_cast<int>(job % 30000));
      w.append(e);
      wire::EventRecord f;
      f.set_seq(++seq);
      f.mutable_job_status()->set_job_id(job);
      f.mutable_job_status()->set_state(wire::JOB_DONE);
      w.append(f);
    }
    w.when_durable([&](bool) {
      std::lock_guard l(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock l(mu);
    cv.wait(l, [&] { return done; });
  }
  auto start = Clock::now();
  mbd::ClusterState state;
  wire::EventRecord r;
  auto out = mbd::read_event_file(dir / "lsb.events", [&](std::string_view p, std::uint64_t) -> daemon::Status {
    if (!r.ParseFromArray(p.data(), static_cast<int>(p.size()))) return daemon::fail("parse");
    return state.apply(r);
  });
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("replay of %llu events (%zu jobs, %.0f MB): %.2f s%s\n", static_cast<unsigned long long>(out.records),
              state.jobs().size(), static_cast<double>(std::filesystem::file_size(dir / "lsb.events")) / 1e6, secs,
              out.error.empty() ? "" : (" ERROR " + out.error).c_str());
  std::filesystem::remove_all(dir);
  return 0;
}

// The rate at which this machine can create a process that execs /bin/true and be told
// of its end: what end-to-end throughput is measured against (one such process per job
// is the design's floor).
int spawn(long jobs, long workers) {
  if (workers <= 0) workers = static_cast<long>(std::max(1U, std::thread::hardware_concurrency()));
  std::atomic<long> next{0}, failed{0};
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (long w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < jobs) {
        pid_t pid = fork();
        if (pid == 0) {
          execl("/bin/true", "true", static_cast<char*>(nullptr));
          _exit(127);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("fork+exec of /bin/true, %ld worker(s): %8.0f processes/s (%ld in %.2f s, %ld failed)\n", workers,
              static_cast<double>(jobs) / secs, jobs, secs, failed.load());
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: rpc_bench submit|latency|replay|spawn [--clients N] [--jobs M] [--sleep-max S] [--events N] "
                 "[--dir DIR] "
                 "[--workers W]\n";
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "submit")
    return submit(static_cast<int>(arg(argc, argv, "--clients", 1)), arg(argc, argv, "--jobs", 5000),
                  arg(argc, argv, "--sleep-max", 0));
  if (mode == "spawn") return spawn(arg(argc, argv, "--jobs", 10000), arg(argc, argv, "--workers", 0));
  if (mode == "latency") return latency(arg(argc, argv, "--jobs", 200));
  if (mode == "replay") {
    std::string dir = "/tmp/lsfsched-replay-bench";
    for (int i = 1; i + 1 < argc; ++i)
      if (std::string(argv[i]) == "--dir") dir = argv[i + 1];
    return replay(arg(argc, argv, "--events", 1000000), dir);
  }
  std::cerr << "unknown mode " << mode << "\n";
  return 2;
}
