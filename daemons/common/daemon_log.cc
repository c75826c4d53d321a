#include "daemons/common/daemon_log.h"

#include <filesystem>
#include <vector>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace lsf::net {
namespace {

spdlog::level::level_enum level_of(const std::string& mask) {
  if (mask == "LOG_DEBUG" || mask.rfind("LOG_DEBUG", 0) == 0) return spdlog::level::debug;
  if (mask == "LOG_ERR" || mask == "LOG_CRIT" || mask == "LOG_ALERT" || mask == "LOG_EMERG") return spdlog::level::err;
  if (mask == "LOG_WARNING") return spdlog::level::warn;
  return spdlog::level::info;  // LOG_NOTICE, LOG_INFO and LSF's default
}

}  // namespace

std::shared_ptr<spdlog::logger> open_daemon_log(const std::string& daemon, const std::string& logdir,
                                                const std::string& host, const std::string& log_mask,
                                                bool also_stderr) {
  std::vector<spdlog::sink_ptr> sinks;
  std::string file_error;
  if (!logdir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(logdir, ec);
    try {
      auto path = (std::filesystem::path(logdir) / (daemon + ".log." + host)).string();
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(path));
    } catch (const spdlog::spdlog_ex& e) {
      file_error = e.what();
    }
  }
  if (sinks.empty() || also_stderr) sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto logger = std::make_shared<spdlog::logger>(daemon, sinks.begin(), sinks.end());
  logger->set_level(level_of(log_mask));
  logger->set_pattern("%b %d %H:%M:%S.%e %P %l %v");
  logger->flush_on(spdlog::level::info);
  if (!file_error.empty()) logger->warn("cannot open log file in {}: {}; logging to stderr", logdir, file_error);
  return logger;
}

}  // namespace lsf::net
