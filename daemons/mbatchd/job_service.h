// JobService: the requests that make and change jobs. Submission (bsub, bsub -pack:
// job_submission.cc), control (bkill, bstop, bresume, btop/bbot, brun: job_control.cc)
// and changes after submission (brequeue, bswitch, bmod, bmig: job_changes.cc).
//
// Every handler checks the whole request before it records anything, so a refused
// request changes nothing; each change is recorded through the sink and the reply
// waits until it is durable. Who may act on which job is Permissions's (permissions.h).
// The request table (routes.cc) says who may send each request at all.
//
// Owns: the jobs brequeue, bmig or a MultiCluster recall killed and will requeue when
// their end is reported (in memory only: after a restart such a job ends as killed),
// and the count of submissions. Reads and records through the state; what belongs to
// the rest of mbatchd (hosts, job ends, job ids, job groups, the pass) comes through
// JobServiceHooks.
// Thread: the state thread (the io_context), as the request table calls it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemons/common/rpc_client.h"
#include "daemons/common/rpc_server.h"
#include "daemons/common/status.h"
#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/host_status.h"
#include "daemons/mbatchd/permissions.h"

namespace lsf::mbd {

struct ModifyScope;  // what one bmod request changes (job_changes.cc)

struct JobServiceHooks {
  // Host tracking (host_tracker.h): signals and StartJobs to a job's hosts, a host's
  // status and MXJ, and calls to an sbatchd.
  std::function<void(const Job&, int signal, const std::string& exit_reason)> signal_on_host;
  // SIGINT, SIGTERM, then SIGKILL, JOB_TERMINATE_INTERVAL apart.
  std::function<void(const Job&, const std::string& exit_reason)> terminate_on_host;
  std::function<void(const std::vector<sched::JobKey>&)> start_on_hosts;
  std::function<HostStatus(const std::string& host)> status_of;
  std::function<int(const std::string& host)> host_max_slots;  // < 0: no limit
  std::function<void(const std::string& host, wire::RequestEnvelope, std::function<void(const net::CallResult&)>)>
      call_host;
  // A running job's StartJob launch (its limits as its spec, profile and queue set
  // them); false when it does not run.
  std::function<bool(const sched::JobKey&, wire::JobLaunch&)> make_launch;
  // Ends a job: its record, its lsb.acct line.
  std::function<void(Job&, wire::JobState, int wait_status, double cpu, std::int64_t rss, const std::string& reason)>
      finish_job;
  // Puts a new job id on record in lsb.jobid before it is used; else why not (mbatchd
  // counts it as a refused change).
  std::function<daemon::Status(std::int64_t id)> cover_job_id;
  // Records the groups of `path` that do not exist yet (parents first), owned by `user`.
  std::function<void(const std::string& path, const std::string& user)> ensure_job_group;
  // Runs `then` once what was recorded so far is durable (true), or never will be.
  std::function<void(std::function<void(bool)> then)> when_durable;
  std::function<void()> request_pass;
};

class JobService {
 public:
  // `permissions` and `index` are mbatchd's, replaced in place at a reconfig.
  JobService(ComponentContext ctx, const ConfigIndex& index, const Permissions& permissions, JobServiceHooks hooks);

  // bsub; bsub -pack (each submission as bsub's, one reply when all are durable).
  void on_submit(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_submit_pack(const wire::RequestEnvelope& request, const net::Responder& respond);
  // bkill, bstop, bresume, bkill -s.
  void on_signal_jobs(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_job_move(const wire::RequestEnvelope& request, const net::Responder& respond);   // btop, bbot
  void on_force_run(const wire::RequestEnvelope& request, const net::Responder& respond);  // brun
  void on_requeue(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_switch(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_modify(const wire::RequestEnvelope& request, const net::Responder& respond);
  void on_migrate(const wire::RequestEnvelope& request, const net::Responder& respond);

  // Kills a started job to requeue it at the top of its queue when its end is
  // reported (MultiCluster recalls a job from a lease); false when one is under way.
  bool kill_and_requeue(const Job& job, const std::string& exit_reason);
  // A job killed to be requeued has ended: how to requeue it, and it is no longer
  // awaited. Nothing when the job was not killed for that.
  struct RequeueAfterKill {
    bool hold = false;    // brequeue -H
    bool to_top = false;  // bmig, a recall: ahead of the jobs waiting in its queue
  };
  std::optional<RequeueAfterKill> take_requeue_after_kill(const sched::JobKey& key);

  std::uint64_t submissions_total() const { return submissions_total_; }

 private:
  // Checks and records one submission; else the refusal.
  daemon::Status submit_one(const wire::JobSpec& spec, const wire::Identity& caller, wire::SubmitReply& out);
  daemon::Status check_submission(const wire::JobSpec& spec, std::string& queue, bool& default_queue,
                                  std::vector<std::int32_t>& indices) const;
  // -app: the profile exists, and -n falls within its PROCLIMIT (without -n, the job
  // takes the profile's default). Fills those defaults into `spec`.
  daemon::Status check_application(wire::JobSpec& spec) const;
  // Ok when `queue` takes a job with this spec, as it would at submission; else why not.
  daemon::Status check_in_queue(const wire::JobSpec& spec, const std::string& queue,
                                std::string* resolved = nullptr) const;
  // The jobs a control request names: each reference's job or elements; job id 0:
  // every unfinished job of `user_for_zero` ("all": everyone's). Unknown ids get a
  // failed result in `out`.
  std::vector<Job*> named_jobs(const google::protobuf::RepeatedPtrField<wire::JobRef>& refs,
                               const std::string& user_for_zero, wire::SignalJobsReply* out);
  // Tells a running job's sbatchd its run and memory limits as the spec now sets them.
  void send_limits(const Job& job);

  // bmod on one job: the spec it would have, or why the job may not have it.
  daemon::Status check_modify(const Job& job, const wire::ModifyRequest& q, const wire::Identity& caller,
                              const ModifyScope& scope, wire::JobSpec& spec) const;

  // bkill, bstop, bresume and bkill -s on one job the caller may act on: whether it
  // was done, the words after "Job <id>" the caller sees, and whether state changed
  // (a pass is then due). `by_admin`: an administrator acting on another's job.
  struct ActionOutcome {
    bool ok = false;
    std::string message;
    bool changed = false;
  };
  ActionOutcome kill_job(Job& job, bool remove, bool by_admin);
  ActionOutcome stop_job(Job& job, bool by_admin);
  ActionOutcome resume_job(Job& job);
  ActionOutcome signal_job(Job& job, int sig);

  ComponentContext ctx_;
  const ConfigIndex& index_;
  const Permissions& permissions_;
  JobServiceHooks hooks_;
  std::map<sched::JobKey, RequeueAfterKill> requeue_after_kill_;
  std::uint64_t submissions_total_ = 0;
};

}  // namespace lsf::mbd
