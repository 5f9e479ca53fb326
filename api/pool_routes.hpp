#pragma once

// The pool family's routes, as one table (api/route_table.hpp) in
// api/pool_routes.cpp: GET /api/v1/resource-pools (the pools: provider,
// instances, slots, launch error; a page) and the simulation below. A
// pool's workspace bindings are the workspace family's.
//
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
// bounded (503 when full; 503 too without ctx->simulate_reader).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& pool_routes();

} // namespace det::api
