#pragma once

// Upstream 0.38's Runs API (a run is a trial): search, kill, pause, resume
// and move (api_runs.cpp).

#include "api/route_util.hpp"
#include "http/router.hpp"

namespace det::api {

void add_run_routes(http::router& r, ctx_ptr ctx);

} // namespace det::api
