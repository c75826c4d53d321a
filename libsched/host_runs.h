// A job's execution hosts, one entry per slot, as LSF counts them for display and for
// LSB_MCPU_HOSTS: consecutive repeats of a host become one run with its count
// ({hostA, hostA, hostB} -> {hostA 2, hostB 1}; shown "2*hostA").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lsf::sched {

template <typename Hosts>
std::vector<std::pair<std::string, int>> host_runs(const Hosts& hosts) {
  std::vector<std::pair<std::string, int>> runs;
  for (const auto& h : hosts) {
    if (runs.empty() || runs.back().first != h)
      runs.emplace_back(h, 1);
    else
      ++runs.back().second;
  }
  return runs;
}

}  // namespace lsf::sched
