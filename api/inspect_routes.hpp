#pragma once

// det-inspect's routes on the master, and GET /metrics:
//
//   GET /api/v1/inspect/{kind}   pools, agents, instances, experiments,
//                                trials, checkpoints (inspect/views.hpp),
//                                from the live state
//   GET /api/v1/inspect/events?from=&to=&stream=&type=&limit=
//   GET /api/v1/inspect/state?at=N   the state after event N, rebuilt
//                                through state/ (snapshot form); without
//                                `at`, the live state
//   GET /metrics                 Prometheus text: the cluster gauges
//                                (inspect/metrics_view.hpp) and the global
//                                metrics registry
//
// Live views run inside the master actor (state_view). Log queries run on
// one reader thread with its own read-only connection to ctx->db_url, so
// no I/O thread or actor waits on PostgreSQL; at most 32 queries queue,
// beyond that the answer is 503.
//
// The four are the inspect family's table (api/route_table.hpp) in
// api/inspect_routes.cpp: the inspect rows are admins' (the event log and
// the state are the whole cluster), /metrics any signed-in caller's. The
// log queries run on ctx->inspect_reader (503 without one).

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards; registers the
/// master's metric families first (idempotent), so /metrics shows them
/// before their first update.
const route_family& inspect_routes();

} // namespace det::api
