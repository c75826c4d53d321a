// The rules of applying a pass's result (libsched/pass_apply.h), each on a small view
// or a target that writes down what it is told. The scenario tests run every scenario
// through mbatchd's path and the view applier and require the same views.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "libsched/pass_apply.h"
#include "libsched/pending_reason.h"

using namespace lsf;
using namespace lsf::sched;

namespace {

ClusterView hosts_view() {
  ClusterView v;
  for (const char* name : {"hostA", "hostB", "hostC"}) {
    HostView h;
    h.name = name;
    h.ncpus = 4;
    v.hosts.push_back(h);
  }
  return v;
}

JobView pending(std::int64_t id) {
  JobView j;
  j.key = {id, 0};
  j.order = id;
  j.user = "alice";
  return j;
}

RunningJobView running(std::int64_t id, const std::string& host, RunState state = RunState::kRun,
                       SuspendCause cause = SuspendCause::kNone) {
  RunningJobView r;
  r.key = {id, 0};
  r.hosts = {host, host};
  r.state = state;
  r.cause = cause;
  return r;
}

const RunningJobView* find(const ClusterView& v, std::int64_t id) {
  for (const auto& r : v.running)
    if (r.key.id == id) return &r;
  return nullptr;
}

TEST(PassApply, AStartMovesTheJobToRunningAndStampsItsHosts) {
  ClusterView v = hosts_view();
  v.pending = {pending(1), pending(2), pending(3)};
  PassResult r;
  r.dispatches.push_back({{2, 0}, {"hostA", "hostA", "hostC"}, {}, {}});
  r.dispatches.push_back({{9, 0}, {"hostB"}, {}, {}});  // not pending (killed meanwhile): nothing
  apply(v, r, 500);
  ASSERT_EQ(v.pending.size(), 2u);
  EXPECT_EQ(v.pending[0].key.id, 1);
  EXPECT_EQ(v.pending[1].key.id, 3);
  ASSERT_EQ(v.running.size(), 1u);
  EXPECT_EQ(v.running[0].key.id, 2);
  EXPECT_EQ(v.running[0].hosts, (std::vector<std::string>{"hostA", "hostA", "hostC"}));
  EXPECT_EQ(v.running[0].start_time, 500);
  EXPECT_EQ(v.running[0].state, RunState::kRun);
  EXPECT_EQ(v.hosts[0].last_dispatch, 500);
  EXPECT_EQ(v.hosts[1].last_dispatch, 0);
  EXPECT_EQ(v.hosts[2].last_dispatch, 500);
}

TEST(PassApply, TheReservationsReplaceTheLastPassesAndTheLastOfAJobsWins) {
  ClusterView v = hosts_view();
  v.pending = {pending(1), pending(2)};
  v.pending[0].reserving_since = 100;  // held after the last pass, not renewed
  v.pending[0].reserved_slots = 2;
  PassResult r;
  r.reservations.push_back({{2, 0}, {"hostA"}, 100, 900});
  r.reservations.push_back({{2, 0}, {"hostA", "hostB"}, 150, 800});
  apply(v, r, 500);
  EXPECT_EQ(v.pending[0].reserving_since, 0);
  EXPECT_EQ(v.pending[0].reserved_slots, 0);
  EXPECT_EQ(v.pending[1].reserving_since, 150);
  EXPECT_EQ(v.pending[1].reserved_slots, 2);
  EXPECT_EQ(v.pending[1].planned_start, 0);  // it holds slots: no planned start
}

TEST(PassApply, OnlyRunningJobsAreSuspendedAndALoadSuspendIsALoadAction) {
  ClusterView v = hosts_view();
  v.running = {running(1, "hostA"), running(2, "hostB"), running(3, "hostC", RunState::kUsusp)};
  PassResult r;
  r.suspends.push_back({{1, 0}, SuspendCause::kLoad, std::string(reason::kSuspLoad) + ": r1m"});
  r.suspends.push_back({{2, 0}, SuspendCause::kPreempted, reason::kSuspPreempted});
  r.suspends.push_back({{3, 0}, SuspendCause::kLoad, reason::kSuspStopCond});  // its owner stopped it
  apply(v, r, 700);
  EXPECT_EQ(find(v, 1)->state, RunState::kSsusp);
  EXPECT_EQ(find(v, 1)->cause, SuspendCause::kLoad);
  EXPECT_EQ(find(v, 2)->state, RunState::kSsusp);
  EXPECT_EQ(find(v, 2)->cause, SuspendCause::kPreempted);
  EXPECT_EQ(find(v, 3)->state, RunState::kUsusp);
  EXPECT_EQ(v.hosts[0].last_load_action, 700);
  EXPECT_EQ(v.hosts[1].last_load_action, 0);  // preemption is no load action
  EXPECT_EQ(v.hosts[2].last_load_action, 0);
}

TEST(PassApply, AResumeOfALoadOrUserCauseIsALoadActionAndOfAPreemptionIsNot) {
  ClusterView v = hosts_view();
  v.running = {running(1, "hostA", RunState::kSsusp, SuspendCause::kLoad),
               running(2, "hostB", RunState::kSsusp, SuspendCause::kUser),
               running(3, "hostC", RunState::kSsusp, SuspendCause::kPreempted), running(4, "hostC", RunState::kUsusp)};
  PassResult r;
  for (int id = 1; id <= 4; ++id) r.resumes.push_back({{id, 0}});
  apply(v, r, 900);
  for (int id = 1; id <= 3; ++id) {
    EXPECT_EQ(find(v, id)->state, RunState::kRun) << id;
    EXPECT_EQ(find(v, id)->cause, SuspendCause::kNone) << id;
  }
  EXPECT_EQ(find(v, 4)->state, RunState::kUsusp);  // the system resumes only what it suspended
  EXPECT_EQ(v.hosts[0].last_load_action, 900);
  EXPECT_EQ(v.hosts[1].last_load_action, 900);
  EXPECT_EQ(v.hosts[2].last_load_action, 0);
}

TEST(PassApply, ATargetIsToldInTheContractsOrderAndARefusedStartIsNotStamped) {
  std::vector<std::string> told;
  ApplyTarget t;
  t.start = [&](const Dispatch& d) {
    told.push_back("start " + std::to_string(d.job.id));
    return d.job.id != 2;  // 2's host went down meanwhile
  };
  t.dispatched = [&](const std::string& host) { told.push_back("dispatched " + host); };
  t.reservations = [&](std::vector<Reservation>& held) {
    told.push_back("reservations " + std::to_string(held.size()));
    held.clear();  // taken
  };
  t.find = [&](const JobKey& key) -> std::optional<StartedJob> {
    if (key.id == 5) return std::nullopt;  // ended meanwhile
    return StartedJob{key.id == 3 ? RunState::kRun : RunState::kSsusp, SuspendCause::kLoad, "hostC"};
  };
  t.suspend = [&](const Suspend& s) { told.push_back("suspend " + std::to_string(s.job.id)); };
  t.resume = [&](const Resume& r) { told.push_back("resume " + std::to_string(r.job.id)); };
  t.load_action = [&](const std::string& host) { told.push_back("load_action " + host); };
  PassResult r;
  r.dispatches.push_back({{1, 0}, {"hostA", "hostA", "hostB"}, {}, {}});
  r.dispatches.push_back({{2, 0}, {"hostB"}, {}, {}});
  r.reservations.push_back({{6, 0}, {"hostB"}, 10, 20});
  r.suspends.push_back({{3, 0}, SuspendCause::kLoad, reason::kSuspLoad});
  r.suspends.push_back({{4, 0}, SuspendCause::kLoad, reason::kSuspLoad});  // already suspended
  r.resumes.push_back({{4, 0}});
  r.resumes.push_back({{5, 0}});
  apply(r, t);
  EXPECT_EQ(told,
            (std::vector<std::string>{"start 1", "dispatched hostA", "dispatched hostB", "start 2", "reservations 1",
                                      "suspend 3", "load_action hostC", "resume 4", "load_action hostC"}));
  EXPECT_TRUE(r.reservations.empty());
}

TEST(PassApply, ASuspendedJobsCauseComesBackFromItsReason) {
  EXPECT_EQ(suspend_cause_of(false, reason::kSuspLoad), SuspendCause::kNone);
  EXPECT_EQ(suspend_cause_of(true, reason::kSuspPreempted), SuspendCause::kPreempted);
  EXPECT_EQ(suspend_cause_of(true, reason::kSuspWindow), SuspendCause::kWindow);
  EXPECT_EQ(suspend_cause_of(true, reason::kSuspStopCond), SuspendCause::kLoad);
  EXPECT_EQ(suspend_cause_of(true, std::string(reason::kSuspLoad) + ": r1m"), SuspendCause::kLoad);
  EXPECT_EQ(suspend_cause_of(true, reason::kSuspResumeWait), SuspendCause::kUser);
}

TEST(PassApply, APendingReasonCarriesQueueTimeAndBypassesToTheNextPass) {
  ClusterView v = hosts_view();
  v.pending = {pending(1), pending(2)};
  v.pending[0].idle_since = 100;
  v.pending[1].idle_since = 100;
  auto text = std::make_shared<const std::string>("reason");
  PassResult r;
  r.reasons.push_back({{1, 0}, text, nullptr, /*blocked=*/true, 0, 0});
  r.reasons.push_back({{2, 0}, text, nullptr, false, /*bypassed=*/3, 1});
  apply(v, r, 400);
  EXPECT_EQ(v.pending[0].idle_since, -1);  // blocked: no queue time
  EXPECT_EQ(v.pending[1].idle_since, 100);
  EXPECT_EQ(v.pending[1].bypass_count, 3);
  r.reasons[0].blocked = false;
  r.reasons[1].bypassed = 2;
  apply(v, r, 600);
  EXPECT_EQ(v.pending[0].idle_since, 600);  // eligible again: counts from now
  EXPECT_EQ(v.pending[1].bypass_count, 5);
}

}  // namespace
