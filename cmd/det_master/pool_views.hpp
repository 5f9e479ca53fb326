#pragma once

// GET /api/v1/resource-pools: each pool in upstream's v1ResourcePool shape
// (name, type, minAgents, maxAgents, instanceType, numAgents,
// slotsAvailable, slotsUsed) plus what the provisioner records: its
// instances and open spot requests with their state, and the last launch
// error (kind, message, time, consecutive failures), so waiting trials'
// cause is visible. A pure function of the state (runs as a state_view).

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

namespace det::master {

nlohmann::json resource_pools_response(const state::cluster_state& s,
                                       int64_t now_us);

} // namespace det::master
