#pragma once

// Resource accounting and upstream's legacy read routes outside /api/v1
// (master/internal/core.go of upstream): GET /resources/allocation/raw,
// /aggregated and /allocations-csv (CSV, what `det resources` prints),
// their JSON forms under /api/v1/resources/allocation/ (`--json`), and GET
// /tasks (the live allocations by id, in upstream's Go field names, which
// upstream's e2e harness polls). Any signed-in user may call them, as with
// upstream's basic authorization; a trial's allocation token may not.
// Parameters are checked on the I/O thread (400 naming the parameter);
// the answer is a view of the read model (api/allocation_views.hpp). The
// routes are the resource family's table (api/route_table.hpp) in
// api/resource_routes.cpp.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& resource_routes();

} // namespace det::api
