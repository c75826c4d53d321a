// Who may do what, as LSF decides it. Users control their own jobs; LSF administrators
// (ClusterAdmins, and root) control every job, host, queue and the daemon itself; a
// queue's ADMINISTRATORS control the jobs in that queue and open, close, activate and
// inactivate it. The caller is who the RPC layer says it is: the kernel on the local
// socket, the claim of a request signed with the cluster key otherwise.
#include <algorithm>

#include "daemons/mbatchd/mbatchd.h"

namespace lsf::mbd {

bool Mbatchd::is_admin(const wire::Identity& caller) const {
  const auto& admins = config_->cluster_admins;
  return caller.uid() == 0 || std::find(admins.begin(), admins.end(), caller.user_name()) != admins.end();
}

bool Mbatchd::names_user(const std::string& name, const std::string& user) const {
  if (name == "all" || name == user) return true;
  const auto& groups = config_index_.policy->group_members;
  auto g = groups.find(name);
  return g != groups.end() && g->second.count(user) > 0;
}

bool Mbatchd::is_queue_admin(const wire::Identity& caller, const std::string& queue) const {
  if (is_admin(caller)) return true;
  const auto* q = config_->find_queue(queue);
  if (!q) return false;
  for (const auto& item : q->administrators) {
    if (item.exclude) continue;
    if (item.kind == config::UserListItem::Kind::kAll || names_user(item.name, caller.user_name())) return true;
  }
  return false;
}

daemon::Status Mbatchd::check_user_priority(int priority, const wire::Identity& caller,
                                            const std::string& queue) const {
  if (priority <= 0) return {};
  const int max = config_->params.max_user_priority;
  if (max <= 0) return daemon::fail("-sp: user-assigned job priority is not enabled (MAX_USER_PRIORITY in lsb.params)");
  if (priority > max && !is_admin(caller) && !is_queue_admin(caller, queue))
    return daemon::fail("-sp " + std::to_string(priority) + ": more than MAX_USER_PRIORITY (" + std::to_string(max) +
                        ")");
  return {};
}

bool Mbatchd::acts_as_admin(const wire::Identity& caller, const Job& job) const {
  return is_queue_admin(caller, job.queue);
}

bool Mbatchd::may_control(const wire::Identity& caller, const Job& job) const {
  return job.user() == caller.user_name() || acts_as_admin(caller, job);
}

}  // namespace lsf::mbd
