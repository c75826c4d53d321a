#include "daemons/sbatchd/terminate_sequence.h"

#include <signal.h>

#include <algorithm>
#include <array>

namespace lsf::sbd {
namespace {

constexpr std::array kSignals{SIGINT, SIGTERM, SIGKILL};
constexpr int kSteps = static_cast<int>(kSignals.size());

}  // namespace

bool begin_terminate(wire::SbdJob& job, std::int64_t now_ms, int interval_s) {
  if (job.terminate_started_ms() > 0) return false;
  job.set_terminate_started_ms(std::max<std::int64_t>(now_ms, 1));
  job.set_terminate_interval_s(std::max(interval_s, 0));
  job.set_terminate_signals_sent(0);
  return true;
}

bool terminating(const wire::SbdJob& job) {
  return job.terminate_started_ms() > 0 && job.terminate_signals_sent() < kSteps;
}

std::vector<int> take_due_signals(wire::SbdJob& job, std::int64_t now_ms) {
  std::vector<int> out;
  if (!terminating(job)) return out;
  const std::int64_t step_ms = std::int64_t{job.terminate_interval_s()} * 1000;
  int sent = std::max(job.terminate_signals_sent(), 0);
  while (sent < kSteps && job.terminate_started_ms() + sent * step_ms <= now_ms) out.push_back(kSignals[sent++]);
  job.set_terminate_signals_sent(sent);
  return out;
}

void end_terminate(wire::SbdJob& job) {
  if (job.terminate_started_ms() > 0) job.set_terminate_signals_sent(kSteps);
}

}  // namespace lsf::sbd
