#pragma once

// Resource accounting and upstream's legacy read routes outside /api/v1
// (master/internal/core.go of upstream): GET /resources/allocation/raw,
// /aggregated and /allocations-csv (CSV, what `det resources` prints),
// their JSON forms under /api/v1/resources/allocation/ (`--json`), and GET
// /tasks (the live allocations by id, in upstream's Go field names, which
// upstream's e2e harness polls). Any signed-in user may call them, as with
// upstream's basic authorization; a trial's allocation token may not.
// Parameters are checked on the I/O thread (400 naming the parameter);
// the answer is a view of the read model (api/allocation_views.hpp).

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

void add_resource_routes(http::router& r,
                         std::shared_ptr<const api_context> ctx);

} // namespace det::api
