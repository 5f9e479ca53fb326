#pragma once

// The experiment family's routes: every path under /api/v1/experiments,
// the legacy /experiments/{id}/preview_gc and /api/v1/preview-hp-search,
// as one table (api/route_table.hpp) in api/experiment_routes.cpp, as
// upstream keeps them in api_experiment.go. The handlers live beside what
// they share (experiment_handlers.hpp, api_experiments.hpp,
// api_cluster.hpp, api_unmanaged.hpp, api_records.hpp).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& experiment_routes();

} // namespace det::api
