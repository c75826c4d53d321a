// What every mbatchd component is built with: the state it reads and changes, the
// sink it records changes through, the configuration and the log. A component takes
// this by value (it holds references) plus a hooks struct of std::functions for what
// it needs from the other components, so a unit test can build one with a
// ClusterState, a MemoryEventSink and lambdas, and no sockets or Mbatchd.
//
// Thread: everything here belongs to the state thread (the io_context); a component
// that posts work elsewhere brings its results back there before touching state.
#pragma once

#include <memory>

#include <spdlog/logger.h>

#include "daemons/mbatchd/cluster_state.h"
#include "daemons/mbatchd/event_sink.h"
#include "libconfig/cluster_config.h"

namespace lsf::mbd {

struct ComponentContext {
  // mbatchd's pointer to the configuration in force: a reconfig replaces what it
  // points to, so components read it through this reference every time.
  const std::shared_ptr<const config::ClusterConfig>& config;
  ClusterState& state;
  EventSink& sink;
  std::shared_ptr<spdlog::logger> log;

  const config::ClusterConfig& conf() const { return *config; }
};

}  // namespace lsf::mbd
