// The model registry (`det model ...` and the SDK's Model and ModelVersion):
// models named uniquely, each with numbered versions that point at
// checkpoints the master holds. Its routes' table is at the end.

#include "api/model_routes.hpp"

#include "api/api_records.hpp"
#include "api/records_views.hpp"
#include "http/grpc_error.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

render_fn model_view(std::string name) {
  return [name](const state::cluster_state& s, int64_t) {
    return model_response(s, name);
  };
}

render_fn version_view(std::string name, int64_t version) {
  return [name, version](const state::cluster_state& s, int64_t) {
    return model_version_response(s, name, version);
  };
}

/// The model named by the path, as the command's "model" argument.
json model_args(const http::http_request& req, json body = json::object()) {
  body["model"] = req.param("name");
  return body;
}

void get_models(const route_ctx& ctx, const http::http_request& req,
                const responder& res) {
  auto p = page_of(req, res);
  if (!p)
    return;
  model_filter f;
  f.name = req.query.get("name");
  if (auto id = req.query.get("id")) {
    f.id = positive_id(*id);
    if (!f.id)
      return res.send_error(grpc_code::invalid_argument,
                            "id: expected a positive integer");
  }
  for (const auto& w : req.query.get_all("workspaceIds")) {
    auto id = positive_id(w);
    if (!id)
      return res.send_error(grpc_code::invalid_argument,
                            "workspaceIds: expected positive integers");
    f.workspace_ids.push_back(*id);
  }
  f.workspace_names = req.query.get_all("workspaceNames");
  f.labels = req.query.get_all("labels");
  f.users = req.query.get_all("users");
  f.sort_by = req.query.get("sortBy").value_or("");
  if (!bool_query(req, res, "archived", f.archived)
      || !descending_query(req, res, f.descending))
    return;
  answer_view(
      ctx, req, res,
      [f, p = *p](const state::cluster_state& s, int64_t) {
        return models_response(s, f, p);
      },
      "");
}

std::optional<int64_t> version_param(const http::http_request& req,
                                     const responder& res) {
  return id_param(req, res, "version");
}

void archive_model_as(const route_ctx& ctx, const http::http_request& req,
                      const responder& res, bool archived) {
  record_write(ctx, req, res,
               parse_model_archive(model_args(req, {{"archived", archived}})),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

void archive_model(const route_ctx& ctx, const http::http_request& req,
                   const responder& res) {
  archive_model_as(ctx, req, res, true);
}

void unarchive_model(const route_ctx& ctx, const http::http_request& req,
                     const responder& res) {
  archive_model_as(ctx, req, res, false);
}

void get_model_labels(const route_ctx& ctx, const http::http_request& req,
                      const responder& res) {
  answer_view(
      ctx, req, res,
      [](const state::cluster_state& s, int64_t) {
        return model_labels_response(s);
      },
      "");
}

void create_model(const route_ctx& ctx, const http::http_request& req,
                  const responder& res) {
  if (auto body = json_body(req, res))
    record_write_then_view(
        ctx, req, res, parse_model_create(*body), [](const json& reply) {
          return model_view(std::to_string(reply.value("id", 0)));
        });
}

void get_model(const route_ctx& ctx, const http::http_request& req,
               const responder& res) {
  auto name = req.param("name");
  answer_view(ctx, req, res, model_view(name),
              "model '" + name + "' not found");
}

void edit_model(const route_ctx& ctx, const http::http_request& req,
                const responder& res) {
  if (auto body = json_body(req, res))
    record_write_then_view(
        ctx, req, res, parse_model_edit(model_args(req, *body)),
        [](const json& reply) {
          return model_view(std::to_string(reply.value("id", 0)));
        });
}

void delete_model(const route_ctx& ctx, const http::http_request& req,
                  const responder& res) {
  record_write(ctx, req, res, parse_model_delete(model_args(req)),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

void get_model_versions(const route_ctx& ctx, const http::http_request& req,
                        const responder& res) {
  auto p = page_of(req, res);
  bool desc = false;
  if (!p || !descending_query(req, res, desc))
    return;
  auto name = req.param("name");
  answer_view(
      ctx, req, res,
      [name, desc, p = *p](const state::cluster_state& s, int64_t) {
        return model_versions_response(s, name, desc, p);
      },
      "model '" + name + "' not found");
}

void register_model_version(const route_ctx& ctx, const http::http_request& req,
                            const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  body->erase("modelName");
  record_write_then_view(
      ctx, req, res, parse_version_register(model_args(req, *body)),
      [](const json& reply) {
        return version_view(std::to_string(reply.value("id", 0)),
                            reply.value("version", 0));
      });
}

void get_model_version(const route_ctx& ctx, const http::http_request& req,
                       const responder& res) {
  auto v = version_param(req, res);
  if (!v)
    return;
  auto name = req.param("name");
  answer_view(ctx, req, res, version_view(name, *v),
              "version " + std::to_string(*v) + " of model '" + name
                  + "' not found");
}

void edit_model_version(const route_ctx& ctx, const http::http_request& req,
                        const responder& res) {
  auto v = version_param(req, res);
  auto body = v ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  body->erase("checkpoint");
  (*body)["version"] = *v;
  record_write_then_view(
      ctx, req, res, parse_version_edit(model_args(req, *body)),
      [](const json& reply) {
        return version_view(std::to_string(reply.value("id", 0)),
                            reply.value("version", 0));
      });
}

void delete_model_version(const route_ctx& ctx, const http::http_request& req,
                          const responder& res) {
  auto v = version_param(req, res);
  if (!v)
    return;
  record_write(ctx, req, res,
               parse_version_delete(model_args(req, {{"version", *v}})),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

} // namespace

const route_family& model_routes() {
  static const route_family family{
      "model_routes",
      {"/api/v1/models", "/api/v1/model/labels"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/models", &get_models, access::signed_in},
          {"POST",   "/api/v1/models", &create_model, access::signed_in},
          {"GET",    "/api/v1/model/labels", &get_model_labels, access::signed_in},
          {"GET",    "/api/v1/models/{name}", &get_model, access::signed_in},
          {"PATCH",  "/api/v1/models/{name}", &edit_model, access::signed_in},
          {"DELETE", "/api/v1/models/{name}", &delete_model, access::signed_in},
          {"POST",   "/api/v1/models/{name}/archive", &archive_model, access::signed_in},
          {"POST",   "/api/v1/models/{name}/unarchive", &unarchive_model, access::signed_in},
          {"GET",    "/api/v1/models/{name}/versions", &get_model_versions, access::signed_in},
          {"POST",   "/api/v1/models/{name}/versions", &register_model_version, access::signed_in},
          {"GET",    "/api/v1/models/{name}/versions/{version}", &get_model_version, access::signed_in},
          {"PATCH",  "/api/v1/models/{name}/versions/{version}", &edit_model_version, access::signed_in},
          {"DELETE", "/api/v1/models/{name}/versions/{version}", &delete_model_version, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
