// A task's allocation signals (a trial's harness long-polls whether to
// checkpoint and stop, then acknowledges it) and the task family's table
// at the end.

#include "api/task_routes.hpp"

#include "api/api_bridge.hpp"
#include "api/api_cluster.hpp"
#include "api/api_tasks.hpp"
#include "api/api_trials.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>
#include <chrono>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

/// One look at the state; answers when preempting, when the allocation is
/// gone or at the deadline, otherwise looks again after preemption_poll.
void poll_preemption(const route_ctx& ctx, caf::event_based_actor* self,
                     responder res, std::string alloc,
                     std::chrono::steady_clock::time_point deadline) {
  if (res.client_gone())
    return res.send_json(R"({"preempt":false})");
  ask_view(
      ctx, self,
      [alloc](const state::cluster_state& s, int64_t) {
        return preemption_status(s, alloc);
      },
      res,
      [ctx, self, res, alloc, deadline](json j) {
        bool preempt = j.value("preempt", false);
        if (preempt || !j.value("live", false)
            || std::chrono::steady_clock::now() >= deadline)
          return res.send_json(json{{"preempt", preempt}}.dump());
        self->delayed_send(
            self, ctx->preemption_poll,
            bridge_job{[ctx, res, alloc, deadline](caf::event_based_actor* s) {
              poll_preemption(ctx, s, res, alloc, deadline);
            }});
      });
}

void preemption_signal(const route_ctx& ctx, const http::http_request& req,
                       const responder& res) {
  auto alloc = req.param("allocation_id");
  if (!authorized(ctx, req, res, alloc))
    return;
  int64_t secs = 0;
  if (auto t = req.query.get("timeout_seconds"))
    try {
      secs = std::clamp<int64_t>(std::stoll(*t), 0, 600);
    } catch (const std::exception&) {
      return res.send_error(grpc_code::invalid_argument,
                            "timeout_seconds: not a number");
    }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{secs};
  post(ctx->bridge, [ctx, res, alloc, deadline](caf::event_based_actor* self) {
    poll_preemption(ctx, self, res, alloc, deadline);
  });
}

void ack_preemption(const route_ctx& ctx, const http::http_request& req,
                    const responder& res) {
  if (authorized(ctx, req, res, req.param("allocation_id")))
    res.send_json("{}");
}

/// `fn` for one kind of task: a row's handler has no room for the kind.
template <void (*fn)(const route_ctx&, const http::http_request&,
                     const responder&, const ntsc_kind&),
          const ntsc_kind& kind>
void of_kind(const route_ctx& ctx, const http::http_request& req,
             const responder& res) {
  fn(ctx, req, res, kind);
}

} // namespace

const route_family& task_routes() {
  static const route_family family{
      "task_routes",
      {"/api/v1/tasks", "/api/v1/commands", "/api/v1/notebooks",
       "/api/v1/shells", "/api/v1/tensorboards", "/api/v1/generic-tasks",
       "/api/v1/allocations"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/tasks", &get_tasks, access::signed_in},
          {"GET",    "/api/v1/tasks/count", &get_task_count, access::signed_in},
          {"GET",    "/api/v1/tasks/{task_id}", &get_task, access::signed_in},
          {"GET",    "/api/v1/tasks/{task_id}/config", &get_task_config, access::signed_in},
          {"GET",    "/api/v1/tasks/{task_id}/context_directory", &context_directory, access::signed_in},
          {"GET",    "/api/v1/tasks/{task_id}/logs", &get_task_logs, access::signed_in},
          {"GET",    "/api/v1/tasks/{task_id}/logs/fields", &get_task_log_fields, access::signed_in},
          {"POST",   "/api/v1/tasks/{task_id}/kill", &kill_task, access::signed_in},
          {"POST",   "/api/v1/tasks/{task_id}/pause", &pause_task, access::signed_in},
          {"POST",   "/api/v1/tasks/{task_id}/unpause", &unpause_task, access::signed_in},
          {"POST",   "/api/v1/generic-tasks", &create_generic_task, access::signed_in},
          {"POST",   "/api/v1/commands", &of_kind<&launch_ntsc, command_kind>, access::signed_in},
          {"GET",    "/api/v1/commands", &of_kind<&list_ntsc, command_kind>, access::signed_in},
          {"GET",    "/api/v1/commands/{command_id}", &of_kind<&get_ntsc, command_kind>, access::signed_in},
          {"POST",   "/api/v1/commands/{command_id}/kill", &of_kind<&kill_ntsc, command_kind>, access::signed_in},
          {"POST",   "/api/v1/commands/{command_id}/set_priority", &of_kind<&set_ntsc_priority, command_kind>, access::signed_in},
          {"POST",   "/api/v1/notebooks", &of_kind<&launch_ntsc, notebook_kind>, access::signed_in},
          {"GET",    "/api/v1/notebooks", &of_kind<&list_ntsc, notebook_kind>, access::signed_in},
          {"GET",    "/api/v1/notebooks/{notebook_id}", &of_kind<&get_ntsc, notebook_kind>, access::signed_in},
          {"POST",   "/api/v1/notebooks/{notebook_id}/kill", &of_kind<&kill_ntsc, notebook_kind>, access::signed_in},
          {"POST",   "/api/v1/notebooks/{notebook_id}/set_priority", &of_kind<&set_ntsc_priority, notebook_kind>, access::signed_in},
          {"PUT",    "/api/v1/notebooks/{notebook_id}/report_idle", &report_idle, access::signed_in},
          {"POST",   "/api/v1/shells", &of_kind<&launch_ntsc, shell_kind>, access::signed_in},
          {"GET",    "/api/v1/shells", &of_kind<&list_ntsc, shell_kind>, access::signed_in},
          {"GET",    "/api/v1/shells/{shell_id}", &of_kind<&get_ntsc, shell_kind>, access::signed_in},
          {"POST",   "/api/v1/shells/{shell_id}/kill", &of_kind<&kill_ntsc, shell_kind>, access::signed_in},
          {"POST",   "/api/v1/shells/{shell_id}/set_priority", &of_kind<&set_ntsc_priority, shell_kind>, access::signed_in},
          {"POST",   "/api/v1/tensorboards", &of_kind<&launch_ntsc, tensorboard_kind>, access::signed_in},
          {"GET",    "/api/v1/tensorboards", &of_kind<&list_ntsc, tensorboard_kind>, access::signed_in},
          {"GET",    "/api/v1/tensorboards/{tensorboard_id}", &of_kind<&get_ntsc, tensorboard_kind>, access::signed_in},
          {"POST",   "/api/v1/tensorboards/{tensorboard_id}/kill", &of_kind<&kill_ntsc, tensorboard_kind>, access::signed_in},
          {"POST",   "/api/v1/tensorboards/{tensorboard_id}/set_priority", &of_kind<&set_ntsc_priority, tensorboard_kind>, access::signed_in},
          {"POST",   "/api/v1/allocations/{allocation_id}/ready", &report_ready, access::signed_in},
          {"GET",    "/api/v1/allocations/{allocation_id}/signals/preemption", &preemption_signal, access::signed_in},
          {"POST",   "/api/v1/allocations/{allocation_id}/signals/ack_preemption", &ack_preemption, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
