// How long mbatchd took to answer each type of request since it started (from the
// request read to the reply handed back), for badmin perfmon view and /metrics: the
// figures Slurm's sdiag gives per RPC.
//
// Thread-safe: a reply may be handed back on another thread than the request's.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemons/common/histogram.h"

namespace lsf::mbd {

class RequestStats {
 public:
  // `request_case`: the RequestEnvelope's oneof case.
  void observe(int request_case, std::chrono::steady_clock::duration took);

  struct Row {
    std::string name;  // the request's field name in lsf.proto: submit, jobs, ...
    net::Histogram seconds;
  };
  std::vector<Row> rows() const;  // by name

 private:
  mutable std::mutex mu_;
  std::map<int, net::Histogram> by_case_;
};

}  // namespace lsf::mbd
