#pragma once

// What every task route asks before it acts (api_tasks.cpp,
// api_generic_tasks.cpp): a task id from the path, whether the caller may
// change the task, and a launch's context directory checked and stored
// before the launch is recorded.

#include "api/route_util.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace det::api {

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
