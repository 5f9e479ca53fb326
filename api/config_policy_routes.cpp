// Config policies (`det config-policies set|describe|delete`), global and
// per workspace, in upstream's shapes: PUT/GET/DELETE
// /api/v1/config-policies/global/{workloadType} and
// /api/v1/config-policies/workspaces/{workspaceId}/{workloadType}. The
// request's `configPolicies` is YAML or JSON text; it is parsed and the
// invariant config checked as an experiment config fragment here, and the
// master decides the rest (core/config_policies.hpp: who may, the
// constraints, conflicts). Reads are open to every user, as upstream's.
// with_invariant_config merges the policies into an experiment's config
// before it is parsed. The config-policy family's table is at the end
// (api/config_policy_routes.hpp).

#include "api/config_policy_routes.hpp"

#include "api/api_records.hpp"
#include "conf/experiment_config.hpp"
#include "conf/yaml_tree.hpp"
#include "core/config_policies.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

constexpr size_t max_policies_bytes = 256u << 10;

/// The path's workload type, or answers 400.
std::optional<std::string> workload_type_param(const http::http_request& req,
                                               const responder& res) {
  auto type = req.param("workloadType");
  if (type.empty()) {
    res.send_error(grpc_code::invalid_argument,
                   "workloadType: no workload type specified");
    return std::nullopt;
  }
  if (!valid_workload_type(type)) {
    res.send_error(grpc_code::invalid_argument,
                   "workloadType: invalid workload type '"
                       + util::fit_text(type, {64, false, true})
                       + "' (EXPERIMENT or NTSC)");
    return std::nullopt;
  }
  return type;
}

/// A config that passes the experiment parser, for checking an invariant
/// config merged over it.
const json& stub_experiment() {
  static const json stub = {{"entrypoint", "true"},
                            {"searcher",
                             {{"name", "single"},
                              {"metric", "loss"},
                              {"max_length", {{"batches", 1}}}}}};
  return stub;
}

/// The body's configPolicies as a document, or answers 400 naming the
/// field.
std::optional<json> policies_of(const ctx_ptr& ctx, const json& body,
                                const std::string& type, const responder& res) {
  auto bad = [&res](std::string why) {
    res.send_error(grpc_code::invalid_argument, std::move(why));
    return std::nullopt;
  };
  auto i = body.find("configPolicies");
  if (i == body.end() || i->is_null()
      || (i->is_string() && i->get<std::string>().empty()))
    return bad("configPolicies: no config policies given");
  if (!i->is_string())
    return bad("configPolicies: expected the policies as YAML or JSON text");
  const auto& text = i->get_ref<const std::string&>();
  if (auto why = util::text_problem(text, {max_policies_bytes, true, false});
      !why.empty())
    return bad("configPolicies " + why);
  auto kind = type == "NTSC" ? "ntsc" : "experiment";
  auto doc = conf::parse_tree(text);
  if (!doc)
    return bad(std::string{"configPolicies: invalid "} + kind
               + " config policy: " + render(doc.error()));
  if (!doc->is_object())
    return bad(std::string{"configPolicies: invalid "} + kind
               + " config policy: expected a mapping of invariant_config "
                 "and constraints");
  // Nesting, NUL and invalid UTF-8 in keys and values, before any walk.
  if (auto why = json_problem(*doc, "configPolicies"); !why.empty())
    return bad(why);
  auto inv = doc->find("invariant_config");
  if (type == "EXPERIMENT" && inv != doc->end() && inv->is_object()) {
    auto merged = merge_invariant(stub_experiment(), *inv);
    auto checked =
        conf::parse_experiment_tree(merged, ctx->experiment_defaults);
    if (!checked)
      return bad("invariant_config: " + render(checked.error()));
  }
  return std::move(*doc);
}

void put_policies(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, int64_t workspace) {
  auto type = workload_type_param(req, res);
  if (!type)
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  auto doc = policies_of(ctx, *body, *type, res);
  if (!doc)
    return;
  record_write(ctx, req, res,
               parse_set_config_policies({{"workspaceId", workspace},
                                          {"workloadType", *type},
                                          {"policies", std::move(*doc)}}),
               [ctx, res](caf::event_based_actor*, json reply) {
                 send_written(ctx, res, reply.dump());
               });
}

void get_policies(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, int64_t workspace) {
  auto type = workload_type_param(req, res);
  if (!type)
    return;
  answer_view(
      ctx, req, res,
      [workspace, type = *type](const state::cluster_state& s,
                                int64_t) -> json {
        auto view = config_policies_view(s, workspace, type);
        if (view.is_null())
          return nullptr;
        return {{"configPolicies", view}};
      },
      "workspace " + std::to_string(workspace) + " not found");
}

void delete_policies(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res, int64_t workspace) {
  auto type = workload_type_param(req, res);
  if (!type)
    return;
  record_write(ctx, req, res,
               parse_delete_config_policies(
                   {{"workspaceId", workspace}, {"workloadType", *type}}),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

/// The workspace an experiment config goes to (as master_core::
/// project_for resolves it), 0 when it names none that exists.
int64_t workspace_of(const state::cluster_state& s, const json& config,
                     int64_t project_id) {
  if (project_id == 0 && config.is_object()) {
    auto ws = config.value("workspace", json());
    auto pr = config.value("project", json());
    if (ws.is_string() && pr.is_string()) {
      auto w = state::workspace_named(s, ws.get<std::string>());
      auto p = w ? state::project_named(s, w->id, pr.get<std::string>())
                 : std::nullopt;
      return p ? p->workspace_id : 0;
    }
  }
  auto p = state::find_project(s, project_id == 0 ? state::default_project_id
                                                  : project_id);
  return p ? p->workspace_id : 0;
}

} // namespace

void with_invariant_config(const ctx_ptr& ctx, const responder& res, json body,
                           std::function<void(json)> then) {
  auto cfg_field = body.find("config");
  auto text = cfg_field != body.end() && cfg_field->is_string()
                  ? cfg_field->get<std::string>()
                  : std::string{};
  int64_t project_id = 0;
  if (auto p = body.find("projectId");
      p != body.end() && p->is_number_integer() && p->get<int64_t>() > 0)
    project_id = p->get<int64_t>();
  auto tree = conf::parse_tree(text);
  if (!tree || !tree->is_object())
    return then(std::move(body)); // the config's parser names the problem
  post(ctx->bridge, [ctx, res, project_id, tree = std::move(*tree),
                     body = std::move(body),
                     then = std::move(then)](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [tree, project_id](const state::cluster_state& s, int64_t) -> json {
          return {{"invariant", invariant_experiment_config(
                                    s, workspace_of(s, tree, project_id))}};
        },
        res,
        [tree, body, then](json found) mutable {
          const auto& inv = found.value("invariant", json::object());
          if (inv.is_object() && !inv.empty())
            body["config"] = merge_invariant(tree, inv).dump();
          then(std::move(body));
        });
  });
}

namespace {

void put_global_policies(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  put_policies(ctx, req, res, 0);
}

void get_global_policies(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  get_policies(ctx, req, res, 0);
}

void delete_global_policies(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  delete_policies(ctx, req, res, 0);
}

void put_workspace_policies(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  if (auto id = id_param(req, res, "workspaceId"))
    put_policies(ctx, req, res, *id);
}

void get_workspace_policies(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  if (auto id = id_param(req, res, "workspaceId"))
    get_policies(ctx, req, res, *id);
}

void delete_workspace_policies(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const responder& res) {
  if (auto id = id_param(req, res, "workspaceId"))
    delete_policies(ctx, req, res, *id);
}

} // namespace

const route_family& config_policy_routes() {
  static const route_family family{
      "config_policy_routes",
      {"/api/v1/config-policies"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // Who may change them is core's decision (admins; a workspace's
          // also its owner), after the request's own checks.
          // clang-format off
          {"PUT",    "/api/v1/config-policies/global/{workloadType}", &put_global_policies, access::signed_in},
          {"GET",    "/api/v1/config-policies/global/{workloadType}", &get_global_policies, access::signed_in},
          {"DELETE", "/api/v1/config-policies/global/{workloadType}", &delete_global_policies, access::signed_in},
          {"PUT",    "/api/v1/config-policies/workspaces/{workspaceId}/{workloadType}", &put_workspace_policies, access::signed_in},
          {"GET",    "/api/v1/config-policies/workspaces/{workspaceId}/{workloadType}", &get_workspace_policies, access::signed_in},
          {"DELETE", "/api/v1/config-policies/workspaces/{workspaceId}/{workloadType}", &delete_workspace_policies, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
