// Lifecycle: the master's phases as one small state machine.
//
//   recovering --serving()--> serving --stopping()--> stopping
//                                 \--restart()------> restarting   (badmin mbdrestart)
//                                 \--hand_over()----> handing_over (badmin mbdrestart on a
//                                                     master that a preferred candidate can replace)
//   any phase --log_failed()--> log_failed   (a write the state reflects failed)
//   any phase --fenced()------> fenced       (another master took a later term)
//
// restarting and log_failed stop mbatchd too; main.cc then starts a new process image,
// except after handing_over: it releases its term and exits, and the preferred
// candidate's sbatchd starts the next master there (master_watch.h).
// after log_failed with --fresh-snapshot. A failed write wins over everything (its
// restart must rewrite the log), but a fenced master only steps down: it is no longer
// master, and its host's sbatchd decides whether it becomes one again. The first stop's
// cause is otherwise kept.
//
// Owns: the phase. Thread: the state thread only (stop() from another thread posts).
#pragma once

#include <string_view>

namespace lsf::mbd {

class Lifecycle {
 public:
  enum class Phase { kRecovering, kServing, kStopping, kRestarting, kHandingOver, kLogFailed, kFenced };

  Phase phase() const { return phase_; }
  // Recovery and start succeeded: requests are served.
  void serving() {
    if (phase_ == Phase::kRecovering) phase_ = Phase::kServing;
  }
  // stop(): mbatchd winds down; a cause already recorded is kept.
  void stopping() {
    if (phase_ == Phase::kRecovering || phase_ == Phase::kServing) phase_ = Phase::kStopping;
  }
  // badmin mbdrestart.
  void restart() {
    if (phase_ != Phase::kLogFailed && phase_ != Phase::kFenced) phase_ = Phase::kRestarting;
  }
  // badmin mbdrestart while a candidate before this host in LSF_MASTER_LIST is up.
  void hand_over() {
    if (phase_ != Phase::kLogFailed && phase_ != Phase::kFenced) phase_ = Phase::kHandingOver;
  }
  // False when the failure was already recorded (mbatchd stops once).
  bool log_failed() {
    if (phase_ == Phase::kLogFailed || phase_ == Phase::kFenced) return false;
    phase_ = Phase::kLogFailed;
    return true;
  }

  // False when already fenced (mbatchd steps down once).
  bool fenced() {
    if (phase_ == Phase::kFenced) return false;
    phase_ = Phase::kFenced;
    return true;
  }

  bool restart_requested() const { return phase_ == Phase::kRestarting; }
  bool was_fenced() const { return phase_ == Phase::kFenced; }
  bool handing_over() const { return phase_ == Phase::kHandingOver; }
  bool event_log_failed() const { return phase_ == Phase::kLogFailed; }

 private:
  Phase phase_ = Phase::kRecovering;
};

constexpr std::string_view to_string(Lifecycle::Phase p) {
  switch (p) {
    case Lifecycle::Phase::kRecovering:
      return "recovering";
    case Lifecycle::Phase::kServing:
      return "serving";
    case Lifecycle::Phase::kStopping:
      return "stopping";
    case Lifecycle::Phase::kRestarting:
      return "restarting";
    case Lifecycle::Phase::kHandingOver:
      return "handing_over";
    case Lifecycle::Phase::kLogFailed:
      return "log_failed";
    case Lifecycle::Phase::kFenced:
      return "fenced";
  }
  return "stopping";
}

}  // namespace lsf::mbd
