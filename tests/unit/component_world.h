// What a test of one of mbatchd's components starts from: a configuration tree, the
// configuration loaded from it, its index, and the state and event sink a component is
// built with (daemons/mbatchd/component_context.h). A test writes its files into
// `tree`, calls load(), then builds its component with context().
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "config_tree.h"
#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/component_context.h"
#include "daemons/mbatchd/config_index.h"
#include "daemons/mbatchd/event_sink.h"

namespace lsf::testing {

struct ComponentWorld {
  ConfigTree tree;
  std::shared_ptr<const config::ClusterConfig> config;
  mbd::ConfigIndex index;
  mbd::ClusterState state;
  mbd::MemoryEventSink sink{state};

  // The tree as its files stand now; a configuration that does not load fails the test.
  void load() {
    auto loaded = tree.load();
    EXPECT_TRUE(loaded.usable()) << errors_of(loaded);
    config = loaded.config;
    index = mbd::index_config(*config);
    state.sync_config(*config, index.policy);
  }
  // `name` names the component's logger.
  mbd::ComponentContext context(const std::string& name) {
    return mbd::ComponentContext{config, state, sink, std::make_shared<spdlog::logger>(name)};
  }
};

}  // namespace lsf::testing
