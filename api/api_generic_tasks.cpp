// Generic tasks in upstream's shapes (`det task create|config|fork|kill|
// pause|unpause`): POST /api/v1/generic-tasks takes the config as YAML
// text, a context directory, and the task it forks (its config under the
// new one's, its context when none is sent); a task's config, kill, pause
// and unpause by its id. A generic task runs as a command does (its
// entrypoint under det-agent); pausing ends its allocation and unpausing
// queues it for the next (core/master_core_tasks.cpp).

#include "actors/model_def_actor.hpp"
#include "api/api_bridge.hpp"
#include "api/api_records.hpp"
#include "api/api_tasks.hpp"
#include "api/task_access.hpp"
#include "api/task_launch.hpp"
#include "api/templates.hpp"
#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

const ntsc_kind generic_kind{"GENERIC", "generic-tasks", "task",
                             "task_id", "taskId",        "Task"};

/// The checked fields of a create request.
struct create_request {
  json config = json::object();
  std::string forked_from;
  std::string parent_id;
  bool inherit_context = false;
  /// `noPause`: unset, true or false (a child pauses with its parent only
  /// when it says false).
  std::optional<bool> no_pause;
  std::optional<int64_t> project_id;
};

std::optional<create_request> check_create(const json& body,
                                           const responder& res) {
  auto bad = [&res](const std::string& why) {
    res.send_error(grpc_code::invalid_argument, why);
    return std::nullopt;
  };
  static const std::set<std::string> known{
      "config",   "contextDirectory", "projectId", "forkedFrom",
      "parentId", "inheritContext",   "noPause"};
  for (const auto& [k, v] : body.items())
    if (known.count(k) == 0)
      return bad("unknown field '" + util::fit_text(k, {64, false, true})
                 + "' in the request");
  create_request out;
  auto text = body.value("config", json());
  if (!text.is_null() && !text.is_string())
    return bad("config: expected the configuration as a YAML string");
  if (text.is_string() && !text.get<std::string>().empty()) {
    auto tree = conf::parse_tree(text.get<std::string>());
    if (!tree)
      return bad("config: " + conf::message_of(tree.error()));
    if (!tree->is_object())
      return bad("config: expected a mapping of the task's settings");
    out.config = std::move(*tree);
  }
  for (const char* k : {"forkedFrom", "parentId"}) {
    auto v = body.value(k, json());
    if (v.is_null() || (v.is_string() && v.get<std::string>().empty()))
      continue;
    if (!v.is_string() || !task_id_text(v.get<std::string>()))
      return bad(std::string{k} + ": expected a task id (a UUID)");
    (std::string{k} == "forkedFrom" ? out.forked_from : out.parent_id) =
        v.get<std::string>();
  }
  for (const char* k : {"inheritContext", "noPause"})
    if (auto v = body.value(k, json()); !v.is_null() && !v.is_boolean())
      return bad(std::string{k} + ": expected true or false");
  out.inherit_context = body.value("inheritContext", json(false)) == true;
  if (auto v = body.value("noPause", json()); v.is_boolean())
    out.no_pause = v.get<bool>();
  if (out.inherit_context && out.parent_id.empty())
    return bad("inheritContext: there is no parentId to inherit the context "
               "directory from");
  if (auto p = body.value("projectId", json()); !p.is_null()) {
    if (!p.is_number_integer() || p.get<int64_t>() < 1)
      return bad("projectId: expected a positive integer");
    out.project_id = p.get<int64_t>();
  }
  if (out.config.empty() && out.forked_from.empty())
    return bad("config: required (the task's YAML), unless forkedFrom names "
               "the task whose config it takes");
  return out;
}

/// Copies task `from`'s context to `to` (nothing when it has none), then
/// calls `then`.
void copy_context(const ctx_ptr& ctx, caf::event_based_actor* self,
                  const responder& res, const std::string& from,
                  const std::string& to, std::function<void()> then) {
  self->request(ctx->model_defs, ctx->request_timeout, get_atom::value, from)
      .then(
          [ctx, self, res, to, then](std::string& tgz) {
            if (tgz.empty())
              return then();
            self->request(ctx->model_defs, caf::infinite, put_atom::value, to,
                          std::move(tgz))
                .then([then](caf::ok_atom) { then(); },
                      [res](caf::error& err) { fail(res, err); });
          },
          [res, then](caf::error& err) {
            if (err == errc::not_found)
              return then();
            fail(res, err);
          });
}

} // namespace

void create_generic_task(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial's allocation token cannot launch tasks");
  auto body = json_body(req, res);
  if (!body)
    return;
  auto checked = check_create(*body, res);
  if (!checked)
    return;
  auto files = take_files(ctx, *body, "contextDirectory", res);
  if (!files)
    return;
  http::http_request who;
  who.principal = req.principal;
  post(ctx->bridge, [ctx, who, res, c = std::move(*checked),
                     files](caf::event_based_actor* self) {
    auto viewer = who.principal;
    ask_view(
        ctx, self,
        [c, viewer](const state::cluster_state& s, int64_t) {
          json facts{{"parent", nullptr}, {"workspace", 1}, {"owns", false}};
          auto mine = [&](const std::string& id) -> const state::task_info* {
            auto t = s.tasks.find(id);
            if (t == s.tasks.end() || t->second.task_type != "GENERIC"
                || !(viewer.admin || viewer.username == t->second.owner))
              return nullptr;
            return &t->second;
          };
          if (!c.forked_from.empty())
            if (const auto* t = mine(c.forked_from))
              facts["parent"] = t->config;
          facts["owns"] = !c.parent_id.empty() && mine(c.parent_id) != nullptr;
          if (c.project_id) {
            auto p = s.projects.find(*c.project_id);
            facts["workspace"] =
                p == s.projects.end() ? 0 : p->second.workspace_id;
          }
          return facts;
        },
        res,
        [ctx, self, who, res, c, files](json facts) {
          if (!c.forked_from.empty() && facts["parent"].is_null())
            return res.send_error(grpc_code::not_found,
                                  "task not found: " + c.forked_from);
          // A child of a task the caller does not own would be killed and
          // paused with it: only the parent's owner (or an admin) adds one.
          if (!c.parent_id.empty() && facts["owns"] != true)
            return res.send_error(grpc_code::not_found,
                                  "parentId: task not found: " + c.parent_id);
          auto ws = facts["workspace"].get<int64_t>();
          if (ws == 0)
            return res.send_error(grpc_code::not_found,
                                  "project not found: "
                                      + std::to_string(*c.project_id));
          // The fork's own settings over its parent's.
          auto config = c.forked_from.empty()
                            ? c.config
                            : merge_template(c.config, facts["parent"]);
          auto id = new_uuid();
          auto args =
              command_launch(ctx, json{{"config", config}, {"workspaceId", ws}},
                             id, res, generic_kind);
          if (!args)
            return;
          auto cmd = to_launch(*args, id, "GENERIC", who.principal.username);
          cmd.config = config;
          cmd.forked_from = c.forked_from;
          cmd.parent_id = c.parent_id;
          cmd.no_pause = c.no_pause.value_or(false);
          cmd.pauses_with_parent = !c.parent_id.empty() && c.no_pause == false;
          auto record = [ctx, who, res, id, cmd] {
            send_command(
                ctx, res, cmd, [ctx, res, id](caf::event_based_actor*, json) {
                  send_written(
                      ctx, res,
                      json{{"taskId", id}, {"warnings", json::array()}}.dump());
                });
          };
          // As upstream: an inherited context replaces one sent, a fork's
          // parent's comes only when none is sent.
          if (c.inherit_context)
            return copy_context(ctx, self, res, c.parent_id, id, record);
          if (files->empty() && !c.forked_from.empty())
            return copy_context(ctx, self, res, c.forked_from, id, record);
          with_stored_context(ctx, res, id, files, record);
        });
  });
}

namespace {

/// POST /api/v1/tasks/{task_id}/<op>: the record command `task.<op>` for
/// the task's owner or an admin, answering {}.
void task_action(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res, const std::string& op) {
  auto id = task_param(req, res, "task_id", "taskId");
  if (!id)
    return;
  // `killFromRoot`: the whole tree from the task's topmost ancestor.
  bool from_root = false;
  if (op == "kill" && !req.body.empty()) {
    auto body = json_body(req, res);
    if (!body)
      return;
    auto f = body->value("killFromRoot", json());
    if (!f.is_null() && !f.is_boolean())
      return res.send_error(grpc_code::invalid_argument,
                            "killFromRoot: expected true or false");
    from_root = f == true;
  }
  with_owned_task(ctx, req, res, *id, "",
                  [ctx, req, res, op, from_root, id = *id] {
                    const auto& user = req.principal.username;
                    command c = task_unpause{id, user};
                    if (op == "kill")
                      c = task_kill{id, user, "", from_root};
                    else if (op == "pause")
                      c = task_pause{id, user};
                    command_and_answer(ctx, res, std::move(c));
                  });
}

} // namespace

void get_task_config(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto id = task_param(req, res, "task_id", "taskId");
  if (!id)
    return;
  answer_view(
      ctx, req, res,
      [id = *id](const state::cluster_state& s, int64_t) -> json {
        auto t = s.tasks.find(id);
        if (t == s.tasks.end())
          return nullptr;
        return {{"config", t->second.config.dump()}};
      },
      "task not found: " + *id);
}

void kill_task(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  task_action(ctx, req, res, "kill");
}

void pause_task(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res) {
  task_action(ctx, req, res, "pause");
}

void unpause_task(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  task_action(ctx, req, res, "unpause");
}

} // namespace det::api
