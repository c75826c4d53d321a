// A pass with what the last one worked out (ClusterView::carry) decides exactly what
// the same pass decides afresh, pass after pass, while loads, statuses, windows,
// rusage[] and running jobs change in between.
#include <gtest/gtest.h>

#include <random>

#include "libsched/pass.h"
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
  v.host_table = make_host_table(v);
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
  v.carry = std::make_shared<PassCarry>();
  std::int64_t now = 1000;
  int changed_passes = 0;
  for (int pass = 0; pass < 30; ++pass) {
    ClusterView fresh = v;
    fresh.carry = nullptr;
    const PassResult carried = schedule(v, now);
    const std::string expected = render(schedule(fresh, now));
    ASSERT_EQ(render(carried), expected) << "pass " << pass;
    changed_passes += carried.dispatches.empty() ? 0 : 1;

    // The dispatched jobs start; some running ones end.
    for (const auto& d : carried.dispatches) {
      auto it = std::find_if(v.pending.begin(), v.pending.end(), [&](const JobView& j) { return j.key == d.job; });
      v.running.push_back(started(*it, d.hosts, now));
      v.pending.erase(it);
    }
    for (int i = 0; i < 3 && !v.running.empty(); ++i)
      v.running.erase(v.running.begin() + static_cast<std::ptrdiff_t>(rng() % v.running.size()));
    // New load on a few hosts, or on all of them now and then.
    const int loads = pass % 7 == 6 ? 24 : static_cast<int>(rng() % 4);
    for (int i = 0; i < loads; ++i) {
      HostView& h = v.hosts[rng() % v.hosts.size()];
      h.resources["r15s"] = static_cast<double>(rng() % 5) * 0.5;
      h.resources["ut"] = static_cast<double>(rng() % 10) / 10;
      h.resources["r1m"] = static_cast<double>(rng() % 5);
    }
    // A host closed, another opened; a new resource on one.
    if (pass % 4 == 1) v.hosts[rng() % v.hosts.size()].status = "closed_Adm";
    if (pass % 4 == 3) v.hosts[rng() % v.hosts.size()].status = "ok";
    if (pass == 10) v.hosts[4].resources["fast"] = 1.0;
    if (pass == 15) {  // another policy: everything is worked out afresh
      auto p = std::make_shared<SchedPolicy>(*v.policy);
      p->queues[0].thresholds.clear();
      v.policy = p;
      v.host_table = make_host_table(v);
    }
    submit(static_cast<int>(rng() % 10));
    now += 30;  // rusage[] with a duration runs out
  }
  EXPECT_GT(changed_passes, 5);  // the cluster did change under the passes
}
