// The rules permissions.h states.
#include "daemons/mbatchd/permissions.h"

namespace lsf::mbd {

Permissions::Permissions(const config::ClusterConfig& config, const ConfigIndex& index)
    : cluster_admins_(config.cluster_admins.begin(), config.cluster_admins.end()),
      policy_(index.policy),
      max_user_priority_(config.params.max_user_priority) {
  for (const auto& q : config.queues) queue_admins_.emplace(q.name, q.administrators);
}

bool Permissions::is_admin(const wire::Identity& caller) const {
  return caller.uid() == 0 || cluster_admins_.count(caller.user_name()) > 0;
}

bool Permissions::names_user(const std::string& name, const std::string& user) const {
  if (name == "all" || name == user) return true;
  if (!policy_) return false;
  const auto& groups = policy_->group_members;
  auto g = groups.find(name);
  return g != groups.end() && g->second.count(user) > 0;
}

bool Permissions::is_queue_admin(const wire::Identity& caller, const std::string& queue) const {
  if (is_admin(caller)) return true;
  auto q = queue_admins_.find(queue);
  if (q == queue_admins_.end()) return false;
  for (const auto& item : q->second) {
    if (item.exclude) continue;
    if (item.kind == config::UserListItem::Kind::kAll || names_user(item.name, caller.user_name())) return true;
  }
  return false;
}

bool Permissions::acts_as_admin(const wire::Identity& caller, const Job& job) const {
  return is_queue_admin(caller, job.queue);
}

bool Permissions::may_control(const wire::Identity& caller, const Job& job) const {
  return job.user() == caller.user_name() || acts_as_admin(caller, job);
}

daemon::Status Permissions::check_user_priority(int priority, const wire::Identity& caller,
                                                const std::string& queue) const {
  if (priority <= 0) return {};
  const int max = max_user_priority_;
  if (max <= 0) return daemon::fail("-sp: user-assigned job priority is not enabled (MAX_USER_PRIORITY in lsb.params)");
  if (priority > max && !is_admin(caller) && !is_queue_admin(caller, queue))
    return daemon::fail("-sp " + std::to_string(priority) + ": more than MAX_USER_PRIORITY (" + std::to_string(max) +
                        ")");
  return {};
}

}  // namespace lsf::mbd
