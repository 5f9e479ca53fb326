#pragma once

// "What would it cost": POST /api/v1/resource-pools/{pool}/simulate (ours;
// upstream has no such route). Runs the jobs this cluster really ran in
// `pool` (its own event log, read as det-sim --from-log reads it:
// sim/log_trace.hpp) through det-sim under the pool's master.yaml fleet,
// with the body's changes: {"idleSeconds", "maxInstances",
// "gpusPerInstance", "pricePerHour", "bootSeconds", "policies"}, each
// optional and checked (a 400 names the field; an unknown field is
// refused). The answer is det-sim's own figures (docs/det-sim.md):
// {"pool", "bounds", "runs": [one per policy], "svg"}. Admins only: the
// log is everyone's work. The log is read and the runs simulated on one
// thread of their own (api/log_reader.hpp), one request at a time, never
// on an I/O thread or the master's; a queue of waiting requests is
// bounded (503 when full).

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

void add_simulate_routes(http::router& r,
                         std::shared_ptr<const api_context> ctx);

} // namespace det::api
