#pragma once

// Experiment routes beside the basic ones (api/experiment_handlers.hpp),
// each a route_fn of the experiment family's table
// (api/experiment_routes.cpp), a trial's log retention (a row of
// api/trial_routes.cpp) and the cluster-wide log cleanup (a row of
// api/log_routes.cpp). Each answers
// through the responder: a bad id, query or body at once (400 naming it),
// the rest from the bridge.

#include "api/route_util.hpp"
#include "http/router.hpp"

namespace det::api {

/// GET /experiments/{id}/preview_gc (legacy, outside /api/v1): what `det
/// experiment set gc-policy` would delete, in upstream's legacy shape:
/// {"checkpoints": [{TrialID, StepsCompleted, State, UUID, ReportTime,
/// Resources, ValidationMetrics, step}], "metric_name"}.
void preview_gc(const ctx_ptr& ctx, const http::http_request& req,
                const http::responder& res);

/// DELETE /api/v1/experiments/{id}/tensorboard-files (`det experiment
/// delete-tb-files`): the experiment's folder of TensorBoard files in its
/// checkpoint storage, as the harness lays it out, through
/// api_context::delete_tensorboard_files (null: 503). A trial's token: 403.
void delete_tensorboard_files(const ctx_ptr& ctx, const http::http_request& req,
                              const http::responder& res);

/// PUT /api/v1/experiments/{id}/retain_logs (`det experiment set
/// log-retention`: log_retention_set, core/log_retention.hpp). A trial's
/// token: 403.
void retain_experiment_logs(const ctx_ptr& ctx, const http::http_request& req,
                            const http::responder& res);

/// POST /api/v1/preview-hp-search (`det preview-search`): the searcher's
/// plan for the body's config, run on simulated trials off the I/O thread.
void preview_hp_search(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);

/// POST /api/v1/experiments/continue (`det experiment continue`). A
/// trial's token: 403.
void continue_experiment(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);

/// PUT /api/v1/trials/{trial_id}/retain_logs (`det trial set
/// log-retention`, a row of api/trial_routes.cpp). A trial's token: 403.
void retain_trial_logs(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);

/// POST /api/v1/cleanup_logs (`det task cleanup-logs`, an admin row of
/// api/log_routes.cpp): drops now the logs of every ended trial past its
/// retention; answers {removedCount}.
void cleanup_logs(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res);

} // namespace det::api
