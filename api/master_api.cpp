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
#include "api/durable_feed.hpp"
#include "api/experiment_routes.hpp"
#include "api/model_routes.hpp"
#include "api/pool_views.hpp"
#include "api/project_routes.hpp"
#include "api/queue_routes.hpp"
#include "api/resource_routes.hpp"
#include "api/route_util.hpp"
#include "api/simulate_routes.hpp"
#include "api/templates.hpp"
#include "api/trial_routes.hpp"
#include "api/views.hpp"
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

/// One look at the state; answers when preempting, when the allocation is
/// gone or at the deadline, otherwise looks again after preemption_poll.
void poll_preemption(const ctx_ptr& ctx, caf::event_based_actor* self,
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

void preemption_signal(const ctx_ptr& ctx, const http::http_request& req,
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
      &experiment_routes(), &trial_routes(), &project_routes(),
      &model_routes()};
  return families;
}

void add_master_routes(http::router& r, ctx_ptr ctx) {
  add_inspect_routes(r, ctx);
  add_task_routes(r, ctx);
  add_auth_routes(r, ctx);
  add_cluster_routes(r, ctx);
  // Both answers are fixed for the life of the process: rendered once.
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
  // Fixed for the life of the process but for the cluster message.
  auto master_json =
      std::make_shared<const json>(json{{"version", ctx->version},
                                        {"masterId", ctx->master_id},
                                        {"clusterId", ctx->cluster_id},
                                        {"clusterName", ctx->cluster_name},
                                        {"telemetryEnabled", false},
                                        {"ssoProviders", json::array()},
                                        {"externalLoginUri", ""},
                                        {"externalLogoutUri", ""},
                                        {"branding", "determined"},
                                        {"rbacEnabled", false},
                                        {"strictJobQueueControl", false},
                                        {"product", "PRODUCT_UNSPECIFIED"},
                                        {"userManagementEnabled", true},
                                        {"featureSwitches", json::array()},
                                        {"hasCustomLogo", false}});
  r.get("/api/v1/master",
        [ctx, master_json](http::http_request req, responder res) {
          answer_view(
              ctx, req, res,
              [ctx, master_json](const state::cluster_state& s, int64_t) {
                auto j = *master_json;
                if (auto m = active_cluster_message(*ctx, s); !m.is_null())
                  j["clusterMessage"] = std::move(m);
                return j;
              },
              "");
        });
  r.post("/api/v1/checkpoints", [ctx](http::http_request req, responder res) {
    report_checkpoint(ctx, req, res);
  });
  r.get("/api/v1/allocations/{allocation_id}/signals/preemption",
        [ctx](http::http_request req, responder res) {
          preemption_signal(ctx, req, res);
        });
  r.post("/api/v1/allocations/{allocation_id}/signals/ack_preemption",
         [ctx](http::http_request req, responder res) {
           if (authorized(ctx, req, res, req.param("allocation_id")))
             res.send_json("{}");
         });
  add_trial_routes(r, ctx);
  add_run_routes(r, ctx);
  add_job_routes(r, ctx);
  add_resource_routes(r, ctx);
  add_simulate_routes(r, ctx);
  add_checkpoint_routes(r, ctx);
  add_workspace_routes(r, ctx);
  add_template_routes(r, ctx);
  add_webhook_routes(r, ctx);
  add_config_policy_routes(r, ctx);
  add_cleanup_logs_route(r, ctx);
  for (const auto* family : route_families())
    add_routes(r, ctx, family->rows);
}

} // namespace det::api
