// A host's status as bhosts shows it and the pass reads it. mbatchd works it out when
// asked (Mbatchd::status_of) from the host's sbatchd link, its state and the
// configuration; it is not stored.
#pragma once

#include <optional>
#include <string_view>

namespace lsf::mbd {

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

// The status a name stands for (a provider's offer carries names); nullopt for another.
constexpr std::optional<HostStatus> parse_host_status(std::string_view name) {
  for (auto s : {HostStatus::kOk, HostStatus::kClosedAdm, HostStatus::kClosedWind, HostStatus::kClosedBusy,
                 HostStatus::kClosedExcl, HostStatus::kClosedFull, HostStatus::kUnreach, HostStatus::kUnavail})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

// mbatchd cannot reach the host's sbatchd (its jobs show UNKWN; nothing is sent there).
constexpr bool unreachable(HostStatus s) { return s == HostStatus::kUnreach || s == HostStatus::kUnavail; }

}  // namespace lsf::mbd
