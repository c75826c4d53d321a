// A pass with what the last one worked out (ClusterView::accel.carry) decides exactly what
// the same pass decides afresh, pass after pass, while loads, statuses, windows,
// rusage[] and running jobs change in between.
#include <gtest/gtest.h>

#include <random>

#include "libsched/pass.h"
#include "libsched/pass_apply.h"
#include "libsched/pass_carry.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

std::shared_ptr<SchedPolicy> policy() {
  auto p = std::make_shared<SchedPolicy>();
  p->default_host.mxj = 4;
  const char* names[] = {"short", "normal", "night"};
  for (int q = 0; q < 3; ++q) {
    QueuePolicy qp;
    qp.name = names[q];
    qp.priority = 40 - q * 10;
    config::LoadThreshold ut;
    ut.sched = 0.8;
    if (q != 1) qp.thresholds["ut"] = ut;
    if (q == 2)  // a part of the cluster
      for (int h = 0; h < 12; ++h) qp.hosts.insert("host" + std::to_string(h));
    p->queues.push_back(std::move(qp));
  }
  config::LoadThreshold r1m;
  r1m.sched = 3.0;
  p->default_host.thresholds["r1m"] = r1m;
  return p;
}

ClusterView view(std::mt19937& rng) {
  ClusterView v;
  v.policy = policy();
  v.queues.resize(v.policy->queues.size());
  v.week = {3, 12, 0};
  for (int h = 0; h < 24; ++h) {
    HostView hv;
    hv.name = "host" + std::to_string(h);
    hv.ncpus = 4;
    hv.resources["type"] = std::string(h % 3 ? "LINUX64" : "LINUXPPC");
    hv.resources["r15s"] = static_cast<double>(rng() % 5) * 0.5;
    hv.resources["r1m"] = static_cast<double>(rng() % 5);
    hv.resources["pg"] = 0.0;
    hv.resources["ut"] = static_cast<double>(rng() % 10) / 10;
    hv.resources["mem"] = 8000.0 + static_cast<double>(rng() % 8) * 1000;
    v.hosts.push_back(std::move(hv));
  }
  v.accel.host_table = make_host_table(v);
  return v;
}

std::string render(const PassResult& r) {
  std::string out;
  for (const auto& d : r.dispatches) {
    out += "start " + std::to_string(d.job.id) + ":";
    for (const auto& h : d.hosts) out += " " + h;
    out += "\n";
  }
  for (const auto& res : r.reservations) {
    out += "reserve " + std::to_string(res.job.id) + " until " + std::to_string(res.estimated_start) + ":";
    for (const auto& h : res.hosts) out += " " + h;
    out += "\n";
  }
  for (const auto& s : r.suspends) out += "suspend " + std::to_string(s.job.id) + " " + s.reason + "\n";
  for (const auto& s : r.resumes) out += "resume " + std::to_string(s.job.id) + "\n";
  for (const auto& p : r.reasons) {
    out += "pend " + std::to_string(p.job.id) + " " + *p.text;
    if (p.hosts)
      for (const auto& hr : *p.hosts) {
        out += " | " + hr.reason + ":";
        for (int h : hr.hosts) out += " " + hr.name(h);  // in the pass's order, not sorted
      }
    out += "\n";
  }
  return out;
}

// The pass with the carry, checked against the same pass made afresh.
PassResult schedule_checked(const ClusterView& v, std::int64_t now, int pass) {
  ClusterView fresh = v;
  fresh.accel.carry = nullptr;
  PassResult carried = schedule(v, now);
  EXPECT_EQ(render(carried), render(schedule(fresh, now))) << "pass " << pass;
  return carried;
}

// The dispatched jobs start; `ends` running jobs end, picked at random.
void start_and_end(ClusterView& v, const PassResult& r, std::int64_t now, int ends, std::mt19937& rng) {
  apply(v, r, now);
  for (int i = 0; i < ends && !v.running.empty(); ++i)
    v.running.erase(v.running.begin() + static_cast<std::ptrdiff_t>(rng() % v.running.size()));
}

}  // namespace

TEST(PassCarry, DecidesAsAFreshPassWhileTheClusterChanges) {
  std::mt19937 rng(7);
  ClusterView v = view(rng);
  const char* reqs[] = {"",
                        "select[type==LINUX64]",
                        "select[mem>10000] rusage[mem=3000]",
                        "order[mem]",
                        "rusage[mem=2000:duration=1]",
                        "select[ut<0.5] order[-r1m]",
                        "span[hosts=1]"};
  std::vector<std::shared_ptr<const config::ResourceRequirement>> parsed;
  for (const char* r : reqs)
    parsed.push_back(*r ? std::make_shared<const config::ResourceRequirement>(*config::ResourceRequirement::parse(r))
                        : nullptr);
  auto asked = std::make_shared<AskedHosts>();
  asked->preference = {{"host3", 2}, {"host5", 0}, {"host7", 1}, {"host20", 0}};
  std::int64_t next_id = 1;
  auto submit = [&](int n) {
    for (int i = 0; i < n; ++i) {
      JobView j;
      j.key = {next_id, 0};
      j.order = next_id++;
      j.queue = static_cast<int>(rng() % 3);
      j.user = "user" + std::to_string(rng() % 4);
      j.res_req = parsed[rng() % std::size(reqs)];
      if (rng() % 8 == 0) j.asked_hosts = asked;
      j.min_slots = j.max_slots = rng() % 5 == 0 ? 3 : 1;
      v.pending.push_back(std::move(j));
    }
  };
  submit(150);
  v.accel.carry = std::make_shared<PassCarry>();
  std::int64_t now = 1000;
  int changed_passes = 0;
  for (int pass = 0; pass < 30; ++pass) {
    const PassResult carried = schedule_checked(v, now, pass);
    if (HasFailure()) return;
    changed_passes += carried.dispatches.empty() ? 0 : 1;
    start_and_end(v, carried, now, 3, rng);
    // New load on a few hosts, or on all of them now and then.
    const int loads = pass % 7 == 6 ? 24 : static_cast<int>(rng() % 4);
    for (int i = 0; i < loads; ++i) {
      HostView& h = v.hosts[rng() % v.hosts.size()];
      h.resources["r15s"] = static_cast<double>(rng() % 5) * 0.5;
      h.resources["ut"] = static_cast<double>(rng() % 10) / 10;
      h.resources["r1m"] = static_cast<double>(rng() % 5);
    }
    // A host closed, another opened; a new resource on one.
    if (pass % 4 == 1) v.hosts[rng() % v.hosts.size()].status = HostStatus::kClosedAdm;
    if (pass % 4 == 3) v.hosts[rng() % v.hosts.size()].status = HostStatus::kOk;
    if (pass == 10) v.hosts[4].resources["fast"] = 1.0;
    if (pass == 15) {  // another policy: everything is worked out afresh
      auto p = std::make_shared<SchedPolicy>(*v.policy);
      p->queues[0].thresholds.clear();
      v.policy = p;
      v.accel.host_table = make_host_table(v);
    }
    submit(static_cast<int>(rng() % 10));
    now += 30;  // rusage[] with a duration runs out
  }
  EXPECT_GT(changed_passes, 5);  // the cluster did change under the passes
}

// Job slot limits carried: the counts of started jobs are brought up to date with the
// jobs that came and went, and what a pass placed or reserved is taken off again.
TEST(PassCarry, CountsJobSlotLimitsAsAFreshPass) {
  std::mt19937 rng(11);
  ClusterView v = view(rng);
  auto p = std::make_shared<SchedPolicy>(*v.policy);
  p->modules = {"schmod_default", "schmod_fcfs", "schmod_limit", "schmod_parallel", "schmod_reserve"};
  p->queues[0].ujob_limit = 8;
  p->queues[0].hjob_limit = 2;
  p->queues[1].qjob_limit = 40;
  p->queues[1].pjob_limit = 0.75;
  p->queues[1].slot_reserve_time = 5;
  p->queues[2].slot_reserve_time = 5;
  p->default_host.jl_u = 3;
  p->user_limits["user1"] = UserSlotLimit{14, 0.5};
  p->user_limits["newcomer"] = UserSlotLimit{2, std::nullopt};
  p->group_members["g1"] = {"user2", "user3"};
  p->group_limits["g1"] = UserSlotLimit{28, 1.0};
  auto limit = [&](const char* name) -> LimitPolicy& {
    LimitPolicy& l = p->limits.emplace_back();
    l.name = name;
    return l;
  };
  LimitPolicy& per_user = limit("per_user");
  per_user.users = {true, true, true, {}, {}};
  per_user.slots = 16;
  LimitPolicy& per_project = limit("per_project");
  per_project.projects = {true, true, true, {}, {}};
  per_project.jobs = 40;
  LimitPolicy& per_host = limit("per_host");
  per_host.hosts = {true, true, true, {}, {}};
  per_host.queues = {true, false, false, {"normal"}, {}};
  per_host.slots = 3;
  LimitPolicy& some_hosts = limit("some_hosts");
  some_hosts.hosts = {true, false, false, {"host0", "host1", "host2", "host3", "host4", "host5"}, {}};
  some_hosts.slots = 14;
  LimitPolicy& per_cpu = limit("per_cpu");
  per_cpu.queues = {true, false, false, {"night"}, {}};
  per_cpu.slots_per_processor = 0.5;
  v.policy = p;
  v.accel.host_table = make_host_table(v);

  auto users = std::make_shared<NameIndex>(), projects = std::make_shared<NameIndex>();
  std::int64_t next_id = 1;
  // `user` empty: one of user0..user7 at random.
  auto submit = [&](int n, bool ids, const std::string& user = "", int slots = 0) {
    for (int i = 0; i < n; ++i) {
      JobView j;
      j.key = {next_id, 0};
      j.order = user.empty() ? next_id : 0;  // the named users' first in their queue (btop)
      ++next_id;
      j.queue = user.empty() ? static_cast<int>(rng() % 3) : 0;
      j.user = user.empty() ? "user" + std::to_string(rng() % 8) : user;
      j.project = "proj" + std::to_string(rng() % 3);
      if (ids) {
        j.user_id = users->insert(j.user).first;
        j.project_id = projects->insert(j.project).first;
      }
      j.min_slots = j.max_slots = slots > 0 ? slots : rng() % 4 == 0 ? 3 : 1;
      v.pending.push_back(std::move(j));
    }
    v.accel.user_ids = std::make_shared<const NameIndex>(*users);
    v.accel.project_ids = std::make_shared<const NameIndex>(*projects);
  };
  submit(200, true);
  v.accel.carry = std::make_shared<PassCarry>();
  std::int64_t now = 1000;
  int limited = 0, reserved = 0;
  for (int pass = 0; pass < 30; ++pass) {
    const PassResult carried = schedule_checked(v, now, pass);
    if (HasFailure()) return;
    for (const auto& r : carried.reasons) limited += r.text->find("limit") != std::string::npos;
    reserved += static_cast<int>(carried.reservations.size());
    start_and_end(v, carried, now, 4, rng);
    // In key order, as mbatchd lists them; once not (the jobs out of place are counted
    // again).
    if (pass != 12)
      std::sort(v.running.begin(), v.running.end(),
                [](const RunningJobView& a, const RunningJobView& b) { return a.key < b.key; });
    if (!v.running.empty() && pass % 4 == 0) v.running.pop_back();  // the newest ends
    if (!v.running.empty() && pass % 5 == 2) {                      // requeued and started elsewhere by brun
      RunningJobView& r = v.running[rng() % v.running.size()];
      r.hosts.assign(r.hosts.size(), "host" + std::to_string(rng() % 24));
    }
    if (!v.running.empty() && pass % 6 == 3)  // switched queue (bswitch)
      v.running[rng() % v.running.size()].queue = static_cast<int>(rng() % 3);
    // Once jobs without ids, of a user the caller's tables lack; then a new user in the
    // tables takes the id the pass gave that name, and the pass after counts afresh.
    if (pass == 18) submit(6, false, "newcomer", 1), submit(2, false, "user3", 1);
    if (pass == 19) submit(3, true, "user8", 3);
    if (pass == 15) {  // another policy: counted afresh
      auto changed = std::make_shared<SchedPolicy>(*v.policy);
      changed->user_limits["user1"] = UserSlotLimit{6, 0.5};
      v.policy = changed;
      v.accel.host_table = make_host_table(v);
    }
    submit(static_cast<int>(rng() % 12), true);
    now += 30;
  }
  EXPECT_GT(limited, 100);  // the limits did hold jobs back
  EXPECT_GT(reserved, 0);   // and reservations were held
}
