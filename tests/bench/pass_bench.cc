// The scheduling pass at scale: 5,000 hosts of 8 slots, 20 queues with job slot
// limits, load thresholds, slot reservation and backfill, 500 users, a mix of
// resource requirements and -n, and N pending jobs with the cluster (nearly) full,
// as a busy cluster is. Prints the duration of a full pass, and of the pass after one
// job ends (what mbatchd runs on each change). Figures only; never fails on a time.
//   pass_bench [--pending N] [--hosts N] [--repeat N] [--changed-hosts N] [--fairshare] [--no-digest]
//              [--no-ids]
// --fairshare gives every queue FAIRSHARE = USER_SHARES[[default, 1]] (500 users, each
// an account of its own). Jobs carry user and project ids, as mbatchd gives them;
// --no-ids leaves them out, so the pass looks every name up. The host table (names to
// indexes, each host's lsb.hosts row) is made once and kept between passes, as mbatchd
// keeps it until the hosts or the configuration change, and running jobs carry their
// hosts as its indexes, as mbatchd gives them. Each full pass starts afresh;
// the pass after one job ends has what the last one worked out (ClusterView::accel.carry), as
// mbatchd keeps it, and --changed-hosts N gives N hosts (spread over the cluster) new
// load before it, as their reports would.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include <time.h>

#include "libsched/pass.h"
#include "libsched/pass_apply.h"
#include "libsched/pass_carry.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

std::shared_ptr<SchedPolicy> make_policy(int hosts, bool fairshare) {
  auto p = std::make_shared<SchedPolicy>();
  p->mbd_sleep_time = 10;
  p->job_accept_interval = 0;
  p->default_host.mxj = 8;
  config::LoadThreshold r1m;
  r1m.sched = 6.0;
  r1m.stop = 12.0;
  p->default_host.thresholds["r1m"] = r1m;
  for (int q = 0; q < 20; ++q) {
    QueuePolicy qp;
    qp.name = "q" + std::to_string(q);
    qp.priority = 20 + q * 2;
    qp.ujob_limit = 200;
    qp.hjob_limit = 6;
    qp.backfill = q % 2 == 0;
    if (q % 5 == 0) qp.slot_reserve_time = 10;
    config::LoadThreshold ut;
    ut.sched = 0.95;
    qp.thresholds["ut"] = ut;
    // Every fourth queue runs on a quarter of the cluster.
    if (q % 4 == 3)
      for (int h = (q / 4) * (hosts / 5); h < (q / 4 + 1) * (hosts / 5); ++h)
        qp.hosts.insert("host" + std::to_string(h));
    if (fairshare) {
      auto fs = std::make_shared<FairsharePolicy>();
      ShareNode all;
      all.kind = ShareNode::Kind::kDefault;
      all.name = "default";
      all.shares = 1;
      fs->top.push_back(all);
      qp.fairshare = fs;
      qp.share_domain = q;
      qp.share_key = qp.name;
    }
    p->queues.push_back(std::move(qp));
  }
  p->user_limits["default"] = UserSlotLimit{400, std::nullopt};
  LimitPolicy per_project;
  per_project.name = "per_project";
  per_project.projects.given = true;
  per_project.projects.per_member = true;
  per_project.projects.all = true;
  per_project.slots = 8000;
  p->limits.push_back(per_project);
  p->modules = {"schmod_default",  "schmod_fcfs",    "schmod_fairshare", "schmod_limit",
                "schmod_parallel", "schmod_reserve", "schmod_preemption"};
  return p;
}

// Running jobs' hosts as indexes in the view's table, as mbatchd works them out once
// per job start and hands them to every pass.
void placed(const ClusterView& v, RunningJobView& r) {
  r.accel.table = v.accel.host_table;
  r.accel.slots = std::make_shared<const std::vector<std::pair<int, int>>>(host_slots(*v.accel.host_table, r.hosts));
}

ClusterView make_view(int hosts, int pending, bool fairshare, bool ids, std::mt19937& rng) {
  ClusterView v;
  v.policy = make_policy(hosts, fairshare);
  v.queues.resize(v.policy->queues.size());
  v.week = {3, 12, 0};
  for (int h = 0; h < hosts; ++h) {
    HostView hv;
    hv.name = "host" + std::to_string(h);
    hv.ncpus = 8;
    hv.resources["type"] = std::string(h % 3 ? "LINUX64" : "LINUXPPC");
    hv.resources["r15s"] = (h % 17) * 0.3;
    hv.resources["r1m"] = (h % 13) * 0.4;
    hv.resources["pg"] = 0.0;
    hv.resources["ut"] = 0.5;
    hv.resources["mem"] = 64000.0 - (h % 7) * 1000;
    hv.resources["it"] = 0.0;
    v.hosts.push_back(std::move(hv));
  }
  const char* reqs[] = {"",
                        "select[type==LINUX64]",
                        "select[mem>32000] rusage[mem=1000]",
                        "order[mem]",
                        "span[hosts=1]",
                        "select[type==LINUXPPC] order[-r1m]",
                        "rusage[mem=2000:duration=10]",
                        "span[ptile=4]"};
  std::vector<std::shared_ptr<const config::ResourceRequirement>> parsed;
  for (const char* r : reqs)
    parsed.push_back(*r ? std::make_shared<const config::ResourceRequirement>(*config::ResourceRequirement::parse(r))
                        : nullptr);
  NameIndex users, projects;
  auto with_ids = [&](auto& job) {
    if (!ids) return;
    job.user_id = users.insert(job.user).first;
    job.project_id = projects.insert(job.project).first;
  };
  // Fill the cluster, leaving one slot free on every tenth host.
  std::int64_t id = 1;
  for (int h = 0; h < hosts; ++h) {
    int used = h % 10 == 0 ? 7 : 8;
    for (int s = 0; s < used; ++s) {
      RunningJobView r;
      r.key = {id++, 0};
      r.queue = static_cast<int>(rng() % 20);
      r.user = "user" + std::to_string(rng() % 500);
      r.hosts = {v.hosts[h].name};
      r.start_time = 1000 - static_cast<int>(rng() % 1000);
      r.run_limit_s = 3600;
      with_ids(r);
      v.running.push_back(std::move(r));
    }
  }
  for (int i = 0; i < pending; ++i) {
    JobView j;
    j.key = {id++, 0};
    j.queue = static_cast<int>(rng() % 20);
    j.order = j.key.id;
    j.user = "user" + std::to_string(rng() % 500);
    j.project = "proj" + std::to_string(rng() % 20);
    int r = static_cast<int>(rng() % std::size(reqs));
    j.res_req = parsed[r];
    int n = rng() % 10 == 0 ? 8 : (rng() % 4 == 0 ? 2 : 1);
    j.min_slots = j.max_slots = n;
    j.run_limit_s = rng() % 3 == 0 ? 0 : 600 + static_cast<int>(rng() % 7200);
    with_ids(j);
    v.pending.push_back(std::move(j));
  }
  v.accel.host_table = make_host_table(v);
  v.accel.host_table_checked = true;
  v.accel.gpu_jobs = 0;  // as mbatchd counts them building its view: none asks for GPUs here
  for (auto& r : v.running) placed(v, r);
  if (ids) {
    v.accel.user_ids = std::make_shared<const NameIndex>(std::move(users));
    v.accel.project_ids = std::make_shared<const NameIndex>(std::move(projects));
  }
  return v;
}

// Everything a pass decided, hashed (FNV-1a): a change meant to make the pass faster
// must leave it as it was.
std::uint64_t digest(const PassResult& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  };
  auto key = [&](const JobKey& k) { mix(std::to_string(k.id) + "[" + std::to_string(k.index) + "]"); };
  for (const auto& d : r.dispatches) {
    key(d.job);
    for (const auto& host : d.hosts) mix(host);
  }
  for (const auto& res : r.reservations) {
    key(res.job);
    for (const auto& host : res.hosts) mix(host);
    mix(std::to_string(res.estimated_start));
  }
  for (const auto& s : r.suspends) key(s.job), mix(s.reason);
  for (const auto& s : r.resumes) key(s.job);
  for (const auto& p : r.reasons) {
    key(p.job);
    mix(*p.text);
    if (p.hosts)
      for (const auto& hr : *p.hosts) {
        mix(hr.reason);
        // In host order, as mbatchd shows them: the pass lists them as it came upon them.
        std::vector<int> hosts = hr.hosts;
        std::sort(hosts.begin(), hosts.end());
        for (int host : hosts) mix(hr.name(host));
      }
  }
  return h;
}

double millis(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// This thread's CPU time: on a shared machine wall time also counts the time others ran.
double cpu_millis() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  int pending = 100000, hosts = 5000, repeat = 3, changed_hosts = 0;
  bool fairshare = false, with_digest = true, ids = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fairshare")) {
      fairshare = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--no-ids")) {
      ids = false;
      continue;
    }
    if (!std::strcmp(argv[i], "--no-digest")) {  // for profiling: the digest costs more than the passes
      with_digest = false;
      continue;
    }
    if (i + 1 >= argc) break;
    if (!std::strcmp(argv[i], "--pending"))
      pending = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--hosts"))
      hosts = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat"))
      repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--changed-hosts"))
      changed_hosts = std::atoi(argv[++i]);
  }
  std::mt19937 rng(42);
  auto build_start = std::chrono::steady_clock::now();
  ClusterView view = make_view(hosts, pending, fairshare, ids, rng);
  std::printf("view: %d hosts, %zu running, %d pending (built in %.0f ms)\n", hosts, view.running.size(), pending,
              millis(std::chrono::steady_clock::now() - build_start));

  double best = 1e18, best_cpu = 1e18;
  PassResult result;
  for (int r = 0; r < repeat; ++r) {
    result = {};  // freeing the last pass's 100,000 reasons is the caller's work, not this pass's
    view.accel.carry = std::make_shared<PassCarry>();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_millis();
    result = schedule(view, 1000);
    best_cpu = std::min(best_cpu, cpu_millis() - c0);
    best = std::min(best, millis(std::chrono::steady_clock::now() - t0));
  }
  const auto& st = result.stats;
  std::printf(
      "full pass: %.1f ms (best of %d; CPU %.1f ms); %d considered, %d dispatched, %d reserved, %d classes, %zu "
      "reasons; "
      "digest %016llx\n",
      best, repeat, best_cpu, st.jobs_considered, st.dispatched, st.reserved, st.classes, result.reasons.size(),
      static_cast<unsigned long long>(with_digest ? digest(result) : 0));

  // The dispatched jobs start; then one job ends, and the pass that follows is what
  // mbatchd runs on every change.
  apply(view, result, 1000);
  view.running.erase(view.running.begin() + 5);
  // In key order, as mbatchd lists started jobs.
  std::sort(view.running.begin(), view.running.end(),
            [](const RunningJobView& a, const RunningJobView& b) { return a.key < b.key; });
  for (int i = 0; i < changed_hosts && hosts > 0; ++i) {
    auto& r15s = std::get<double>(view.hosts[static_cast<size_t>(i * hosts / changed_hosts % hosts)].resources["r15s"]);
    r15s += 0.1;
  }
  best = best_cpu = 1e18;
  for (int r = 0; r < repeat; ++r) {
    result = {};
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_millis();
    result = schedule(view, 1010);
    best_cpu = std::min(best_cpu, cpu_millis() - c0);
    best = std::min(best, millis(std::chrono::steady_clock::now() - t0));
  }
  std::printf(
      "pass after one job ends: %.1f ms (best of %d; CPU %.1f ms); %d hosts' load changed; %d dispatched; "
      "digest %016llx\n",
      best, repeat, best_cpu, changed_hosts, result.stats.dispatched,
      static_cast<unsigned long long>(with_digest ? digest(result) : 0));
  return 0;
}
