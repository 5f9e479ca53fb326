// Workspaces, projects, moving an experiment between projects, and which
// workspaces a resource pool is bound to (`det workspace ...`, `det project
// ...`, `det experiment move`, `det resource-pool bindings ...`).

#include "api/api_auth.hpp"
#include "api/api_records.hpp"
#include "api/records_views.hpp"
#include "http/grpc_error.hpp"
#include "state/records_queries.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

bool bool_query(const http::http_request& req, const responder& res,
                const char* key, std::optional<bool>& out) {
  auto v = req.query.get(key);
  if (!v)
    return true;
  if (*v != "true" && *v != "false") {
    res.send_error(grpc_code::invalid_argument,
                   std::string{key} + ": expected true or false");
    return false;
  }
  out = *v == "true";
  return true;
}

bool descending_query(const http::http_request& req, const responder& res,
                      bool& out) {
  auto o = req.query.get("orderBy").value_or("ORDER_BY_ASC");
  if (o != "ORDER_BY_ASC" && o != "ORDER_BY_DESC"
      && o != "ORDER_BY_UNSPECIFIED") {
    res.send_error(grpc_code::invalid_argument,
                   "orderBy: '" + o.substr(0, 40)
                       + "' is not ORDER_BY_ASC or ORDER_BY_DESC");
    return false;
  }
  out = o == "ORDER_BY_DESC";
  return true;
}

namespace {

/// After a create or an edit: the workspace, and under Kubernetes its
/// namespace binding when the request set one (the CLI iterates
/// namespaceBindings, so it is always there).
render_fn workspace_written(const ctx_ptr& ctx, int64_t id, bool bound,
                            const std::string& viewer) {
  return [ctx, id, bound, viewer](const state::cluster_state& s, int64_t) {
    auto j = workspace_response(s, id, viewer);
    if (!j.is_null())
      j["namespaceBindings"] =
          bound ? namespace_bindings_of(ctx, s, id) : json::object();
    return j;
  };
}

/// Create or edit: clusterNamespaceMeta checked (the namespaces looked up)
/// before the command, which gets them as `namespaces`.
template <class Parse>
void write_workspace(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res, Parse parse, json body, bool patch) {
  auto set = namespace_meta(ctx, body, res, patch);
  if (!set)
    return;
  if (!set->empty() && !require_admin(req, res))
    return;
  body.erase("clusterNamespaceMeta");
  body.erase("clusterQuotaPairs");
  bool bound = !set->empty();
  if (bound)
    body["namespaces"] = *set;
  with_checked_namespaces(ctx, res, *set, [ctx, req, res, parse, body, bound] {
    record_write_then_view(
        ctx, req, res, parse(body),
        [ctx, bound, viewer = req.principal.username](const json& reply) {
          return workspace_written(ctx, reply.value("id", 0), bound, viewer);
        });
  });
}

render_fn project_view(int64_t id) {
  return [id](const state::cluster_state& s, int64_t) {
    return project_response(s, id);
  };
}

/// The body with the path's id set under `key` (the path wins).
std::optional<json> body_with_id(const http::http_request& req,
                                 const responder& res, const char* param,
                                 const char* key) {
  auto id = id_param(req, res, param);
  if (!id)
    return std::nullopt;
  auto body = json_body(req, res);
  if (body)
    (*body)[key] = *id;
  return body;
}

/// Whether a non-admin asks to archive, unarchive or delete the default
/// workspace or project (id 1): answered 403, as upstream (an admin is
/// told why it cannot be done).
bool default_record_forbidden(const http::http_request& req,
                              const responder& res, int64_t id) {
  if (id != state::default_workspace_id || req.principal.admin)
    return false;
  res.send_error(grpc_code::permission_denied,
                 "only an admin may ask to change the default workspace or "
                 "project (Uncategorized)");
  return true;
}

/// Archives or unarchives record `id` (the path's) with the command
/// `parse` makes.
template <class Parse>
void write_archived(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, Parse parse, bool archived) {
  auto id = id_param(req, res);
  if (id && !default_record_forbidden(req, res, *id))
    record_write(ctx, req, res, parse({{"id", *id}, {"archived", archived}}),
                 [ctx, res](caf::event_based_actor*, json) {
                   send_written(ctx, res, "{}");
                 });
}

/// Deletes record `id` (the path's) with the command `parse` makes;
/// answers {"completed": true} once durable.
template <class Parse>
void write_deleted(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res, Parse parse) {
  auto id = id_param(req, res);
  if (id && !default_record_forbidden(req, res, *id))
    record_write(ctx, req, res, parse({{"id", *id}}),
                 [ctx, res](caf::event_based_actor*, json) {
                   send_written(ctx, res, R"({"completed":true})");
                 });
}

/// A project's notes changed by `args` (project_notes); answers
/// {"notes": [...]} as they are now.
void notes_write(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res, json args) {
  record_write(
      ctx, req, res, parse_project_notes(args),
      [ctx, res](caf::event_based_actor*, json reply) {
        send_written(
            ctx, res,
            json{{"notes", reply.value("notes", json::array())}}.dump());
      });
}

/// POST pin / unpin: for the caller alone.
void write_pinned(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, bool pinned) {
  if (auto id = id_param(req, res))
    record_write(ctx, req, res,
                 parse_workspace_pin({{"id", *id}, {"pinned", pinned}}),
                 [ctx, res](caf::event_based_actor*, json) {
                   send_written(ctx, res, "{}");
                 });
}

/// GET: the pools available to a workspace: those bound to it and those
/// bound to none.
json available_pools(const state::cluster_state& s, int64_t id, page p) {
  if (!state::find_workspace(s, id))
    return nullptr;
  json list = json::array();
  for (const auto& [name, pool] : s.pools) {
    auto b = s.pool_bindings.find(name);
    if (b == s.pool_bindings.end()
        || std::find(b->second.workspace_ids.begin(),
                     b->second.workspace_ids.end(), id)
               != b->second.workspace_ids.end())
      list.push_back(name);
  }
  auto out = paginate("resourcePools", std::move(list), p);
  return out;
}

/// POST, PUT or DELETE a pool's workspace bindings: `mode` "add",
/// "replace" or "remove" (pool_bind).
void write_bindings(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, const char* mode) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // The cluster's default pools, which no workspace may be bound to (from
  // the master's config, never from the body).
  json args{{"pool", req.param("pool")},
            {"mode", mode},
            {"defaultPools",
             {ctx->config->default_compute_resource_pool,
              ctx->config->default_aux_resource_pool}}};
  for (const char* key : {"workspaceIds", "workspaceNames"})
    if (body->contains(key))
      args[key] = (*body)[key];
  record_write(ctx, req, res, parse_pool_bind(args),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

} // namespace

void get_workspaces(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto p = page_of(req, res);
  if (!p)
    return;
  workspace_filter f;
  f.name_exact = req.query.get("nameCaseSensitive");
  f.name_nocase = req.query.get("name");
  f.by_name = req.query.get("sortBy").value_or("") == "SORT_BY_NAME";
  f.viewer = req.principal.username;
  if (!bool_query(req, res, "archived", f.archived)
      || !bool_query(req, res, "pinned", f.pinned)
      || !descending_query(req, res, f.descending))
    return;
  answer_view(
      ctx, req, res,
      [f, p = *p](const state::cluster_state& s, int64_t) {
        return workspaces_response(s, f, p);
      },
      "");
}

void move_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto body = body_with_id(req, res, "id", "experimentId");
  if (body)
    record_write(ctx, req, res, parse_experiment_move(*body),
                 [ctx, res](caf::event_based_actor*, json) {
                   send_written(ctx, res, "{}");
                 });
}

void get_project(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  answer_by_id(ctx, req, res, "project", &project_response);
}

void edit_project(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  if (auto body = body_with_id(req, res, "id", "id"))
    record_write_then_view(
        ctx, req, res, parse_project_edit(*body),
        [](const json& reply) { return project_view(reply.value("id", 0)); });
}

void delete_project(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  write_deleted(ctx, req, res, parse_project_delete);
}

void add_project_note(const ctx_ptr& ctx, const http::http_request& req,
                      const responder& res) {
  auto id = id_param(req, res);
  auto body = id ? json_body(req, res) : std::nullopt;
  if (body)
    notes_write(ctx, req, res, {{"id", *id}, {"add", *body}});
}

void put_project_notes(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto id = id_param(req, res);
  auto body = id ? json_body(req, res) : std::nullopt;
  if (body)
    notes_write(ctx, req, res,
                {{"id", *id}, {"notes", body->value("notes", json())}});
}

void archive_project(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  write_archived(ctx, req, res, parse_project_archive, true);
}

void unarchive_project(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  write_archived(ctx, req, res, parse_project_archive, false);
}

void move_project(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  if (auto body = body_with_id(req, res, "projectId", "projectId"))
    record_write(ctx, req, res, parse_project_move(*body),
                 [ctx, res](caf::event_based_actor*, json) {
                   send_written(ctx, res, "{}");
                 });
}

void get_workspace(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res) {
  answer_by_id(ctx, req, res, "workspace",
               [viewer = req.principal.username](const state::cluster_state& s,
                                                 int64_t id) {
                 return workspace_response(s, id, viewer);
               });
}

void create_workspace(const ctx_ptr& ctx, const http::http_request& req,
                      const responder& res) {
  if (auto body = json_body(req, res))
    write_workspace(ctx, req, res, parse_workspace_create, std::move(*body),
                    false);
}

void edit_workspace(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  if (auto body = body_with_id(req, res, "id", "id"))
    write_workspace(ctx, req, res, parse_workspace_edit, std::move(*body),
                    true);
}

void delete_workspace(const ctx_ptr& ctx, const http::http_request& req,
                      const responder& res) {
  write_deleted(ctx, req, res, parse_workspace_delete);
}

void archive_workspace(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  write_archived(ctx, req, res, parse_workspace_archive, true);
}

void unarchive_workspace(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  write_archived(ctx, req, res, parse_workspace_archive, false);
}

void pin_workspace(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res) {
  write_pinned(ctx, req, res, true);
}

void unpin_workspace(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  write_pinned(ctx, req, res, false);
}

void get_workspace_projects(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  auto id = id_param(req, res);
  auto p = id ? page_of(req, res) : std::nullopt;
  std::optional<bool> archived;
  bool descending = false;
  if (!p || !bool_query(req, res, "archived", archived)
      || !descending_query(req, res, descending))
    return;
  auto by_name = req.query.get("sortBy").value_or("") == "SORT_BY_NAME";
  answer_view(
      ctx, req, res,
      [id = *id, p = *p, archived, name = req.query.get("name"), by_name,
       descending](const state::cluster_state& s, int64_t) {
        return workspace_projects_response(s, id, name, archived, p, by_name,
                                           descending);
      },
      "workspace " + std::to_string(*id) + " not found");
}

void create_project(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  if (auto body = body_with_id(req, res, "id", "workspaceId"))
    record_write_then_view(
        ctx, req, res, parse_project_create(*body),
        [](const json& reply) { return project_view(reply.value("id", 0)); });
}

void get_available_pools(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  auto id = id_param(req, res);
  auto p = id ? page_of(req, res) : std::nullopt;
  if (p)
    answer_view(
        ctx, req, res,
        [id = *id, p = *p](const state::cluster_state& s, int64_t) {
          return available_pools(s, id, p);
        },
        "workspace " + std::to_string(*id) + " not found");
}

void get_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto p = page_of(req, res);
  if (p)
    answer_view(
        ctx, req, res,
        [pool = req.param("pool"), p = *p](const state::cluster_state& s,
                                           int64_t) -> json {
          if (s.pools.count(pool) == 0)
            return nullptr;
          auto b = s.pool_bindings.find(pool);
          json ids = b == s.pool_bindings.end() ? json::array()
                                                : json(b->second.workspace_ids);
          return paginate("workspaceIds", std::move(ids), p);
        },
        "resource pool '" + req.param("pool") + "' not found");
}

void add_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  write_bindings(ctx, req, res, "add");
}

void replace_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                           const responder& res) {
  write_bindings(ctx, req, res, "replace");
}

void remove_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                          const responder& res) {
  write_bindings(ctx, req, res, "remove");
}

// Role assignments (det workspace list-members) and quotas on a
// workspace's auto-created namespace (det workspace resource-quota set) are
// upstream Enterprise Edition features; its open-source master answers them
// as unimplemented, and so does this one, saying which.

void get_workspace_roles(const ctx_ptr&, const http::http_request&,
                         const responder& res) {
  res.send_error(http::grpc_code::unimplemented,
                 "role assignments (RBAC) are not part of this "
                 "master: a workspace has no members to list");
}

void set_workspace_quota(const ctx_ptr&, const http::http_request&,
                         const responder& res) {
  res.send_error(http::grpc_code::unimplemented,
                 "resource quotas apply to auto-created "
                 "Kubernetes namespaces, which this master does "
                 "not create");
}

} // namespace det::api
