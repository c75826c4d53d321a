// Turns host lists (`all ~hostA groupX+2 others`) into the concrete hosts of the
// cluster, following LSF: groups expand (nested groups too), `~` removes, model and
// type names stand for every host of that model or type, `others` is every host not
// named elsewhere in the list. Names the cluster does not know are left out; the
// semantic checks report them.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "libconfig/cluster_config.h"
#include "libconfig/select_expr.h"

namespace lsf::config {

std::set<std::string> resolve_host_list(const ClusterConfig& config, const std::vector<HostListItem>& items);

// Static resources of a cluster host, as far as configuration alone knows them:
// hname, type, model, cpuf, server, ndisks, its Boolean and String resources.
// Returns monostate for anything only known at run time (load, maxmem, ncpus).
ResourceValue static_host_resource(const ClusterConfig& config, const ClusterHost& host, std::string_view name);

// True when every name the expression reads is known from configuration alone.
bool statically_decidable(const ClusterConfig& config, const SelectExpr& expr);

}  // namespace lsf::config
