#pragma once

// What a pool's provisioner has recorded, for GET /api/v1/resource-pools
// (views_cluster.cpp adds it to upstream's v1ResourcePool fields): its
// instances and open spot requests with their state, the launches not yet
// seen, and the last launch error (kind, message, time, consecutive
// failures), so the cause of waiting trials is visible. Pure.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::api {

nlohmann::json pool_provisioning_json(const state::cluster_state& s,
                                      const std::string& pool);

} // namespace det::api
