#pragma once

// The project family's routes: every path under /api/v1/projects, as one
// table (api/route_table.hpp) in api/project_routes.cpp: a project itself
// (api_records.hpp's handlers, api_workspaces.cpp) and its experiments as
// a set (api_project_experiments.hpp).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& project_routes();

} // namespace det::api
