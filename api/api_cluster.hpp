#pragma once

// The user-facing read routes the det CLI needs beyond experiments:
// master config (admin only, secrets redacted), agents, slots (through
// agents), tasks, trials (describe, workloads, kill, logs with follow,
// head and tail), checkpoints and resource pools; plus the handlers of the
// paginated, user-filtered experiment list and an experiment's checkpoints
// (rows of api/experiment_routes.cpp). Each answer is a view of the master's
// state (views_cluster.hpp), except the config (from api_context) and the
// log lines (trial_logs).

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

/// GET /api/v1/experiments: a page (offset, limit, 400 naming a bad one)
/// of the experiments the filters choose (api/experiment_query.hpp).
void list_experiments(const std::shared_ptr<const api_context>& ctx,
                      const http::http_request& req,
                      const http::responder& res);

/// GET /api/v1/experiments/{id}/checkpoints: paged, ordered and filtered
/// as a trial's.
void experiment_checkpoints(const std::shared_ptr<const api_context>& ctx,
                            const http::http_request& req,
                            const http::responder& res);

/// The trial routes of this file, rows of api/trial_routes.cpp:
/// GET /api/v1/trials/{trial_id} (with its latest reported progress),
/// POST .../kill, GET .../logs (paged, filtered, `follow` streams), GET
/// .../logs/fields (one result line) and GET .../checkpoints.
void get_trial(const std::shared_ptr<const api_context>& ctx,
               const http::http_request& req, const http::responder& res);
void kill_trial(const std::shared_ptr<const api_context>& ctx,
                const http::http_request& req, const http::responder& res);
void get_trial_logs(const std::shared_ptr<const api_context>& ctx,
                    const http::http_request& req, const http::responder& res);
void get_trial_log_fields(const std::shared_ptr<const api_context>& ctx,
                          const http::http_request& req,
                          const http::responder& res);
void get_trial_checkpoints(const std::shared_ptr<const api_context>& ctx,
                           const http::http_request& req,
                           const http::responder& res);

void add_cluster_routes(http::router& r,
                        std::shared_ptr<const api_context> ctx);

/// GET /api/v1/master/logs and PATCH /api/v1/master/config
/// (api_master_logs.cpp).
void add_master_log_routes(http::router& r,
                           std::shared_ptr<const api_context> ctx);

} // namespace det::api
