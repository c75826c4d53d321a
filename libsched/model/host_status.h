// A host's status as bhosts shows it. The daemon gives the pass ok, closed_Adm, unreach
// or unavail; the pass works out closed_Full, closed_Excl, closed_Wind and closed_Busy
// itself, and mbatchd's bhosts shows all of them. One vocabulary for both, so a status
// is compared as a value and a misspelt one does not compile.
#pragma once

#include <optional>
#include <string_view>

namespace lsf::sched {

enum class HostStatus {
  kOk,
  kClosedAdm,   // badmin hclose
  kClosedWind,  // outside its DISPATCH_WINDOW
  kClosedBusy,  // a load index past its threshold
  kClosedExcl,  // runs an exclusive job
  kClosedFull,  // its MXJ slots are taken
  kUnreach,     // sbatchd silent a while, or resting after failed starts
  kUnavail,     // sbatchd not registered, or silent long enough that its jobs are lost
};

// The name bhosts shows: "ok", "closed_Adm", ..., "unreach", "unavail".
constexpr std::string_view to_string(HostStatus s) {
  switch (s) {
    case HostStatus::kOk:
      return "ok";
    case HostStatus::kClosedAdm:
      return "closed_Adm";
    case HostStatus::kClosedWind:
      return "closed_Wind";
    case HostStatus::kClosedBusy:
      return "closed_Busy";
    case HostStatus::kClosedExcl:
      return "closed_Excl";
    case HostStatus::kClosedFull:
      return "closed_Full";
    case HostStatus::kUnreach:
      return "unreach";
    case HostStatus::kUnavail:
      return "unavail";
  }
  return "unavail";
}

// The status a name stands for (a provider's offer and a scenario file carry names);
// nullopt for any other text.
constexpr std::optional<HostStatus> parse_host_status(std::string_view name) {
  for (auto s : {HostStatus::kOk, HostStatus::kClosedAdm, HostStatus::kClosedWind, HostStatus::kClosedBusy,
                 HostStatus::kClosedExcl, HostStatus::kClosedFull, HostStatus::kUnreach, HostStatus::kUnavail})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

// The host's sbatchd cannot be reached: its jobs show UNKWN, nothing is sent there, and
// it reports no load.
constexpr bool unreachable(HostStatus s) { return s == HostStatus::kUnreach || s == HostStatus::kUnavail; }

// Closed for a reason the pass works out again each pass (full, exclusive, window,
// load), as opposed to closed by an administrator or out of reach.
constexpr bool closed_by_pass(HostStatus s) {
  return s == HostStatus::kClosedWind || s == HostStatus::kClosedBusy || s == HostStatus::kClosedExcl ||
         s == HostStatus::kClosedFull;
}

}  // namespace lsf::sched
