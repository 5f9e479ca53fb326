#pragma once

// The trial family's routes: every path under /api/v1/trials, as one
// table (api/route_table.hpp) in api/trial_routes.cpp. The user's routes
// (describe, kill, logs, checkpoints, metric histories, unmanaged trials,
// log retention) and the harness's reports (metrics, progress, runner
// state, early exit) side by side; the handlers live beside what they
// share (api_cluster.hpp, api_metrics.hpp, api_unmanaged.hpp,
// api_trials.hpp, api_experiments.hpp).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& trial_routes();

} // namespace det::api
