#pragma once

// Tasks' routes in upstream's shapes (api_tasks.cpp): commands
// (/api/v1/commands...), a task by id (GET /api/v1/tasks/{id}) and task
// logs. Writes go to the master as record commands "task.*"
// (core/master_core_tasks.cpp); reads come from the read model.

#include "api/route_util.hpp"

#include <optional>
#include <string>

namespace det::api {

void add_task_routes(http::router& r, ctx_ptr ctx);

/// GET /api/v1/tasks/{task_id}/logs for a task's id (a UUID): its lines,
/// followed until it has terminated with `follow=true`. Answers 404 for a
/// task the state does not know.
void task_logs_route(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res, const std::string& task_id);

/// `text` when it is a task id (lower-case hex digits and dashes, at most
/// 64: messages/events_tasks.hpp), else nothing.
std::optional<std::string> task_id_text(const std::string& text);

} // namespace det::api
