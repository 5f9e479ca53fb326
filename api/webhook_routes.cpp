// Webhooks (upstream's /api/v1/webhooks, Determined 0.38): list, create,
// patch the URL, delete, test, and a trial's custom alert
// (core_context.alert()). Records are commands to the master
// (core/webhooks.hpp); deliveries happen in api/webhook_runtime.hpp.
// Creating, editing and deleting need an admin, or for a workspace's
// webhook that workspace's owner (core/webhooks.cpp decides); testing one
// needs an admin. The webhook family's table is at the end
// (api/webhook_routes.hpp).

#include "api/webhook_routes.hpp"

#include "api/api_records.hpp"
#include "api/webhook_runtime.hpp"
#include "core/webhooks.hpp"
#include "http/grpc_error.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

bool admin_only(const http::http_request& req, const responder& res) {
  if (req.principal.admin)
    return true;
  res.send_error(grpc_code::permission_denied,
                 "non admin users can't edit global webhooks");
  return false;
}

/// Admins see every webhook; others the global ones and those of the
/// workspaces they created (upstream's WebhookAvailableWorkspaces).
json webhooks_view(const state::cluster_state& s, const std::string& user,
                   bool admin) {
  json list = json::array();
  for (const auto& [id, w] : s.webhooks) {
    bool visible = admin || w.workspace_id == 0;
    if (!visible) {
      auto ws = s.workspaces.find(w.workspace_id);
      visible = ws != s.workspaces.end() && ws->second.username == user;
    }
    if (visible)
      list.push_back(webhook_json(w));
  }
  return {{"webhooks", std::move(list)}};
}

render_fn webhook_view(int64_t id) {
  return [id](const state::cluster_state& s, int64_t) -> json {
    auto i = s.webhooks.find(id);
    if (i == s.webhooks.end())
      return nullptr;
    return {{"webhook", webhook_json(i->second)}};
  };
}

void post_webhook(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  if (body->contains("id"))
    body->erase("id");
  // Who asks is the session's, never the body's.
  auto c = parse_webhook_create(*body, req.principal.admin);
  record_write_then_view(ctx, req, res, std::move(c), [](const json& reply) {
    return webhook_view(reply.value("id", 0));
  });
}

void test_webhook(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  if (!admin_only(req, res))
    return;
  auto id = id_param(req, res);
  if (!id)
    return;
  if (!ctx->webhooks)
    return res.send_error(grpc_code::unavailable, "webhooks are not running");
  auto done = [res, id = *id](net::webhook_outcome o) {
    if (o.reason == "not found")
      return res.send_error(grpc_code::not_found,
                            "webhook " + std::to_string(id) + " not found");
    if (!o.delivered)
      return res.send_error(grpc_code::invalid_argument,
                            "error sending webhook request for webhook "
                                + std::to_string(id) + ": " + o.reason);
    res.send_json(R"({"completed":true})");
  };
  if (!ctx->webhooks->test_async(*id, ctx->wall_clock_us(), done))
    res.send_error(grpc_code::unavailable, "too many webhook tests waiting");
}

void list_webhooks(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res) {
  answer_view(
      ctx, req, res,
      [user = req.principal.username,
       admin = req.principal.admin](const state::cluster_state& s, int64_t) {
        return webhooks_view(s, user, admin);
      },
      "");
}

void delete_webhook(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  auto c = parse_webhook_delete({{"id", *id}});
  if (c)
    c->as_admin = req.principal.admin;
  record_write(ctx, req, res, std::move(c),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

void patch_webhook(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res) {
  auto id = id_param(req, res);
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  auto c =
      parse_webhook_patch({{"id", *id}, {"url", body->value("url", json{})}});
  if (c)
    c->as_admin = req.principal.admin;
  record_write(ctx, req, res, std::move(c),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

/// core_context.alert(): the experiment's owner (a trial's token acts as
/// the owner) or an admin; core checks the experiment and trial.
void custom_alert(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto c = parse_webhook_alert(
      {{"experimentId", body->value("experimentId", json{})},
       {"trialId", body->value("trialId", json{})},
       {"data", body->value("data", json::object())}});
  if (c)
    c->as_admin = req.principal.admin;
  record_write(ctx, req, res, std::move(c),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

} // namespace

const route_family& webhook_routes() {
  static const route_family family{
      "webhook_routes",
      {"/api/v1/webhooks"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/webhooks", &list_webhooks, access::signed_in},
          // Admins, or a workspace's owner: core decides, after the body.
          {"POST",   "/api/v1/webhooks", &post_webhook, access::signed_in},
          {"DELETE", "/api/v1/webhooks/{id}", &delete_webhook, access::signed_in},
          {"PATCH",  "/api/v1/webhooks/{id}", &patch_webhook, access::signed_in},
          // Admins, refused in the handler's own words.
          {"POST",   "/api/v1/webhooks/{id}/test", &test_webhook, access::signed_in},
          {"POST",   "/api/v1/webhooks/custom", &custom_alert, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
