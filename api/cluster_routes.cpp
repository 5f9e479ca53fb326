// GET /api/v1/master and GET /info (who this master is, public: the CLI
// asks before signing in) and the cluster family's table at the end.

#include "api/cluster_routes.hpp"

#include "api/account_records.hpp"
#include "api/api_cluster.hpp"
#include "api/route_util.hpp"

namespace det::api {

using json = nlohmann::json;

namespace {

void get_master(const route_ctx& ctx, const http::http_request& req,
                const http::responder& res) {
  answer_view(
      ctx, req, res,
      [ctx](const state::cluster_state& s, int64_t) {
        json j{{"version", ctx->version},
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
               {"hasCustomLogo", false}};
        if (auto m = active_cluster_message(*ctx, s); !m.is_null())
          j["clusterMessage"] = std::move(m);
        return j;
      },
      "");
}

/// Upstream's legacy info: cluster id and version, no session needed.
void get_info(const route_ctx& ctx, const http::http_request&,
              const http::responder& res) {
  res.send_json(json{
      {"version", ctx->version},
      {"master_id", ctx->master_id},
      {"cluster_id", ctx->cluster_id},
      {"cluster_name", ctx->cluster_name},
      {"telemetry",
       {{"enabled", false}, {"otel_enabled", false}, {"otel_endpoint", ""}}},
      {"sso_providers",
       nullptr}}.dump());
}

} // namespace

const route_family& cluster_routes() {
  static const route_family family{
      "cluster_routes",
      {"/api/v1/agents", "/api/v1/master", "/info"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/agents", &get_agents, access::signed_in},
          {"GET",    "/api/v1/agents/{agent_id}", &get_agent, access::signed_in},
          {"POST",   "/api/v1/agents/{agent_id}/enable", &enable_agent, access::admin},
          {"POST",   "/api/v1/agents/{agent_id}/disable", &disable_agent, access::admin},
          {"GET",    "/api/v1/agents/{agent_id}/slots", &get_slots, access::signed_in},
          {"GET",    "/api/v1/agents/{agent_id}/slots/{slot_id}", &get_slot, access::signed_in},
          {"POST",   "/api/v1/agents/{agent_id}/slots/{slot_id}/enable", &enable_slot, access::admin},
          {"POST",   "/api/v1/agents/{agent_id}/slots/{slot_id}/disable", &disable_slot, access::admin},
          {"GET",    "/info", &get_info, access::anyone},
          {"GET",    "/api/v1/master", &get_master, access::anyone},
          {"GET",    "/api/v1/master/config", &get_master_config, access::admin},
          {"PATCH",  "/api/v1/master/config", &patch_master_config, access::admin},
          {"GET",    "/api/v1/master/logs", &master_logs, access::signed_in},
          // Admins only, refused in the handlers' own words.
          {"GET",    "/api/v1/master/cluster_message", &get_cluster_message, access::signed_in},
          {"PUT",    "/api/v1/master/cluster_message", &set_cluster_message, access::signed_in},
          {"DELETE", "/api/v1/master/cluster_message", &delete_cluster_message, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
