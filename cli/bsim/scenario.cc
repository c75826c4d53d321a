#include "cli/bsim/scenario.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace lsf::bsim {

std::map<std::string, std::string> scenario_files(const YAML::Node& doc) {
  std::map<std::string, std::string> files;
  const auto& c = doc["config"];
  files["conf/lsf.conf"] = "LSF_CONFDIR=.\nLSB_CONFDIR=lsbatch\n";
  std::string resources = "fs Boolean () () (File server)\nlicA Numeric () N (Licence)\n";
  if (c && c["lsf.shared.resources"]) resources += c["lsf.shared.resources"].as<std::string>();
  files["conf/lsf.shared"] =
      "Begin Cluster\nClusterName\ntest\nEnd Cluster\n"
      "Begin HostType\nTYPENAME\nLINUX64\nEnd HostType\n"
      "Begin HostModel\nMODELNAME CPUFACTOR ARCHITECTURE\nGeneric 1.0 (x86_64)\nEnd HostModel\n"
      "Begin Resource\nRESOURCENAME TYPE INTERVAL INCREASING DESCRIPTION\n" +
      resources + "End Resource\n";
  std::string hosts;
  if (doc["hosts"]) {
    for (const auto& h : doc["hosts"]) {
      std::string res;
      for (const auto& r : h["resources"]) res += (res.empty() ? "" : " ") + r.as<std::string>();
      hosts += h["name"].as<std::string>() + " Generic LINUX64 1 (" + res + ")\n";
    }
  } else {
    hosts = "hostA Generic LINUX64 1 ()\nhostB Generic LINUX64 1 ()\nhostC Generic LINUX64 1 ()\n";
  }
  std::string map;
  if (c && c["resource_map"])
    map = "Begin ResourceMap\nRESOURCENAME LOCATION\n" + c["resource_map"].as<std::string>() + "End ResourceMap\n";
  files["conf/lsf.cluster.test"] =
      "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
      "Begin Host\nHOSTNAME model type server RESOURCES\n" +
      hosts + "End Host\n" + map;
  const std::string lsb = "conf/lsbatch/test/configdir/";
  files[lsb + "lsb.queues"] = "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n";
  // lsfinstall's template sets JOB_ACCEPT_INTERVAL = 0; scenarios about it set it.
  files[lsb + "lsb.params"] = "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters\n";
  if (c)
    for (const char* f : {"lsb.queues", "lsb.hosts", "lsb.users", "lsb.resources", "lsb.params", "lsb.modules"})
      if (c[f]) files[lsb + f] = c[f].as<std::string>();
  return files;
}

Scenario read_scenario(const std::string& path) {
  auto fail = [&](const std::string& what) { throw std::runtime_error(path + ": " + what); };
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    fail(e.what());
  }
  if (doc["running"] && doc["running"].size() > 0)
    fail("`running` jobs cannot be replayed: submit them in a step at 0 instead");
  static const std::set<std::string> kModelled = {"id", "n", "W", "runtime", "user", "project", "queue"};
  Scenario out;
  try {
    out.files = scenario_files(doc);
    for (const auto& step : doc["steps"]) {
      std::int64_t at = step["at"] ? step["at"].as<std::int64_t>() : 0;
      for (const auto& j : step["submit"]) {
        ScenarioJob job;
        job.id = j["id"].as<std::int64_t>();
        const std::string name = "job " + std::to_string(job.id);
        for (const auto& kv : j)
          if (!kModelled.count(kv.first.as<std::string>()))
            fail(name + ": `" + kv.first.as<std::string>() + "` is not simulated (bsim models id, n, W, runtime, " +
                 "user, project and queue)");
        job.submit = at;
        if (j["n"]) job.procs = j["n"].as<int>();
        if (j["W"]) job.run_limit = j["W"].as<std::int64_t>();
        job.runtime = j["runtime"] ? j["runtime"].as<std::int64_t>() : job.run_limit;
        if (job.runtime <= 0) fail(name + ": give `runtime` or `W`, so it ends");
        if (j["queue"]) job.queue = j["queue"].as<std::string>();
        if (j["user"]) job.user = j["user"].as<std::string>();
        if (j["project"]) job.project = j["project"].as<std::string>();
        out.jobs.push_back(std::move(job));
      }
    }
  } catch (const YAML::Exception& e) {
    fail(e.what());
  }
  if (out.jobs.empty()) fail("no jobs: its steps submit nothing");
  std::stable_sort(out.jobs.begin(), out.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; });
  return out;
}

}  // namespace lsf::bsim
