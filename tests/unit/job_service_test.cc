// JobService (daemons/mbatchd/job_service.h) without sockets or an Mbatchd: requests
// go straight to its handlers, changes land in a ClusterState through a
// MemoryEventSink, and lambdas stand in for host tracking and the rest. Each test
// checks what the user sees (the reply) and what is recorded.
#include <gtest/gtest.h>

#include <csignal>

#include "component_world.h"
#include "daemons/mbatchd/job_service.h"
#include "event_records.h"

using namespace lsf;

namespace {

struct Cluster : lsf::testing::ComponentWorld {
  mbd::Permissions permissions;
  std::vector<std::pair<sched::JobKey, int>> signals;  // what went to the jobs' hosts
  std::vector<sched::JobKey> terminated;
  int passes = 0;
  std::string jobid_error;  // lsb.jobid cannot be written: why
  std::unique_ptr<mbd::JobService> service;

  Cluster() {
    tree.lsb("lsb.queues",
             "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nADMINISTRATORS = quinn\nEnd Queue\n"
             "Begin Queue\nQUEUE_NAME = night\nPRIORITY = 20\nEnd Queue\n");
    load();
    permissions = mbd::Permissions(*config, index);
    mbd::JobServiceHooks h;
    h.signal_on_host = [this](const mbd::Job& job, int signal, const std::string&) {
      signals.emplace_back(job.key, signal);
    };
    h.terminate_on_host = [this](const mbd::Job& job, const std::string&) { terminated.push_back(job.key); };
    h.start_on_hosts = [](const std::vector<sched::JobKey>&) {};
    h.status_of = [](const std::string&) { return mbd::HostStatus::kOk; };
    h.host_max_slots = [](const std::string&) { return 4; };
    h.call_host = [](const std::string&, wire::RequestEnvelope, std::function<void(const net::CallResult&)>) {};
    h.make_launch = [](const sched::JobKey&, wire::JobLaunch&) { return false; };
    // As mbatchd ends a job: its JOB_STATUS record.
    h.finish_job = [this](mbd::Job& job, wire::JobState to, int wait_status, double, std::int64_t,
                          const std::string& reason) {
      wire::EventRecord r = lsf::testing::job_status(job.key.id, to);
      r.mutable_job_status()->set_index(job.key.index);
      r.mutable_job_status()->set_exit_status(wait_status);
      r.mutable_job_status()->set_reason(reason);
      sink.record(r);
    };
    h.cover_job_id = [this](std::int64_t) {
      return jobid_error.empty() ? daemon::Status() : daemon::fail(jobid_error);
    };
    h.ensure_job_group = [](const std::string&, const std::string&) {};
    h.when_durable = [](std::function<void(bool)> then) { then(true); };
    h.request_pass = [this] { ++passes; };
    service = std::make_unique<mbd::JobService>(context("job_service_test"), index, permissions, std::move(h));
  }

  static wire::RequestEnvelope from(const std::string& user) {
    wire::RequestEnvelope r;
    r.mutable_caller()->set_user_name(user);
    r.mutable_caller()->set_uid(1000);
    return r;
  }
  // Calls `handler` and returns the one reply it gave.
  wire::ReplyEnvelope send(void (mbd::JobService::*handler)(const wire::RequestEnvelope&, const net::Responder&),
                           const wire::RequestEnvelope& request) {
    int replies = 0;
    wire::ReplyEnvelope out;
    (service.get()->*handler)(request, [&](wire::ReplyEnvelope r) {
      ++replies;
      out = std::move(r);
    });
    EXPECT_EQ(replies, 1);
    return out;
  }

  wire::ReplyEnvelope bsub(const std::string& user, const std::string& queue = "",
                           const std::string& command = "true") {
    auto r = from(user);
    r.mutable_submit()->mutable_spec()->set_command(command);
    if (!queue.empty()) r.mutable_submit()->mutable_spec()->add_queues(queue);
    return send(&mbd::JobService::on_submit, r);
  }
  wire::ReplyEnvelope bkill(const std::string& user, std::int64_t id) {
    auto r = from(user);
    r.mutable_signal_jobs()->add_jobs()->set_job_id(id);
    r.mutable_signal_jobs()->set_action(wire::JOB_ACTION_KILL);
    return send(&mbd::JobService::on_signal_jobs, r);
  }
  // A job of `user`'s already in the state, as recovery or an earlier bsub left it.
  void existing(std::int64_t id, const std::string& user, const std::string& queue = "normal") {
    auto r = lsf::testing::job_new(id, user, queue);
    sink.record(r);
  }
  void start(std::int64_t id, const std::string& host) {
    auto r = lsf::testing::job_start(id, host);
    sink.record(r);
  }
  const mbd::Job& job(std::int64_t id) { return *state.find_job({id, 0}); }
};

// The one line a per-job reply (bkill, bswitch, bmod, brequeue) gives for its job.
std::string line_of(const wire::ReplyEnvelope& reply) {
  EXPECT_EQ(reply.status(), wire::STATUS_OK);
  EXPECT_EQ(reply.signal_jobs().results_size(), 1);
  return reply.signal_jobs().results_size() ? reply.signal_jobs().results(0).message() : "";
}

TEST(JobService, ASubmissionIsRecordedAndAnsweredWithItsJob) {
  Cluster c;
  auto reply = c.bsub("alice", "night", "sleep 10");
  ASSERT_EQ(reply.status(), wire::STATUS_OK) << reply.message();
  EXPECT_EQ(reply.submit().job_id(), 1);
  EXPECT_EQ(reply.submit().queue(), "night");
  EXPECT_FALSE(reply.submit().default_queue());

  ASSERT_EQ(c.sink.records.size(), 1u);
  const auto& e = c.sink.records[0].job_new();
  EXPECT_EQ(e.job_id(), 1);
  EXPECT_EQ(e.user(), "alice");
  EXPECT_EQ(e.queue(), "night");
  EXPECT_EQ(e.spec().command(), "sleep 10");
  EXPECT_EQ(e.spec().min_processors(), 1);
  EXPECT_EQ(e.submit_time(), c.sink.clock);
  EXPECT_EQ(c.job(1).state, wire::JOB_PEND);
  EXPECT_EQ(c.passes, 1);
  EXPECT_EQ(c.service->submissions_total(), 1u);

  // Without -q the first queue takes it.
  reply = c.bsub("alice");
  EXPECT_EQ(reply.submit().job_id(), 2);
  EXPECT_EQ(reply.submit().queue(), "normal");
  EXPECT_TRUE(reply.submit().default_queue());
}

TEST(JobService, ARefusedSubmissionChangesNothing) {
  Cluster c;
  auto reply = c.bsub("alice", "nosuch");
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(), "nosuch: No such queue");
  reply = c.bsub("alice", "normal", "");
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(), "No command is specified");

  // A job id that cannot be put on record in lsb.jobid is not used.
  c.jobid_error = "cannot write lsb.jobid: No space left on device";
  reply = c.bsub("alice");
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(), "cannot write lsb.jobid: No space left on device");

  EXPECT_TRUE(c.sink.records.empty());
  EXPECT_TRUE(c.state.jobs().empty());
  EXPECT_EQ(c.state.next_job_id(), 1);
  EXPECT_EQ(c.passes, 0);
  EXPECT_EQ(c.service->submissions_total(), 0u);
}

// A held job (-H) cannot start until bresume, which asks for a pass itself: its
// submission asks for none (issue 42: a pass per held submission rebuilt every pending
// job's view).
TEST(JobService, AHeldSubmissionAsksForNoPass) {
  Cluster c;
  auto r = c.from("alice");
  r.mutable_submit()->mutable_spec()->set_command("true");
  r.mutable_submit()->mutable_spec()->set_hold(true);
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.job(1).state, wire::JOB_PSUSP);
  EXPECT_EQ(c.passes, 0);
  r.mutable_submit()->mutable_spec()->set_hold(false);
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.passes, 1);
}

// -gpu is checked by mbatchd whatever the client did, and kept with every amount's
// unit: a later LSF_UNIT_FOR_LIMITS cannot change it.
TEST(JobService, GpuRequestsAreCheckedAndKeptWithTheirUnits) {
  Cluster c;
  auto r = c.from("alice");
  r.mutable_submit()->mutable_spec()->set_command("true");
  r.mutable_submit()->mutable_spec()->set_gpu("num=2:mode=exclusive:gmem=2G");
  auto reply = c.send(&mbd::JobService::on_submit, r);
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(), "Bad GPU requirement (-gpu): mode=exclusive: must be shared or exclusive_process");
  EXPECT_TRUE(c.sink.records.empty());
  r.mutable_submit()->mutable_spec()->set_gpu("num=2:gmem=2G:gmodel=TeslaV100-32G");
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.sink.records[0].job_new().spec().gpu(), "num=2:gmodel=TeslaV100-32768M:gmem=2048M");
  EXPECT_EQ(c.job(1).submission->gpu->num, 2);
  r.mutable_submit()->mutable_spec()->set_gpu("-");
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.sink.records[1].job_new().spec().gpu(), "-");
  ASSERT_TRUE(c.job(2).submission->gpu);
  EXPECT_TRUE(c.job(2).submission->gpu->empty());
}

// LSF's other way to ask for GPUs: rusage[ngpus_physical=N] is -gpu "num=N" when the
// job has no -gpu; a fraction is refused and records nothing.
TEST(JobService, RusageNgpusPhysicalIsAGpuRequest) {
  Cluster c;
  auto r = c.from("alice");
  r.mutable_submit()->mutable_spec()->set_command("true");
  r.mutable_submit()->mutable_spec()->set_res_req("rusage[mem=100:ngpus_physical=0.5]");
  auto reply = c.send(&mbd::JobService::on_submit, r);
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(),
            "Bad resource requirement syntax: rusage[ngpus_physical=0.5]: the number of GPUs must be a whole number "
            "from 1 to 1024");
  EXPECT_TRUE(c.sink.records.empty());
  r.mutable_submit()->mutable_spec()->set_res_req("rusage[mem=100:ngpus_physical=2]");
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.sink.records[0].job_new().spec().gpu(), "num=2");
  ASSERT_TRUE(c.job(1).submission->gpu);
  EXPECT_EQ(c.job(1).submission->gpu->num, 2);
  // The job's own -gpu wins.
  r.mutable_submit()->mutable_spec()->set_gpu("num=1:mode=exclusive_process");
  ASSERT_EQ(c.send(&mbd::JobService::on_submit, r).status(), wire::STATUS_OK);
  EXPECT_EQ(c.sink.records[1].job_new().spec().gpu(), "num=1:mode=exclusive_process");
}

TEST(JobService, BkillOfAnotherUsersJobIsRefusedAndRecordsNothing) {
  Cluster c;
  c.existing(1, "alice");
  const auto before = c.sink.records.size();

  EXPECT_EQ(line_of(c.bkill("bob", 1)), "Job <1>: User permission denied");
  EXPECT_FALSE(c.bkill("bob", 1).signal_jobs().results(0).ok());
  EXPECT_EQ(c.sink.records.size(), before);
  EXPECT_EQ(c.job(1).state, wire::JOB_PEND);
  EXPECT_TRUE(c.signals.empty());

  // Its owner may: a pending job ends at once, killed by its owner.
  EXPECT_EQ(line_of(c.bkill("alice", 1)), "Job <1> is being terminated");
  ASSERT_EQ(c.sink.records.size(), before + 1);
  EXPECT_EQ(c.sink.records.back().job_status().reason(), "TERM_OWNER");
  EXPECT_EQ(c.job(1).state, wire::JOB_EXIT);
}

TEST(JobService, AQueueAdministratorKillsJobsOfThatQueueOnly) {
  Cluster c;
  c.existing(1, "alice", "normal");
  c.existing(2, "alice", "night");
  c.existing(3, "alice", "normal");
  c.start(3, "hostA");
  const auto before = c.sink.records.size();

  EXPECT_EQ(line_of(c.bkill("quinn", 2)), "Job <2>: User permission denied");
  EXPECT_EQ(c.sink.records.size(), before);
  EXPECT_EQ(c.job(2).state, wire::JOB_PEND);

  EXPECT_EQ(line_of(c.bkill("quinn", 1)), "Job <1> is being terminated");
  ASSERT_EQ(c.sink.records.size(), before + 1);
  EXPECT_EQ(c.sink.records.back().job_status().state(), wire::JOB_EXIT);
  EXPECT_EQ(c.sink.records.back().job_status().reason(), "TERM_ADMIN");

  // A running job is told to end (SIGINT, SIGTERM, SIGKILL); its end is recorded when
  // its host reports it.
  EXPECT_EQ(line_of(c.bkill("quinn", 3)), "Job <3> is being terminated");
  EXPECT_EQ(c.terminated, (std::vector<sched::JobKey>{{3, 0}}));
  EXPECT_EQ(c.sink.records.size(), before + 1);
}

TEST(JobService, BswitchOfAPendingJobRecordsItsNewQueue) {
  Cluster c;
  c.existing(1, "alice", "normal");
  auto r = Cluster::from("alice");
  r.mutable_switch_queue()->add_jobs()->set_job_id(1);
  r.mutable_switch_queue()->set_queue("night");
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_switch, r)), "Job <1> is switched to queue <night>");
  ASSERT_TRUE(c.sink.records.back().has_job_switch());
  EXPECT_EQ(c.sink.records.back().job_switch().queue(), "night");
  EXPECT_EQ(c.job(1).queue, "night");

  // Another user's job, or a queue that does not exist: refused, nothing recorded.
  const auto before = c.sink.records.size();
  auto bob = Cluster::from("bob");
  *bob.mutable_switch_queue() = r.switch_queue();
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_switch, bob)), "Job <1>: User permission denied");
  r.mutable_switch_queue()->set_queue("nosuch");
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_switch, r)), "Job <1>: nosuch: No such queue");
  EXPECT_EQ(c.sink.records.size(), before);
}

TEST(JobService, BmodOfAPendingJobRecordsTheNewSpec) {
  Cluster c;
  c.existing(1, "alice");
  auto r = Cluster::from("alice");
  r.mutable_modify()->add_jobs()->set_job_id(1);
  r.mutable_modify()->mutable_changes()->set_job_name("renamed");
  r.mutable_modify()->add_set("job_name");
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_modify, r)), "Parameters of job <1> are being changed");
  ASSERT_TRUE(c.sink.records.back().has_job_modify());
  EXPECT_EQ(c.sink.records.back().job_modify().spec().job_name(), "renamed");
  EXPECT_EQ(c.sink.records.back().job_modify().spec().command(), "true");
  EXPECT_EQ(c.job(1).spec().job_name(), "renamed");

  // A field a submission fixes for good: the whole request is refused.
  const auto before = c.sink.records.size();
  r.mutable_modify()->add_set("queues");
  auto reply = c.send(&mbd::JobService::on_modify, r);
  EXPECT_EQ(reply.status(), wire::STATUS_BAD_REQUEST);
  EXPECT_EQ(reply.message(), "bmod cannot change queues");
  EXPECT_EQ(c.sink.records.size(), before);
}

TEST(JobService, BrequeueOfAPendingJobRecordsARequeueToTheBottom) {
  Cluster c;
  c.existing(1, "alice");
  auto r = Cluster::from("alice");
  r.mutable_requeue()->add_jobs()->set_job_id(1);
  // By default brequeue takes started jobs only.
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_requeue, r)), "Job <1>: Job has not started yet");
  EXPECT_EQ(c.sink.records.size(), 1u);

  r.mutable_requeue()->add_states(wire::JOB_PEND);
  r.mutable_requeue()->set_hold(true);
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_requeue, r)), "Job <1> is being requeued");
  ASSERT_TRUE(c.sink.records.back().has_job_requeue());
  EXPECT_TRUE(c.sink.records.back().job_requeue().to_bottom());
  EXPECT_TRUE(c.sink.records.back().job_requeue().hold());
  EXPECT_EQ(c.job(1).state, wire::JOB_PSUSP);
}

TEST(JobService, BrequeueOfARunningJobKillsItAndRequeuesItAtItsEnd) {
  Cluster c;
  c.existing(1, "alice");
  c.start(1, "hostA");
  const auto before = c.sink.records.size();
  auto r = Cluster::from("alice");
  r.mutable_requeue()->add_jobs()->set_job_id(1);
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_requeue, r)), "Job <1> is being requeued");
  EXPECT_EQ(c.sink.records.size(), before);
  EXPECT_EQ(c.signals, (std::vector<std::pair<sched::JobKey, int>>{{{1, 0}, SIGKILL}}));
  // Asked again before its end: it is already on its way back.
  EXPECT_EQ(line_of(c.send(&mbd::JobService::on_requeue, r)),
            "Job <1>: Job is not in a state brequeue was asked to requeue");

  auto how = c.service->take_requeue_after_kill({1, 0});
  ASSERT_TRUE(how.has_value());
  EXPECT_FALSE(how->hold);
  EXPECT_FALSE(how->to_top);
  EXPECT_FALSE(c.service->take_requeue_after_kill({1, 0}).has_value());
}

}  // namespace
