#pragma once

// The workspace family's routes: every path under /api/v1/workspaces, a
// pool's workspace bindings and a workspace's role assignments, as one
// table (api/route_table.hpp) in api/workspace_routes.cpp. The handlers
// are api_records.hpp's (api_workspaces.cpp, api_namespaces.cpp).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& workspace_routes();

} // namespace det::api
