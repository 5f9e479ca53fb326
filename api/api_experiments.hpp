#pragma once

// Experiment routes beside the basic ones of master_api.cpp:
// GET /experiments/{id}/preview_gc (legacy, outside /api/v1: what `det
// experiment set gc-policy` would delete, in upstream's legacy shape:
// {"checkpoints":
// [{TrialID, StepsCompleted, State, UUID, ReportTime, Resources,
// ValidationMetrics, step}], "metric_name"}) and DELETE
// /api/v1/experiments/{id}/tensorboard-files (`det experiment
// delete-tb-files`: the experiment's folder of TensorBoard files in its
// checkpoint storage, as the harness lays it out, through
// api_context::delete_tensorboard_files), and PUT
// /api/v1/{experiments,trials}/{id}/retain_logs (`det experiment|trial set
// log-retention`: log_retention_set, core/log_retention.hpp).

#include "api/route_util.hpp"
#include "http/router.hpp"

namespace det::api {

void add_experiment_more_routes(http::router& r, ctx_ptr ctx);

} // namespace det::api
