#pragma once

// The config-policy family's routes: every path under
// /api/v1/config-policies (the global policies and a workspace's, of a
// workload type: set, describe, remove), as one table
// (api/route_table.hpp) in api/config_policy_routes.cpp, each handler
// beside it. The master decides who may change them
// (core/config_policies.hpp); reads are every user's.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& config_policy_routes();

} // namespace det::api
