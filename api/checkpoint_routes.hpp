#pragma once

// The checkpoint family's routes: every path under /api/v1/checkpoints and
// the download under /checkpoints, as one table (api/route_table.hpp) in
// api/checkpoint_routes.cpp, each handler beside it.
//
// A trial reports a checkpoint with its allocation token (POST
// /api/v1/checkpoints). Users delete them (DELETE /api/v1/checkpoints,
// `det checkpoint delete UUIDS`, body {"checkpointUuids": [...]}): the
// master marks them deleting (checkpoints_deletion_requested, decided on
// its state by core/checkpoint_gc.hpp) and answers once that is durable;
// the checkpoint GC actor deletes the files or objects and records
// checkpoints_deleted. Trials' allocation tokens may not delete, remove
// files, set metadata or download.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& checkpoint_routes();

} // namespace det::api
