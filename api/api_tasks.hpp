#pragma once

// Tasks' routes in upstream's shapes (api_tasks.cpp): commands
// (/api/v1/commands...), a task by id (GET /api/v1/tasks/{id}) and task
// logs. Writes go to the master as record commands "task.*"
// (core/master_core_tasks.cpp); reads come from the read model.

#include "api/route_util.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
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

/// The path parameter `name` as a task id, or answers 400 naming
/// `field`; a trial's allocation token reaches no task (403).
std::optional<std::string> task_param(const http::http_request& req,
                                      const http::responder& res,
                                      const char* name, const char* field);

/// Calls `then` when the request's user owns task `id` of `type` ("" any
/// type) or is an admin; else answers 404 (no such task) or 403.
void with_owned_task(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res, const std::string& id,
                     const std::string& type, std::function<void()> then);

/// A launch's context: `body[key]` (a v1File list) moved out of the body
/// (it may be 95 MiB of base64: never copied) and checked as an
/// experiment's model definition is, errors naming `key`; null after
/// answering 400.
std::shared_ptr<nlohmann::json> take_files(const ctx_ptr& ctx,
                                           nlohmann::json& body,
                                           const char* key,
                                           const http::responder& res);

/// Stores `files` as task `id`'s context (table task_contexts), then calls
/// `then` (at once when there are none): a launch is recorded only once
/// its context is kept, so an agent that starts it always finds it. A
/// crash in between leaves a context no task names.
void with_stored_context(const ctx_ptr& ctx, const http::responder& res,
                         const std::string& id,
                         std::shared_ptr<nlohmann::json> files,
                         std::function<void()> then);

/// `text` when it is a task id (lower-case hex digits and dashes, at most
/// 64: messages/events_tasks.hpp), else nothing.
std::optional<std::string> task_id_text(const std::string& text);

} // namespace det::api
