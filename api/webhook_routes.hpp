#pragma once

// The webhook family's routes: every path under /api/v1/webhooks (list,
// create, change the URL, delete, test, a trial's custom alert), as one
// table (api/route_table.hpp) in api/webhook_routes.cpp, each handler
// beside it. Who may change a webhook is core's decision
// (core/webhooks.hpp); testing one needs an admin, refused in the
// handler's words.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& webhook_routes();

} // namespace det::api
