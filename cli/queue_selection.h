// bqueues -u and -m: which queues a user may submit to, and which queues use a host, read
// from the queues' USERS and HOSTS lists as mbatchd reports them and the user and host
// groups of lsb.users / lsb.hosts (ConfigInfoReply).
//
// As LSF's bqueues: -u user shows the queues that accept jobs from that user (named, in
// a group named, or `all`, less `~` exclusions); -u group the queues whose USERS name the
// group; -u all the queues open to all users. -m host, -m host_group and -m all work the
// same way over HOSTS (`others` counts as every host not named).
#pragma once

#include <string>

#include "cli/cli_support.h"

namespace lsf::cli {

bool queue_accepts_user(const wire::QueueInfo& queue, const std::string& user, const wire::ConfigInfoReply& config);
bool queue_uses_host(const wire::QueueInfo& queue, const std::string& host, const wire::ConfigInfoReply& config);

}  // namespace lsf::cli
