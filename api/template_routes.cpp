// Config templates (`det template ...`) and their use by `det experiment
// create --template NAME`: a template the master does not hold is refused
// (404 naming it); one it holds is merged under the experiment's config.
// The template family's table is at the end (api/template_routes.hpp).

#include "api/template_routes.hpp"

#include "api/api_records.hpp"
#include "api/records_views.hpp"
#include "api/templates.hpp"
#include "conf/yaml_tree.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

json merge_template(json config, const json& tpl) {
  if (!config.is_object() || !tpl.is_object())
    return config;
  for (const auto& [key, value] : tpl.items()) {
    auto mine = config.find(key);
    if (mine == config.end() || mine->is_null())
      config[key] = value;
    else if (mine->is_object() && value.is_object())
      *mine = merge_template(std::move(*mine), value);
  }
  return config;
}

void with_template(const ctx_ptr& ctx, const responder& res,
                   const json& name_field, const char* field,
                   std::function<void(json)> then) {
  if (!name_field.is_string())
    return res.send_error(grpc_code::invalid_argument,
                          std::string{field} + ": expected a template's name");
  auto name = name_field.get<std::string>();
  if (auto why = util::text_problem(name, {255, false, false}); !why.empty())
    return res.send_error(grpc_code::invalid_argument,
                          std::string{field} + " " + why);
  post(ctx->bridge, [ctx, res, name, field = std::string{field},
                     then = std::move(then)](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [name](const state::cluster_state& s, int64_t) {
          return template_response(s, name);
        },
        res,
        [res, name, field, then](json found) {
          if (found.is_null())
            return res.send_error(grpc_code::not_found,
                                  field + ": '" + name + "' not found");
          then(found["template"].value("config", json::object()));
        });
  });
}

void apply_template(const ctx_ptr& ctx, const http::http_request& /*req*/,
                    const responder& res, json body,
                    std::function<void(json)> then) {
  auto cfg_field = body.find("config");
  auto text = cfg_field != body.end() && cfg_field->is_string()
                  ? cfg_field->get<std::string>()
                  : std::string{};
  auto tree = conf::parse_tree(text);
  if (!tree)
    return fail(res, tree.error());
  auto name = body["template"];
  with_template(ctx, res, name, "template",
                [tree = std::move(*tree), body = std::move(body),
                 then = std::move(then)](json tpl) mutable {
                  body["config"] = merge_template(tree, tpl).dump();
                  body.erase("template");
                  then(std::move(body));
                });
}

namespace {

render_fn template_view(std::string name) {
  return [name](const state::cluster_state& s, int64_t) {
    return template_response(s, name);
  };
}

void list_templates(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto p = page_of(req, res);
  if (!p)
    return;
  std::vector<int64_t> ids;
  for (const auto& w : req.query.get_all("workspaceIds")) {
    auto id = positive_id(w);
    if (!id)
      return res.send_error(grpc_code::invalid_argument,
                            "workspaceIds: expected positive integers");
    ids.push_back(*id);
  }
  answer_view(
      ctx, req, res,
      [p = *p, ids, name = req.query.get("name").value_or("")](
          const state::cluster_state& s, int64_t) {
        return templates_response(s, name, ids, p);
      },
      "");
}

void get_template(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  auto name = req.param("name");
  answer_view(ctx, req, res, template_view(name),
              "template '" + name + "' not found");
}

/// v1Template as the body: {name, config, workspaceId} (0: the default
/// workspace). The path names it; a body naming another is refused.
void create_template(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto name = req.param("name");
  if (body->contains("name") && (*body)["name"] != json(name))
    return res.send_error(grpc_code::invalid_argument,
                          "name: the body names another template than the "
                          "path");
  json args{{"name", name}, {"config", body->value("config", json())}};
  auto w = body->find("workspaceId");
  if (w != body->end() && !(w->is_number_integer() && *w == 0))
    args["workspaceId"] = *w;
  record_write_then_view(ctx, req, res, parse_template_create(args),
                         [name](const json&) { return template_view(name); });
}

/// The body is the new config itself.
void set_template(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto name = req.param("name");
  record_write_then_view(
      ctx, req, res, parse_template_set({{"name", name}, {"config", *body}}),
      [name](const json&) { return template_view(name); });
}

void delete_template(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  record_write(ctx, req, res,
               parse_template_delete({{"name", req.param("name")}}),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

} // namespace

const route_family& template_routes() {
  static const route_family family{
      "template_routes",
      {"/api/v1/templates"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/templates", &list_templates, access::signed_in},
          {"GET",    "/api/v1/templates/{name}", &get_template, access::signed_in},
          {"POST",   "/api/v1/templates/{name}", &create_template, access::signed_in},
          {"PATCH",  "/api/v1/templates/{name}", &set_template, access::signed_in},
          {"DELETE", "/api/v1/templates/{name}", &delete_template, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
