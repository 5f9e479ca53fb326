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

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

void add_inspect_routes(http::router& r,
                        std::shared_ptr<const api_context> ctx);

} // namespace det::api
