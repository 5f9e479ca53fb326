#pragma once

// The template family's routes: every path under /api/v1/templates (list,
// one, create, replace, remove), as one table (api/route_table.hpp) in
// api/template_routes.cpp, each handler beside it. The master decides
// each change (core's template commands) and the route answers once it is
// durable.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& template_routes();

} // namespace det::api
