#pragma once

// GET /api/v1/job-queues: the job queue in upstream's GetJobs shape, one
// job per experiment that has not ended (paused ones included, marked
// STATE_PAUSED in summary.state, which upstream does not have), ordered as
// the priority scheduler considers them: by pool, priority (lower number
// first), then submission. Each job says what it holds and asks for, and
// for a job that waits, why (`waitReason`: slots, instances, a failed
// launch). Query: offset, limit, resourcePool. A read of the read model.
// GET /api/v1/job-queues-v2 answers the same, each job under "full"; POST
// /api/v1/job-queues changes jobs' priority or weight. The three are the
// queue family's table (api/route_table.hpp) in api/queue_routes.cpp.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& queue_routes();

} // namespace det::api
