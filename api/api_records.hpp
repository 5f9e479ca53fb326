#pragma once

// Routes of the user's records: workspaces, projects, pool bindings and
// moving experiments (api_workspaces.cpp), config templates
// (api/template_routes.cpp); the model registry's handlers are in
// api/model_routes.cpp. Reads come from
// the read model; writes are record commands (core/commands_records.hpp)
// parsed from the request here (core/records_parse.hpp), which the master
// decides on its own state (names, ids, what exists).

#include "api/route_util.hpp"
#include "core/records_parse.hpp"
#include "core/trials_parse.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace det::api {

/// What happens once a record command is durable (send_command's `then`).
using record_then =
    std::function<void(caf::event_based_actor*, nlohmann::json)>;

/// send_command (api/route_util.hpp), by the name the record routes use.
inline void command_write(const ctx_ptr& ctx, const http::responder& res,
                          command c, record_then then) {
  send_command(ctx, res, std::move(c), std::move(then));
}

/// A record command parsed from the request (core/records_parse.hpp) sent
/// as the request's user, as command_write; a parse refusal is answered
/// 400 naming the field, and nothing is sent.
template <class C>
void record_write(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res, caf::expected<C> c,
                  record_then then) {
  if (!c) {
    fail(res, c.error());
    return;
  }
  c->username = req.principal.username;
  command_write(ctx, res, command{std::move(*c)}, std::move(then));
}

/// record_write, then the view `fn` makes of the reply as the answer.
template <class C>
void record_write_then_view(
    const ctx_ptr& ctx, const http::http_request& req,
    const http::responder& res, caf::expected<C> c,
    std::function<render_fn(const nlohmann::json&)> fn) {
  record_write(ctx, req, res, std::move(c), then_view(ctx, res, std::move(fn)));
}

/// Query parameter `key` as true/false, absent: nothing; else answers 400.
bool bool_query(const http::http_request& req, const http::responder& res,
                const char* key, std::optional<bool>& out);

/// ORDER_BY_DESC (true), ORDER_BY_ASC / UNSPECIFIED / absent (false).
bool descending_query(const http::http_request& req, const http::responder& res,
                      bool& out);

/// The workspace routes, rows of api/workspace_routes.cpp: the list,
/// one workspace (GET, POST, PATCH, DELETE), .../archive, .../unarchive,
/// .../pin and .../unpin (for the caller), its projects (GET, POST) and
/// the pools available to it; a pool's workspace bindings (GET, and POST,
/// PUT, DELETE as pool_bind's add, replace, remove); 501 for role
/// assignments and quotas. Deleting, archiving or unarchiving the default
/// workspace: 403 for a non-admin (the core refuses admins).
void get_workspaces(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void get_workspace(const ctx_ptr& ctx, const http::http_request& req,
                   const http::responder& res);
void create_workspace(const ctx_ptr& ctx, const http::http_request& req,
                      const http::responder& res);
void edit_workspace(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void delete_workspace(const ctx_ptr& ctx, const http::http_request& req,
                      const http::responder& res);
void archive_workspace(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void unarchive_workspace(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void pin_workspace(const ctx_ptr& ctx, const http::http_request& req,
                   const http::responder& res);
void unpin_workspace(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void get_workspace_projects(const ctx_ptr& ctx, const http::http_request& req,
                            const http::responder& res);
void create_project(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void get_available_pools(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void get_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void add_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void replace_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                           const http::responder& res);
void remove_pool_bindings(const ctx_ptr& ctx, const http::http_request& req,
                          const http::responder& res);
void get_workspace_roles(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void set_workspace_quota(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);

/// The project routes, rows of api/project_routes.cpp: GET, PATCH and
/// DELETE /api/v1/projects/{id}, POST (add one) and PUT (replace all)
/// .../notes, POST .../archive and .../unarchive, POST
/// /api/v1/projects/{projectId}/move. Deleting, archiving or unarchiving
/// the default project: 403 for a non-admin (the core refuses admins).
void get_project(const ctx_ptr& ctx, const http::http_request& req,
                 const http::responder& res);
void edit_project(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res);
void delete_project(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void add_project_note(const ctx_ptr& ctx, const http::http_request& req,
                      const http::responder& res);
void put_project_notes(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void archive_project(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void unarchive_project(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void move_project(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res);

/// POST /api/v1/experiments/{id}/move (a row of api/experiment_routes.cpp):
/// to `destinationProjectId`, as the experiment_move command.
void move_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);

/// api_namespaces.cpp: a body's clusterNamespaceMeta as {cluster name:
/// namespace} ("" for the default namespace; with `patch`, a meta without
/// a namespace unbinds), empty when absent; nothing once answered 400
/// (det-agents, a bad name, auto-creation or quotas asked for).
std::optional<std::map<std::string, std::string>>
namespace_meta(const ctx_ptr& ctx, const nlohmann::json& body,
               const http::responder& res, bool patch);
/// Calls `then` once every namespace of `set` exists on the API server;
/// else answers 400 naming the missing one.
void with_checked_namespaces(const ctx_ptr& ctx, const http::responder& res,
                             const std::map<std::string, std::string>& set,
                             std::function<void()> then);
/// Workspace `id`'s binding for this master's cluster, as upstream's
/// namespaceBindings map ({} under det-agents).
nlohmann::json namespace_bindings_of(const ctx_ptr& ctx,
                                     const state::cluster_state& s, int64_t id);
/// api_namespaces.cpp, rows of api/workspace_routes.cpp: GET
/// /api/v1/workspaces/{id}/list-namespace-bindings, POST and DELETE
/// .../{workspaceId}/namespace-bindings (admins, checked after the id;
/// 400 under det-agents).
void list_namespace_bindings(const ctx_ptr& ctx, const http::http_request& req,
                             const http::responder& res);
void bind_namespace(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void unbind_namespaces(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
/// An experiment creation's body with the invariant configs of the
/// workspace it goes to (core/config_policies.hpp) merged over its
/// `config` text, from the read model; the body unchanged when there are
/// none (or the config does not parse: its parser answers). Calls `then`
/// on the bridge.
void with_invariant_config(const ctx_ptr& ctx, const http::responder& res,
                           nlohmann::json body,
                           std::function<void(nlohmann::json)> then);

} // namespace det::api
