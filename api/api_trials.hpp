#pragma once

// The trial side (api_trials.cpp): what a running trial's harness reports
// with its allocation token, and the task-side routes it needs. The trial
// handlers are rows of api/trial_routes.cpp; each answers 400 for a bad id
// or body, 404 for a trial that does not exist, and 401/403 for a token
// that is not its live allocation's (route_util.hpp's authorized()).

#include "api/route_util.hpp"
#include "http/router.hpp"

namespace det::api {

/// POST /api/v1/trials/{trial_id}/metrics: a metric report of `group`. A
/// user's session reports for an unmanaged trial, and for a managed one
/// that is not running.
void report_metrics(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
/// POST /api/v1/trials/{trial_id}/progress: kept in memory (trial_progress).
void report_progress(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
/// POST /api/v1/trials/{trial_id}/runner/metadata and .../early_exit:
/// answered {} once authorized (the body logged, nothing recorded).
void report_runner_metadata(const ctx_ptr& ctx, const http::http_request& req,
                            const http::responder& res);
void report_early_exit(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);

/// GET /api/v1/tasks/{task_id}/context_directory (a row of
/// api/task_routes.cpp): `{b64Tgz}`, a trial's model directory for its
/// task id (the trial's allocation token), a task's context for its UUID
/// (its own token, its owner, admins; 404 to anyone else); 400 naming
/// task_id for neither.
void context_directory(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);

/// POST /api/v1/runs/start (a row of api/run_routes.cpp): the harness
/// starts run `runId` (400 naming it unless a positive id) with its
/// trial's allocation token; answers {}.
void run_start(const ctx_ptr& ctx, const http::http_request& req,
               const http::responder& res);

/// POST /api/v1/task/logs: lines a trial ships itself, with its
/// allocation token; the legacy POST /task-logs, the same as a bare list
/// (the SDK's unmanaged trials, with the user's session). Rows of
/// api/log_routes.cpp.
void ship_task_logs(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void ship_bare_task_logs(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);

} // namespace det::api
