#pragma once

// Tasks' routes in upstream's shapes (api_tasks.cpp): commands
// (/api/v1/commands...), a task by id (GET /api/v1/tasks/{id}) and task
// logs. Writes go to the master as record commands "task.*"
// (core/master_core_tasks.cpp); reads come from the read model.

#include "api/route_util.hpp"

#include <string>

namespace det::api {

void add_task_routes(http::router& r, ctx_ptr ctx);

/// POST /api/v1/generic-tasks and a task's config, kill, pause and
/// unpause (api_generic_tasks.cpp); add_task_routes adds them.
void add_generic_task_routes(http::router& r, const ctx_ptr& ctx);

/// GET /api/v1/tasks/{task_id}/logs for a task's id (a UUID): its lines,
/// followed until it has terminated with `follow=true`. Answers 404 for a
/// task the state does not know.
void task_logs_route(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res, const std::string& task_id);

} // namespace det::api
