#include "api/master_api.hpp"

#include "api/account_records.hpp"

#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/api_checkpoints.hpp"
#include "api/api_cluster.hpp"
#include "api/api_experiments.hpp"
#include "api/api_inspect.hpp"
#include "api/api_metrics.hpp"
#include "api/api_project_experiments.hpp"
#include "api/api_records.hpp"
#include "api/api_runs.hpp"
#include "api/api_tasks.hpp"
#include "api/api_trials.hpp"
#include "api/api_unmanaged.hpp"
#include "api/cluster_routes.hpp"
#include "api/durable_feed.hpp"
#include "api/experiment_routes.hpp"
#include "api/model_routes.hpp"
#include "api/pool_views.hpp"
#include "api/project_routes.hpp"
#include "api/queue_routes.hpp"
#include "api/resource_routes.hpp"
#include "api/route_util.hpp"
#include "api/simulate_routes.hpp"
#include "api/task_routes.hpp"
#include "api/templates.hpp"
#include "api/trial_routes.hpp"
#include "api/views.hpp"
#include "api/workspace_routes.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "messages/metric_group.hpp"
#include "messages/model_archive.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

// -- trial side --------------------------------------------------------------

void report_checkpoint(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // Upstream's body is the v1Checkpoint itself; {"checkpoint": {...}} too.
  auto c = body->contains("checkpoint")
               ? get_field_or(*body, "checkpoint", json::object())
               : *body;
  require_object(c, "field 'checkpoint'");
  auto alloc = get_field_or(c, "allocationId", std::string{});
  auto uuid = get_field_or(c, "uuid", std::string{});
  auto meta = get_field_or(c, "metadata", json::object());
  require_object(meta, "field 'checkpoint.metadata'");
  // The files the harness lists ({path: size}) live beside the metadata.
  if (auto r = c.find("resources");
      r != c.end() && !r->is_null() && !meta.contains("resources")) {
    if (!r->is_object())
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.resources: expected an object");
    meta["resources"] = *r;
  }
  auto steps = get_field_or(meta, "steps_completed", int64_t{0});
  // An unmanaged trial has no allocation: its task id names it, and its
  // user's session reports for it.
  if (alloc.empty() && !uuid.empty() && req.principal.allocation_id.empty()) {
    auto trial =
        state::trial_of_task_id(get_field_or(c, "taskId", std::string{}));
    if (!trial)
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.taskId: required without an "
                            "allocationId, an unmanaged trial's task id");
    return record_write(ctx, req, res, "unmanaged.checkpoint",
                        {{"trialId", *trial},
                         {"uuid", uuid},
                         {"steps", steps},
                         {"metadata", meta}},
                        [ctx, res](caf::event_based_actor*, json) {
                          send_written(ctx, res, "{}");
                        });
  }
  if (alloc.empty() || uuid.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint.allocationId and checkpoint.uuid: "
                          "required");
  if (!authorized(ctx, req, res, alloc))
    return;
  post(ctx->bridge,
       [ctx, res, alloc, uuid, steps, meta](caf::event_based_actor* self) {
         self->request(ctx->master, ctx->request_timeout, ckpt_atom::value,
                       alloc, uuid, steps, meta.dump())
             .then([ctx, res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                   [res](caf::error& err) { fail(res, err); });
       });
}

} // namespace

size_t request_body_limit(std::string_view method, std::string_view path,
                          bool authorized, size_t model_bytes) {
  // A browser reaches a task with the `auth` cookie, no Authorization.
  if (path.substr(0, 7) == "/proxy/")
    return 8u << 20;
  if (!authorized)
    return 64u << 10;
  if (method == "POST" && path == "/api/v1/experiments")
    return model_bytes / 3 * 4 + (1u << 20);
  return 8u << 20;
}

const std::vector<const route_family*>& route_families() {
  static const std::vector<const route_family*> families{
      &experiment_routes(), &trial_routes(), &project_routes(), &model_routes(),
      &workspace_routes(),  &task_routes(),  &cluster_routes()};
  return families;
}

void add_master_routes(http::router& r, ctx_ptr ctx) {
  add_inspect_routes(r, ctx);
  start_idle_watch(ctx);
  add_auth_routes(r, ctx);
  add_cluster_routes(r, ctx);
  // Fixed for the life of the process: rendered once.
  auto info_text = json{
      {"version", ctx->version},
      {"master_id", ctx->master_id},
      {"cluster_id", ctx->cluster_id},
      {"cluster_name", ctx->cluster_name},
      {"telemetry",
       {{"enabled", false}, {"otel_enabled", false}, {"otel_endpoint", ""}}},
      {"sso_providers",
       nullptr}}.dump();
  r.get("/info", [info_text](http::http_request, responder res) {
    res.send_json(info_text);
  });
  r.post("/api/v1/checkpoints", [ctx](http::http_request req, responder res) {
    report_checkpoint(ctx, req, res);
  });
  add_trial_routes(r, ctx);
  add_run_routes(r, ctx);
  add_job_routes(r, ctx);
  add_resource_routes(r, ctx);
  add_simulate_routes(r, ctx);
  add_checkpoint_routes(r, ctx);
  add_template_routes(r, ctx);
  add_webhook_routes(r, ctx);
  add_config_policy_routes(r, ctx);
  add_cleanup_logs_route(r, ctx);
  for (const auto* family : route_families())
    add_routes(r, ctx, family->rows);
}

} // namespace det::api
