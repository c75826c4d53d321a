// The cluster the policy tests build their views on: one host, host1, of `slots` slots,
// root its administrator, JOB_ACCEPT_INTERVAL = 0, modelled as the pass sees it
// (sim::model_cluster), with the batch files given by name (lsb.queues, lsb.resources,
// ...) and lines added to lsb.params.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "config_tree.h"
#include "libsched/sim/cluster_model.h"

namespace lsf::testing {

struct OneHostCluster {
  ConfigTree tree;
  config::LoadResult loaded;
  sched::ClusterView view;
};

inline std::unique_ptr<OneHostCluster> one_host_cluster(int slots, const std::map<std::string, std::string>& lsb_files,
                                                        const std::string& params = "") {
  auto c = std::make_unique<OneHostCluster>();
  c->tree.write("conf/lsf.cluster.test",
                "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n"
                "Begin Host\nHOSTNAME model type server RESOURCES\nhost1 Generic LINUX64 1 ()\nEnd Host\n");
  c->tree.lsb("lsb.hosts", "Begin Host\nHOST_NAME MXJ\nhost1 " + std::to_string(slots) + "\nEnd Host\n");
  c->tree.lsb("lsb.params", "Begin Parameters\nJOB_ACCEPT_INTERVAL = 0\n" + params + "End Parameters\n");
  for (const auto& [name, text] : lsb_files) c->tree.lsb(name, text);
  c->loaded = c->tree.load();
  EXPECT_TRUE(c->loaded.usable()) << errors_of(c->loaded);
  c->view = sched::sim::model_cluster(*c->loaded.config, {0, 1});
  return c;
}

// A job of `user` running on host1 with `slots` slots since `start`.
inline sched::RunningJobView running_on_host1(std::int64_t id, const std::string& user, int slots,
                                              std::int64_t start = 0, std::int64_t run_limit = 0) {
  sched::RunningJobView r;
  r.key = {id, 0};
  r.user = user;
  r.hosts.assign(static_cast<size_t>(slots), "host1");
  r.start_time = start;
  r.run_limit_s = run_limit;
  return r;
}

}  // namespace lsf::testing
