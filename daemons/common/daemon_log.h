// Daemon logs as LSF names them: LSF_LOGDIR/<daemon>.log.<host>, at the level of
// LSF_LOG_MASK (LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG...). Without a
// usable LSF_LOGDIR the log goes to stderr, as LSF does.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace lsf::net {

std::shared_ptr<spdlog::logger> open_daemon_log(const std::string& daemon, const std::string& logdir,
                                                const std::string& host, const std::string& log_mask, bool also_stderr);

}  // namespace lsf::net
