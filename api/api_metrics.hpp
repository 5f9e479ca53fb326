#pragma once

// A trial's whole metric history (read/metrics_history.hpp), as the SDK and
// the WebUI ask for it:
//   GET /api/v1/trials/metrics/trial_metrics?trialIds=&group=[&afterId=]
//   GET /api/v1/trials/metrics/training_metrics?trialIds=
//   GET /api/v1/trials/metrics/validation_metrics?trialIds=
//     every report, newline-delimited {"result":{"metrics":[...]}} lines;
//     afterId (ours): only reports with a larger id (ids are log
//     positions), for a client that follows a curve;
//   GET /api/v1/trials/time-series?trialIds=&maxDatapoints=&group=
//       &metricNames=&startBatches=&endBatches=
//     each trial with its series sampled to at most maxDatapoints points
//     (the first and the last kept): learning curves.
//   GET /api/v1/trials/{trial_id}/timeline
//     {"events": [{position, type, recordedAt, payload}]}: the trial's
//     events but its metric reports, oldest first, the last 10,000,
//     secrets redacted;
//   GET /api/v1/trials/{trial_id}/workloads: every report and checkpoint.
// The trials are looked up on the read model (404 for one that does not
// exist), their reports on the log reader's thread. A trial's allocation
// token is refused (403): it could name other trials.

#include "api/route_util.hpp"

#include <memory>

namespace det::api {

/// The handlers, rows of the trial family's table
/// (api/trial_routes.cpp); ctx->metric_reader reads the reports.
void trial_metrics_stream(const ctx_ptr& ctx, const http::http_request& req,
                          const http::responder& res);
void training_metrics_stream(const ctx_ptr& ctx, const http::http_request& req,
                             const http::responder& res);
void validation_metrics_stream(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const http::responder& res);
void trial_workloads(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void trial_timeline(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void trial_time_series(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);

} // namespace det::api
