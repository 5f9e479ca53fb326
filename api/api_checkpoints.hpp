#pragma once

// Checkpoint deletion for users: DELETE /api/v1/checkpoints (`det
// checkpoint delete UUIDS`), body {"checkpointUuids": [...]}. The master
// marks them deleting (checkpoints_deletion_requested, decided on its
// state by core/checkpoint_gc.hpp) and answers once that is durable; the
// checkpoint GC actor deletes the files or objects and records
// checkpoints_deleted. Trials' allocation tokens may not delete.

#include "api/route_util.hpp"
#include "http/router.hpp"

namespace det::api {

void add_checkpoint_routes(http::router& r, ctx_ptr ctx);

} // namespace det::api
