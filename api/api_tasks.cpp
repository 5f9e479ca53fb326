// Tasks in upstream's shapes: commands, notebooks and shells (launch,
// list, get, kill, set priority), a task by id and its logs. A command
// runs as a process on a det-agent (agent/agent.cpp's spawn_task); its
// output and the master's own lines are its task logs. Every client value is
// checked and refused with a 400 naming the field (a launch's body in
// task_launch.cpp); the master checks again what only its state can tell
// (pool, workspace, task state).

#include "api/api_tasks.hpp"
#include "api/task_access.hpp"

#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/api_bridge.hpp"
#include "api/api_records.hpp"
#include "api/auth_crypto.hpp"
#include "api/shell_keys.hpp"
#include "api/task_launch.hpp"
#include "api/task_proxy.hpp"
#include "api/task_views.hpp"
#include "api/templates.hpp"
#include "api/tensorboard_launch.hpp"
#include "api/views_cluster.hpp"
#include "conf/duration.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "messages/model_archive.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>
#include <set>

namespace det::api {

using json = nlohmann::json;

// The four kinds, as task_launch.hpp declares them.
const ntsc_kind command_kind{"COMMAND",    "commands",  "command",
                             "command_id", "commandId", "Command"};
const ntsc_kind notebook_kind{"NOTEBOOK",    "notebooks",  "notebook",
                              "notebook_id", "notebookId", "JupyterLab"};
const ntsc_kind tensorboard_kind{"TENSORBOARD",   "tensorboards",
                                 "tensorboard",   "tensorboard_id",
                                 "tensorboardId", "TensorBoard"};
const ntsc_kind shell_kind{"SHELL",    "shells",  "shell",
                           "shell_id", "shellId", "Shell"};

namespace {

using http::grpc_code;
using http::responder;

/// A view of task `id` of `type` ("" any type) through `fn`; null when the
/// state has no such task.
render_fn task_view(
    std::string id, std::string type,
    std::function<json(const state::cluster_state&, const state::task_info&)>
        fn) {
  return [id = std::move(id), type = std::move(type),
          fn = std::move(fn)](const state::cluster_state& s, int64_t) -> json {
    auto t = s.tasks.find(id);
    if (t == s.tasks.end() || (!type.empty() && t->second.task_type != type))
      return nullptr;
    return fn(s, t->second);
  };
}

/// The task in its kind's shape; a notebook's serviceAddress carries its
/// token, a shell its private key, for its owner and admins only.
json ntsc_entry(const ctx_ptr& ctx, const state::cluster_state& s,
                const state::task_info& t, const std::string& viewer,
                bool admin) {
  auto j = ntsc_json(s, t);
  bool own = admin || viewer == t.owner;
  if (t.task_type == "NOTEBOOK" && ctx->tokens && own)
    j["serviceAddress"] =
        "/proxy/" + t.id + "/?token=" + notebook_token(*ctx->tokens, t.id);
  if (t.task_type == "TENSORBOARD") {
    j["serviceAddress"] = "/proxy/" + t.id + "/";
    j["experimentIds"] = t.tensorboard.value("experiments", json::array());
    json trials = json::array();
    for (const auto& pair : t.tensorboard.value("trials", json::array()))
      if (pair.is_array() && pair.size() == 2)
        trials.push_back(pair[1]);
    j["trialIds"] = std::move(trials);
  }
  if (t.task_type == "SHELL") {
    auto keys = ctx->tokens ? shell_keys(*ctx->tokens, t.id) : shell_key_pair{};
    add_shell_fields(j, s, t, keys.public_key, own ? keys.private_key : "");
  }
  return j;
}

/// The view {<kind>: task, config}, as launch and get answer; with
/// `config` false, {<kind>: task} (kill, set priority).
render_fn ntsc_view(const ctx_ptr& ctx, const ntsc_kind& kind, std::string id,
                    std::string viewer, bool admin, bool config) {
  return task_view(
      std::move(id), kind.type,
      [ctx, key = kind.key, viewer = std::move(viewer), admin,
       config](const state::cluster_state& s, const state::task_info& t) {
        json j{{key, ntsc_entry(ctx, s, t, viewer, admin)}};
        if (config)
          j["config"] = t.config;
        return j;
      });
}

void launch_checked(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, const ntsc_kind& kind, json body);

/// The template `body` names (`template_name`, or the WebUI's
/// `templateName`): its config under the request's (api/templates.hpp),
/// with only the keys a task's config has (a template written for
/// experiments also serves a notebook: its searcher is left out, as
/// upstream's decoding leaves it). Null: no template.
json template_name_of(const json& body) {
  for (const char* t : {"template_name", "templateName"})
    if (auto i = body.find(t);
        i != body.end() && !i->is_null()
        && !(i->is_string() && i->get<std::string>().empty()))
      return *i;
  return nullptr;
}

void launch_command(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, const ntsc_kind& kind) {
  auto body = json_body(req, res);
  if (!body)
    return;
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial's allocation token cannot launch tasks");
  auto name = template_name_of(*body);
  if (name.is_null())
    return launch_checked(ctx, req, res, kind, std::move(*body));
  // Named before the body moves into the continuation (the order in which
  // a call's arguments are evaluated is unspecified).
  const char* field =
      body->contains("template_name") ? "template_name" : "templateName";
  with_template(ctx, res, name, field,
                [ctx, req, res, kind, b = std::move(*body)](json tpl) mutable {
                  b.erase("template_name");
                  b.erase("templateName");
                  auto own = b.value("config", json::object());
                  if (own.is_null())
                    own = json::object();
                  if (own.is_object()) {
                    json known = json::object();
                    for (const auto& [k, v] : tpl.items())
                      if (command_config_keys().count(k) != 0)
                        known[k] = v;
                    // As upstream: a task's slots and pool are the
                    // request's own, never a template's.
                    if (auto r = known.find("resources");
                        r != known.end() && r->is_object()) {
                      r->erase("slots");
                      r->erase("resource_pool");
                    }
                    b["config"] = merge_template(own, known);
                  }
                  launch_checked(ctx, req, res, kind, std::move(b));
                });
}

/// Records the launch of `id` (its body checked into `args`) and answers
/// the task's view.
void record_launch(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res, const ntsc_kind& kind,
                   const std::string& id, const launch_args& args) {
  auto cmd = to_launch(args, id, kind.type, req.principal.username);
  auto viewer = req.principal.username;
  bool admin = req.principal.admin;
  command_then_view(ctx, res, std::move(cmd),
                    [ctx, kind, id, viewer, admin](const json&) -> render_fn {
                      auto view = ntsc_view(ctx, kind, id, viewer, admin, true);
                      return
                          [view](const state::cluster_state& s, int64_t now) {
                            auto j = view(s, now);
                            if (j.is_object())
                              j["warnings"] = json::array();
                            return j;
                          };
                    });
}

void launch_checked(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, const ntsc_kind& kind, json body) {
  auto id = new_uuid();
  auto files = take_files(ctx, body, "files", res);
  if (!files)
    return;
  std::optional<tensorboard_ids> shown;
  if (kind.type == "TENSORBOARD" && !(shown = take_tensorboard_ids(body, res)))
    return;
  auto args = command_launch(ctx, body, id, res, kind);
  if (!args)
    return;
  http::http_request who;
  who.principal = req.principal;
  auto launch = [ctx, who, res, kind, id,
                 files = std::move(files)](launch_args a) {
    with_stored_context(ctx, res, id, files,
                        [ctx, who, res, kind, id, a = std::move(a)] {
                          record_launch(ctx, who, res, kind, id, a);
                        });
  };
  if (!shown)
    return launch(std::move(*args));
  // A TensorBoard's experiments and trials, resolved on the read model.
  post(ctx->bridge,
       [ctx, res, ids = std::move(*shown), args = std::move(*args), launch,
        viewer = req.principal.username,
        admin = req.principal.admin](caf::event_based_actor* self) {
         ask_view(
             ctx, self,
             [ids, viewer, admin](const state::cluster_state& s, int64_t) {
               return resolve_tensorboard(s, ids, viewer, admin);
             },
             res,
             [res, args, launch](json tb) {
               if (tb.contains("error"))
                 return res.send_error(tb["code"] == 404
                                           ? grpc_code::not_found
                                           : grpc_code::invalid_argument,
                                       tb["error"].get<std::string>());
               auto a = args;
               auto inherited = tb["inherited"];
               tb.erase("inherited");
               auto& env = a.config["environment"];
               if (!env.is_object())
                 env = json::object();
               if (!env.contains("image") && inherited.contains("image")) {
                 env["image"] = inherited["image"];
                 if (!normalize_image(env).empty())
                   env.erase("image");
               }
               if (!env.contains("pod_spec") && inherited.contains("pod_spec"))
                 env["pod_spec"] = inherited["pod_spec"];
               a.tensorboard = std::move(tb);
               launch(std::move(a));
             });
       });
}

void list_commands(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res, const ntsc_kind& kind) {
  auto users = req.query.get_all("users");
  std::optional<int64_t> ws;
  if (auto w = req.query.get("workspaceId")) {
    ws = positive_id(*w);
    if (!ws)
      return res.send_error(grpc_code::invalid_argument,
                            "workspaceId: expected a positive integer");
  }
  answer_view(
      ctx, req, res,
      [ctx, kind, users, ws, viewer = req.principal.username,
       admin = req.principal.admin](const state::cluster_state& s,
                                    int64_t) -> json {
        // A deleted workspace's tasks are listed no more (as upstream).
        if (ws && !state::find_workspace(s, *ws))
          return nullptr;
        json list = json::array();
        for (const auto& [id, t] : s.tasks) {
          if (t.task_type != kind.type || (ws && t.workspace_id != *ws)
              || !state::find_workspace(s, t.workspace_id))
            continue;
          if (!users.empty()
              && std::find(users.begin(), users.end(), t.owner) == users.end())
            continue;
          list.push_back(ntsc_entry(ctx, s, t, viewer, admin));
        }
        auto n = static_cast<int64_t>(list.size());
        return json{{kind.plural, std::move(list)},
                    {"pagination",
                     {{"offset", 0},
                      {"limit", n},
                      {"startIndex", 0},
                      {"endIndex", n},
                      {"total", n}}}};
      },
      "workspace not found: " + (ws ? std::to_string(*ws) : std::string{}));
}

} // namespace

/// POST /api/v1/allocations/{id}/ready from the task itself (its
/// allocation token; an admin may too). `proxyPort` (ours): where its
/// service listens, on the address the call came from.
void report_ready(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  auto alloc = req.param("allocation_id");
  auto dot = alloc.rfind('.');
  if (dot == std::string::npos || !task_id_text(alloc.substr(0, dot)))
    return res.send_error(grpc_code::invalid_argument,
                          "allocationId: expected a task's allocation id");
  if (req.principal.allocation_id != alloc && !req.principal.admin)
    return res.send_error(grpc_code::permission_denied,
                          "only the allocation's own token reports it ready");
  json body = json::object();
  if (!req.body.empty()) {
    auto b = json_body(req, res);
    if (!b)
      return;
    body = std::move(*b);
  }
  for (const auto& [k, v] : body.items())
    if (k != "allocationId" && k != "proxyPort")
      return res.send_error(grpc_code::invalid_argument,
                            "unknown field '"
                                + util::fit_text(k, {64, false, true})
                                + "' in the ready request");
  auto port = body.value("proxyPort", json());
  if (!port.is_null()
      && (!port.is_number_integer() || port.get<int64_t>() < 1
          || port.get<int64_t>() > 65535))
    return res.send_error(grpc_code::invalid_argument,
                          "proxyPort: expected a whole number from 1 to 65535");
  std::string host;
  if (!port.is_null()) {
    host = req.remote_address;
    if (host.rfind("::ffff:", 0) == 0 && host.find('.') != std::string::npos)
      host = host.substr(7);
    if (host.empty())
      return res.send_error(grpc_code::invalid_argument,
                            "proxyPort: the address of the call is unknown");
  }
  send_command(
      ctx, res,
      task_ready_report{
          alloc, host,
          static_cast<int32_t>(port.is_null() ? 0 : port.get<int64_t>())},
      [res](caf::event_based_actor*, const json&) { res.send_json("{}"); });
}

/// PUT /api/v1/notebooks/{id}/report_idle {"idle": bool} from the
/// notebook's launcher (its owner's DET_USER_TOKEN) or its owner: `false`
/// is activity, which puts off the idle timeout (api/idle_watch.hpp).
void report_idle(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  auto id = task_param(req, res, "notebook_id", "notebookId");
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  for (const auto& [k, v] : body->items())
    if (k != "notebookId" && k != "idle")
      return res.send_error(grpc_code::invalid_argument,
                            "unknown field '"
                                + util::fit_text(k, {64, false, true})
                                + "' in the idle report");
  auto idle = body->value("idle", json(false));
  if (!idle.is_boolean())
    return res.send_error(grpc_code::invalid_argument,
                          "idle: expected true or false");
  with_owned_task(ctx, req, res, *id, "NOTEBOOK",
                  [ctx, res, id = *id, busy = !idle.get<bool>()] {
                    if (busy)
                      ctx->idle->record(id, ctx->wall_clock_us());
                    res.send_json("{}");
                  });
}

namespace {

/// One look of the idle watch at the published state, then the next one
/// after idle_check_interval: each notebook idle too long is killed, as
/// its owner would (task.kill), with the reason in its exit status.
void watch_idle(const ctx_ptr& ctx, caf::event_based_actor* self) {
  if (ctx->reads)
    ctx->reads->read(
        ctx->reads->published_position(),
        std::chrono::steady_clock::now() + ctx->request_timeout,
        [ctx](const read::read_view& v) {
          for (auto& k : ctx->idle->due(v.state, ctx->wall_clock_us())) {
            auto t = v.state.tasks.find(k.task_id);
            auto owner = t == v.state.tasks.end() ? "" : t->second.owner;
            log::info() << "killing "
                        << (t == v.state.tasks.end()
                                ? std::string{"task"}
                                : task_kind_of(t->second.task_type))
                        << " " << k.task_id << ": " << k.reason;
            post(ctx->bridge, [ctx, k, owner](caf::event_based_actor* s) {
              s->request(ctx->master, ctx->request_timeout,
                         command{task_kill{k.task_id, owner, k.reason}})
                  .then([](const std::string&) {},
                        [k](caf::error& err) {
                          log::warn() << "idle task " << k.task_id
                                      << " not killed: " << render(err);
                        });
            });
          }
        },
        [](int64_t, const std::string&) {});
  self->delayed_send(
      self, ctx->idle_check_interval,
      bridge_job{[ctx](caf::event_based_actor* s) { watch_idle(ctx, s); }});
}

} // namespace

void start_idle_watch(const ctx_ptr& ctx) {
  post(ctx->bridge,
       [ctx](caf::event_based_actor* self) { watch_idle(ctx, self); });
}

void launch_ntsc(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res, const ntsc_kind& kind) {
  launch_command(ctx, req, res, kind);
}

void list_ntsc(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res, const ntsc_kind& kind) {
  list_commands(ctx, req, res, kind);
}

void get_ntsc(const ctx_ptr& ctx, const http::http_request& req,
              const responder& res, const ntsc_kind& kind) {
  auto id = task_param(req, res, kind.param.c_str(), kind.field.c_str());
  if (!id)
    return;
  answer_view(ctx, req, res,
              ntsc_view(ctx, kind, *id, req.principal.username,
                        req.principal.admin, true),
              kind.key + " not found: " + *id);
}

void kill_ntsc(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res, const ntsc_kind& kind) {
  auto id = task_param(req, res, kind.param.c_str(), kind.field.c_str());
  if (!id)
    return;
  with_owned_task(ctx, req, res, *id, kind.type, [=, &kind] {
    command_then_view(ctx, res, task_kill{*id, req.principal.username},
                      [=, &kind](const json&) {
                        return ntsc_view(ctx, kind, *id, req.principal.username,
                                         req.principal.admin, false);
                      });
  });
}

void set_ntsc_priority(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res, const ntsc_kind& kind) {
  auto id = task_param(req, res, kind.param.c_str(), kind.field.c_str());
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  auto p = body->value("priority", json());
  if (!p.is_number_integer() || p.get<int64_t>() < 1 || p.get<int64_t>() > 99)
    return res.send_error(grpc_code::invalid_argument,
                          "priority: expected a whole number from 1 to 99");
  with_owned_task(ctx, req, res, *id, kind.type, [=, &kind] {
    command_then_view(
        ctx, res,
        task_priority_change{*id, static_cast<int32_t>(p.get<int64_t>()),
                             req.principal.username},
        [=, &kind](const json&) {
          return ntsc_view(ctx, kind, *id, req.principal.username,
                           req.principal.admin, false);
        });
  });
}

void get_task_count(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  answer_view(
      ctx, req, res,
      [](const state::cluster_state& s, int64_t) -> json {
        json counts{{"commands", 0},
                    {"notebooks", 0},
                    {"shells", 0},
                    {"tensorboards", 0}};
        for (const auto& [id, t] : s.tasks) {
          if (t.state == state::task_state::terminated)
            continue;
          const char* key = t.task_type == "COMMAND"       ? "commands"
                            : t.task_type == "NOTEBOOK"    ? "notebooks"
                            : t.task_type == "SHELL"       ? "shells"
                            : t.task_type == "TENSORBOARD" ? "tensorboards"
                                                           : nullptr;
          if (key != nullptr)
            counts[key] = counts[key].get<int64_t>() + 1;
        }
        return counts;
      },
      "");
}

void get_task(const ctx_ptr& ctx, const http::http_request& req,
              const responder& res) {
  // A trial's task (a run of it): its times as upstream's tasks table.
  if (auto run = state::trial_run_of_task_id(req.param("task_id"));
      run && req.principal.allocation_id.empty())
    return answer_view(
        ctx, req, res,
        [run = *run, id = req.param("task_id")](const state::cluster_state& s,
                                                int64_t) -> json {
          auto t = state::find_listed_trial(s, run.first);
          if (t == nullptr || run.second > t->continued_at_us.size())
            return nullptr;
          return {{"task", trial_task_json(*t, run.second, id)}};
        },
        "task not found: " + req.param("task_id"));
  auto id = task_param(req, res, "task_id", "taskId");
  if (!id)
    return;
  answer_view(
      ctx, req, res,
      task_view(*id, "",
                [](const state::cluster_state&, const state::task_info& t) {
                  return json{{"task", task_json(t)}};
                }),
      "task not found: " + *id);
}

} // namespace det::api
