#pragma once

// The run family's routes: upstream 0.38's Runs API (a run is a trial) under
// /api/v1/runs, as one table (api/route_table.hpp) in api/run_routes.cpp:
// search, kill, pause, resume, move, archive, unarchive and delete, each
// handler beside the table, and the harness's POST /api/v1/runs/start
// (api_trials.cpp).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& run_routes();

} // namespace det::api
