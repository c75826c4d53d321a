// What one job may hold: lengths of its strings, its environment, and the ranges of its
// numbers. Checked before anything else of a submission or bmod, so a request from any
// user costs mbatchd (and every later bjobs, pass and replay) a bounded amount, and a
// number is refused rather than wrapped. Lengths follow LSF's (4094 characters for a
// job name or a path); a job script given on standard input is the command here, so
// the command may be longer.
#pragma once

#include <cstddef>
#include <string>

#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::mbd {

inline constexpr std::size_t kMaxNameLength = 4094;             // -J, -P, -G, -sla, -app, -g, -q, -m
inline constexpr std::size_t kMaxPathLength = 4094;             // -o, -e, -i, -cwd
inline constexpr std::size_t kMaxCommandLength = 1u << 20;      // the command or job script
inline constexpr std::size_t kMaxExpressionLength = 64u << 10;  // -R, -w, -E, -Ep, -Q, array index list
inline constexpr std::size_t kMaxEnvironmentBytes = 1u << 20;   // all variables, names and values
inline constexpr std::size_t kMaxEnvironmentVariables = 10000;
inline constexpr std::size_t kMaxListItems = 10000;  // -q candidates, -m hosts

// Ok when `spec` is within bounds; else what is wrong, naming the option.
daemon::Status check_spec_bounds(const wire::JobSpec& spec);

}  // namespace lsf::mbd
