#pragma once

// The model registry's routes: every path under /api/v1/models and
// /api/v1/model/labels, as one table (api/route_table.hpp) in
// api/model_routes.cpp, beside their handlers.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& model_routes();

} // namespace det::api
