// Permissions: who may act on which job and queue, as LSF decides it. The rules are
// written here once; the handlers ask, and none writes its own.
//
//   caller                          may act on
//   a job's owner                   that job (kill, stop, resume, modify, switch,
//                                   requeue, migrate, move, peek)
//   an LSF administrator: a         every job, queue and host, and the daemon itself
//   ClusterAdmin (lsf.cluster) or   (the request table's kAdmin requests: brun,
//   root (uid 0)                    badmin hclose/hopen, reconfig, router.h)
//   one of a queue's ADMINISTRATORS the jobs in that queue, and the queue itself
//   (a user, an lsb.users group     (open, close, activate, inactivate); not the
//   the user is in, or all)         jobs or controls of any other queue
//
// Acting as an administrator shows: a job killed or stopped by someone other than its
// owner ends TERM_ADMIN, is suspended "by LSF admin or root". Only those who act as
// administrators may set bmod's APS values or a -sp priority above MAX_USER_PRIORITY.
// Rules that are not about a job or queue stay where they belong: a job group's owner
// (job_groups.cc), the owner alone typing into a job's terminal (info_handlers.cc),
// who may submit to a service class or fairshare queue (job_submission.cc).
//
// The caller is who the RPC layer says it is: the kernel on the local socket, the
// claim of a request signed with the cluster key otherwise.
//
// Owns: a copy of the configuration's administrators and MAX_USER_PRIORITY, and a
// share of its index's policy (the lsb.users group members); a value, made again at
// each reconfig.
// Thread: the state thread (the io_context), as the handlers that ask.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "daemons/common/status.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/job.h"
#include "libconfig/cluster_config.h"
#include "lsf.pb.h"

namespace lsf::mbd {

class Permissions {
 public:
  Permissions() = default;  // root alone is an administrator
  Permissions(const config::ClusterConfig& config, const ConfigIndex& index);

  bool is_admin(const wire::Identity& caller) const;  // root or a ClusterAdmin
  // `name` is the user, `all`, or an lsb.users group the user is in (nested groups expanded).
  bool names_user(const std::string& name, const std::string& user) const;
  // An LSF administrator, or one of the queue's ADMINISTRATORS.
  bool is_queue_admin(const wire::Identity& caller, const std::string& queue) const;
  // Whether the caller acts on this job with an administrator's authority (what the
  // job's end reason and suspend reason then say).
  bool acts_as_admin(const wire::Identity& caller, const Job& job) const;
  bool may_control(const wire::Identity& caller, const Job& job) const;  // owner or admin
  // bsub/bmod -sp: enabled by MAX_USER_PRIORITY, which only administrators (of the
  // job's queue too) may pass.
  daemon::Status check_user_priority(int priority, const wire::Identity& caller, const std::string& queue) const;

 private:
  std::set<std::string, std::less<>> cluster_admins_;
  std::map<std::string, std::vector<config::UserListItem>, std::less<>> queue_admins_;  // by queue
  std::shared_ptr<const sched::SchedPolicy> policy_;  // group_members; null: no groups
  int max_user_priority_ = 0;
};

}  // namespace lsf::mbd
