#pragma once

// GET /api/v1/job-queues: the job queue in upstream's GetJobs shape, one
// job per experiment that has not ended (paused ones included, marked
// STATE_PAUSED in summary.state, which upstream does not have), ordered as
// the priority scheduler considers them: by pool, priority (lower number
// first), then submission. Each job says what it holds and asks for, and
// for a job that waits, why (`waitReason`: slots, instances, a failed
// launch). Query: offset, limit, resourcePool. A read of the read model.

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

void add_job_routes(http::router& r, std::shared_ptr<const api_context> ctx);

} // namespace det::api
