#pragma once

// Tasks' route handlers in upstream's shapes (api_tasks.cpp,
// api_generic_tasks.cpp; their table is api/task_routes.cpp): commands,
// notebooks, shells and TensorBoards, a task by id, generic tasks and
// task logs. Writes go to the master as record commands "task.*"
// (core/master_core_tasks.cpp); reads come from the read model.

#include "api/route_util.hpp"
#include "api/task_launch.hpp"

#include <string>

namespace det::api {

/// The task routes of api_tasks.cpp and api_generic_tasks.cpp, rows of
/// api/task_routes.cpp.
///
/// One kind's (`kind`: commands, notebooks, shells, tensorboards): POST
/// launches one (the body checked by task_launch.cpp), GET lists them
/// (`users`, `workspaceId`), GET .../{id} describes one with its config,
/// POST .../{id}/kill and .../{id}/set_priority (its owner or an admin);
/// a bad id is 400 naming the kind's field (commandId, ...).
void launch_ntsc(const ctx_ptr& ctx, const http::http_request& req,
                 const http::responder& res, const ntsc_kind& kind);
void list_ntsc(const ctx_ptr& ctx, const http::http_request& req,
               const http::responder& res, const ntsc_kind& kind);
void get_ntsc(const ctx_ptr& ctx, const http::http_request& req,
              const http::responder& res, const ntsc_kind& kind);
void kill_ntsc(const ctx_ptr& ctx, const http::http_request& req,
               const http::responder& res, const ntsc_kind& kind);
void set_ntsc_priority(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res, const ntsc_kind& kind);

/// PUT /api/v1/notebooks/{notebook_id}/report_idle and POST
/// /api/v1/allocations/{allocation_id}/ready (a task's own allocation
/// token, or an admin).
void report_idle(const ctx_ptr& ctx, const http::http_request& req,
                 const http::responder& res);
void report_ready(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res);

/// GET /api/v1/tasks/count (the interactive tasks not yet terminated, by
/// kind) and GET /api/v1/tasks/{task_id} (a trial's task by its task id,
/// else a task by UUID).
void get_task_count(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void get_task(const ctx_ptr& ctx, const http::http_request& req,
              const http::responder& res);

/// api_generic_tasks.cpp: POST /api/v1/generic-tasks, GET
/// /api/v1/tasks/{task_id}/config, POST .../kill, .../pause, .../unpause
/// (the task's owner or an admin).
void create_generic_task(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void get_task_config(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void kill_task(const ctx_ptr& ctx, const http::http_request& req,
               const http::responder& res);
void pause_task(const ctx_ptr& ctx, const http::http_request& req,
                const http::responder& res);
void unpause_task(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res);

/// Starts the idle watch on the bridge: every idle_check_interval it
/// kills the notebooks idle past their timeout (api/idle_watch.hpp).
void start_idle_watch(const ctx_ptr& ctx);

/// GET /api/v1/tasks/{task_id}/logs for a task's id (a UUID): its lines,
/// followed until it has terminated with `follow=true`. Answers 404 for a
/// task the state does not know.
void task_logs_route(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res, const std::string& task_id);

} // namespace det::api
