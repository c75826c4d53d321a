// Groups nested as a lattice (each level's group holding two groups that both hold the
// next level's) have 2^levels paths but few groups: checking them for cycles and
// expanding them into members must take time in the number of groups, not of paths.
#include <string>

#include <gtest/gtest.h>

#include "libconfig/host_resolution.h"
#include "libconfig/semantic_checks.h"
#include "libsched/model/policy.h"

using namespace lsf;

namespace {

// g0 (a0 b0), a0 (g1), b0 (g1), ... g<levels> (alice), for user and host groups alike.
config::ClusterConfig lattice(int levels) {
  config::ClusterConfig cfg;
  cfg.hosts.push_back({});
  cfg.hosts.back().name = "hostA";
  auto user_group = [&](const std::string& name, const std::vector<std::string>& members) {
    config::UserGroup g;
    g.name = name;
    for (const auto& m : members) {
      config::UserListItem item;
      item.name = m;
      g.members.push_back(item);
    }
    cfg.user_groups.push_back(std::move(g));
  };
  auto host_group = [&](const std::string& name, const std::vector<std::string>& members) {
    config::HostGroup g;
    g.name = name;
    for (const auto& m : members) {
      config::HostListItem item;
      item.name = m;
      g.members.push_back(item);
    }
    cfg.host_groups.push_back(std::move(g));
  };
  for (int i = 0; i < levels; ++i) {
    const std::string n = std::to_string(i), next = "g" + std::to_string(i + 1);
    user_group("g" + n, {"a" + n, "b" + n});
    user_group("a" + n, {next});
    user_group("b" + n, {next});
    host_group("g" + n, {"a" + n, "b" + n});
    host_group("a" + n, {next});
    host_group("b" + n, {next});
  }
  user_group("g" + std::to_string(levels), {"alice"});
  host_group("g" + std::to_string(levels), {"hostA"});
  return cfg;
}

TEST(GroupNesting, LatticeOfGroupsIsCheckedAndExpandedInLinearTime) {
  // 2^60 paths: without the fix neither call would return.
  const config::ClusterConfig cfg = lattice(60);
  config::Diagnostics diags;
  config::check_cluster_config(cfg, {}, diags);
  EXPECT_EQ(diags.to_string().find("includes the group itself"), std::string::npos) << diags.to_string();
  auto policy = sched::build_policy(cfg);
  EXPECT_EQ(policy->group_members.at("g0"), (std::set<std::string, std::less<>>{"alice"}));
  config::HostListItem g0;
  g0.name = "g0";
  EXPECT_EQ(config::resolve_host_list(cfg, {g0}), (std::set<std::string>{"hostA"}));
}

}  // namespace
