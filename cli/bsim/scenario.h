// A scheduling scenario (the YAML of tests/scenarios) as bsim replays it: the cluster
// its configuration snippets describe, and the jobs its steps submit. The scenario tests
// build their clusters with the same function, so a scenario means one thing to both.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace lsf::bsim {

// The configuration files of the scenario's cluster "test", by path below a directory
// (conf/lsf.conf, conf/lsf.shared, conf/lsbatch/test/configdir/lsb.queues ...): three
// hosts hostA-hostC unless `hosts` names others, resources fs and licA, lsb.params with
// JOB_ACCEPT_INTERVAL = 0, and every snippet under `config`.
std::map<std::string, std::string> scenario_files(const YAML::Node& doc);

struct ScenarioJob {
  std::int64_t id = 0;
  std::int64_t submit = 0;     // the step's `at`
  std::int64_t runtime = 0;    // `runtime`, else its run limit (`W`): it runs to the limit
  std::int64_t run_limit = 0;  // `W`; 0: none
  int procs = 1;               // `n`
  std::string queue;           // empty: the default queue
  std::string user = "alice";
  std::string project = "default";
};

struct Scenario {
  std::map<std::string, std::string> files;
  std::vector<ScenarioJob> jobs;  // by submit time, then as written
};

// Throws std::runtime_error naming the file and the job for what bsim cannot replay:
// `running` jobs, job options the simulator does not model (R, m, x, ...), jobs with
// neither a runtime nor a run limit.
Scenario read_scenario(const std::string& path);

}  // namespace lsf::bsim
