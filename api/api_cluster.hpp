#pragma once

// The user-facing read routes the det CLI needs beyond experiments:
// master config (admin only, secrets redacted), agents, slots (through
// agents), tasks, trials (describe, workloads, kill, logs with follow,
// head and tail); plus the handlers of the paginated, user-filtered
// experiment list and an experiment's checkpoints (rows of
// api/experiment_routes.cpp). Each is a handler of a family's table
// (api/*_routes.cpp). Each
// answer is a view of the master's state (views_cluster.hpp), except the
// config (from api_context) and the log lines (trial_logs).

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

/// The task routes of this file, rows of api/task_routes.cpp: GET
/// /api/v1/tasks (each live allocation), GET /api/v1/tasks/{task_id}/logs
/// (a trial's by its task id, else a task's by its UUID; 404 for neither)
/// and .../logs/fields (one result line; empty lists for an unknown id).
void get_tasks(const std::shared_ptr<const api_context>& ctx,
               const http::http_request& req, const http::responder& res);
void get_task_logs(const std::shared_ptr<const api_context>& ctx,
                   const http::http_request& req, const http::responder& res);
void get_task_log_fields(const std::shared_ptr<const api_context>& ctx,
                         const http::http_request& req,
                         const http::responder& res);

/// The agent and master routes of this file, rows of
/// api/cluster_routes.cpp: GET /api/v1/agents (paged), GET .../{agent_id},
/// .../slots and .../slots/{slot_id} (400 naming slotId); POST
/// .../{agent_id}/enable, .../disable and the same of a slot (admin rows);
/// GET /api/v1/master/config (an admin row; secrets redacted).
void get_agents(const std::shared_ptr<const api_context>& ctx,
                const http::http_request& req, const http::responder& res);
void get_agent(const std::shared_ptr<const api_context>& ctx,
               const http::http_request& req, const http::responder& res);
void get_slots(const std::shared_ptr<const api_context>& ctx,
               const http::http_request& req, const http::responder& res);
void get_slot(const std::shared_ptr<const api_context>& ctx,
              const http::http_request& req, const http::responder& res);
void enable_agent(const std::shared_ptr<const api_context>& ctx,
                  const http::http_request& req, const http::responder& res);
void disable_agent(const std::shared_ptr<const api_context>& ctx,
                   const http::http_request& req, const http::responder& res);
void enable_slot(const std::shared_ptr<const api_context>& ctx,
                 const http::http_request& req, const http::responder& res);
void disable_slot(const std::shared_ptr<const api_context>& ctx,
                  const http::http_request& req, const http::responder& res);
void get_master_config(const std::shared_ptr<const api_context>& ctx,
                       const http::http_request& req,
                       const http::responder& res);

/// GET /api/v1/master/logs (any signed-in user; `follow` streams) and
/// PATCH /api/v1/master/config (an admin row: log.level), rows of
/// api/cluster_routes.cpp (api_master_logs.cpp).
void master_logs(const std::shared_ptr<const api_context>& ctx,
                 const http::http_request& req, const http::responder& res);
void patch_master_config(const std::shared_ptr<const api_context>& ctx,
                         const http::http_request& req,
                         const http::responder& res);

} // namespace det::api
