// The trial-side REST routes an unmodified Core API script (determined
// 0.38.1) calls besides checkpoints and preemption (master_api.cpp):
// metrics, run start, progress, runner state, early exit, the context
// directory, task logs. Each is authorized with the allocation token of
// the trial it names (docs/agent_protocol.md).
#include "api/api_trials.hpp"

#include "actors/model_def_actor.hpp"
#include "api/api_records.hpp"
#include "api/route_util.hpp"
#include "api/task_access.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "messages/metric_group.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <chrono>
#include <cmath>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

/// Looks up the live allocation of `trial_id`, checks the request's token
/// against it, then calls `then(self, allocation_id)` on the bridge. An
/// unmanaged trial has none: a user's session may call for it (with "").
void with_trial_allocation(
    const ctx_ptr& ctx, const http::http_request& req, const responder& res,
    int64_t trial_id,
    std::function<void(caf::event_based_actor*, const std::string&)> then) {
  post(ctx->bridge, [ctx, req, res, trial_id,
                     then = std::move(then)](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [trial_id](const state::cluster_state& s, int64_t) {
          return trial_allocation(s, trial_id);
        },
        res,
        [ctx, req, res, self, trial_id, then](json j) {
          auto name = "trial " + std::to_string(trial_id);
          if (j.is_null())
            return res.send_error(grpc_code::not_found, name + " not found");
          auto alloc = j.value("allocation_id", std::string{});
          if (j.value("unmanaged", false)
              && req.principal.allocation_id.empty())
            return then(self, "");
          if (alloc.empty())
            return res.send_error(grpc_code::failed_precondition,
                                  name + " has no live allocation");
          if (authorized(ctx, req, res, alloc))
            then(self, alloc);
        });
  });
}

/// A trial route whose only effect is its answer once authorized.
void acknowledge(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res, const char* param, const char* what) {
  auto id = id_param(req, res, param);
  if (!id)
    return;
  auto body = req.body;
  with_trial_allocation(
      ctx, req, res, *id,
      [res, what, id = *id, body](caf::event_based_actor*, const std::string&) {
        log::info() << "trial " << id << " " << what << " "
                    << body.substr(0, 200);
        res.send_json("{}");
      });
}

} // namespace

void run_start(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto run = body->value("runId", body->value("run_id", json()));
  if (!run.is_number_integer() || run.get<int64_t>() < 1)
    return res.send_error(grpc_code::invalid_argument,
                          "runId: required, a positive trial id");
  // Our checkpoint storage is the experiment's; no storage id to hand out.
  with_trial_allocation(ctx, req, res, run.get<int64_t>(),
                        [res](caf::event_based_actor*, const std::string&) {
                          res.send_json("{}");
                        });
}

void report_progress(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto id = id_param(req, res, "trial_id");
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  auto p = body->value("progress", json());
  if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() < 0
      || p.get<double>() > 1)
    return res.send_error(grpc_code::invalid_argument,
                          "progress: required, a number in [0, 1], got "
                              + p.dump());
  auto value = p.get<double>();
  with_trial_allocation(
      ctx, req, res, *id,
      [ctx, res, id = *id, value](caf::event_based_actor*, const std::string&) {
        ctx->progress->set(id, value);
        res.send_json("{}");
      });
}

namespace {

/// A task's context (`det cmd run -c DIR`): for the task's own allocation
/// token, its owner and admins (anyone else: 404, as for a task that does
/// not exist). A task launched without one answers an empty archive.
void task_context_directory(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res, const std::string& id) {
  post(ctx->bridge,
       [ctx, res, id, who = req.principal](caf::event_based_actor* self) {
         ask_view(
             ctx, self,
             [id, who](const state::cluster_state& s, int64_t) {
               auto t = s.tasks.find(id);
               if (t == s.tasks.end())
                 return false;
               if (!who.allocation_id.empty())
                 return who.allocation_id.rfind(id + ".", 0) == 0;
               return who.admin || who.username == t->second.owner;
             },
             res,
             [ctx, res, self, id](json allowed) {
               if (!allowed.get<bool>())
                 return res.send_error(grpc_code::not_found,
                                       "task not found: " + id);
               self->request(ctx->model_defs, ctx->request_timeout,
                             get_atom::value, id)
                   .then(
                       [res](std::string& b64) {
                         res.send_json(json{{"b64Tgz", b64}}.dump());
                       },
                       [res](caf::error& err) {
                         if (err == errc::not_found)
                           return res.send_json(R"({"b64Tgz":""})");
                         fail(res, err);
                       });
             });
       });
}

} // namespace

void context_directory(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  // A trial's task id (DET_TASK_ID) names the trial; a UUID names a task.
  auto id = state::trial_of_task_id(req.param("task_id"));
  if (!id) {
    if (auto task = task_id_text(req.param("task_id")))
      return task_context_directory(ctx, req, res, *task);
    return res.send_error(grpc_code::invalid_argument,
                          "task_id: not a task id of this master: '"
                              + req.param("task_id").substr(0, 64) + "'");
  }
  with_trial_allocation(
      ctx, req, res, *id,
      [ctx, res, id = *id](caf::event_based_actor* self, const std::string&) {
        ask_view(
            ctx, self,
            [id](const state::cluster_state& s, int64_t) {
              auto t = state::find_listed_trial(s, id);
              return t == nullptr ? json() : json(t->experiment_id);
            },
            res,
            [ctx, res, self](json exp) {
              reply_model_def(ctx, self, exp.get<int64_t>(), res);
            });
      });
}

namespace {

/// POST /api/v1/task/logs: lines a trial ships itself (upstream's
/// ship_logs.py), kept with the agent-relayed output. POST /task-logs (the
/// SDK's unmanaged trials) sends the list itself, with no allocation: a
/// user's session may ship an unmanaged trial's lines.
void post_task_logs(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res, bool bare_list) {
  std::optional<json> body;
  if (bare_list) {
    auto parsed = json::parse(req.body, nullptr, false);
    if (!parsed.is_array())
      return res.send_error(grpc_code::invalid_argument,
                            "body: expected a list of task logs");
    // Checked as json_body checks an object, before anything copies it: a
    // list nested 100,000 deep overflowed the stack of the copy below.
    if (auto why = json_problem(parsed, "logs"); !why.empty())
      return res.send_error(grpc_code::invalid_argument, why);
    body = json::object();
    (*body)["logs"] = std::move(parsed);
  } else {
    body = json_body(req, res);
  }
  if (!body)
    return;
  auto logs = body->value("logs", json::array());
  if (!logs.is_array() || logs.empty() || !logs[0].is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "logs: required, at least one log");
  auto field = [](const json& l, const char* snake, const char* camel) {
    auto v = l.value(snake, l.value(camel, json()));
    return v.is_string() ? v.get<std::string>() : std::string{};
  };
  auto task = field(logs[0], "task_id", "taskId");
  auto alloc = field(logs[0], "allocation_id", "allocationId");
  std::vector<std::string> lines;
  for (const auto& l : logs) {
    if (!l.is_object() || field(l, "task_id", "taskId") != task)
      return res.send_error(grpc_code::invalid_argument,
                            "logs: every log must have task_id '" + task + "'");
    auto text = field(l, "log", "log");
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    lines.push_back(std::move(text));
  }
  auto trial_id = state::trial_of_task_id(task).value_or(0);
  if (trial_id < 1)
    return res.send_error(grpc_code::invalid_argument,
                          "logs[0].task_id: required, a trial's task id");
  auto agent = field(logs[0], "agent_id", "agentId");
  auto keep = [ctx, res, trial_id, agent, lines] {
    auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    ctx->logs->add(trial_id, agent, lines, now);
    res.send_json("{}");
  };
  if (!alloc.empty()) {
    if (authorized(ctx, req, res, alloc))
      keep();
    return;
  }
  // Without its allocation named: the trial's token, or for an unmanaged
  // trial a user's session.
  with_trial_allocation(
      ctx, req, res, trial_id,
      [keep](caf::event_based_actor*, const std::string&) { keep(); });
}

} // namespace

void report_metrics(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto trial_id = id_param(req, res, "trial_id");
  auto body = trial_id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  auto m = get_field_or(*body, "metrics", json::object());
  require_object(m, "field 'metrics'");
  // Any group upstream keeps (absent is empty, as in upstream's proto).
  auto group = get_field_or(*body, "group", std::string{});
  if (auto why = metric_group_problem(group); !why.empty())
    return res.send_error(grpc_code::invalid_argument, "group " + why);
  auto steps = get_field_or(m, "stepsCompleted", int64_t{0});
  auto inner = get_field_or(m, "metrics", json::object());
  require_object(inner, "field 'metrics.metrics'");
  auto avg = get_field_or(inner, "avgMetrics", json::object());
  require_object(avg, "field 'metrics.metrics.avgMetrics'");
  // A trial's own token, for this trial. The guard let it through from its
  // cache (token_check::by_master) or checked it live on a replica; the
  // master checks the allocation as it decides, and an allocation it finds
  // ended is answered as the guard answers a dead token: 401, the token
  // forgotten.
  if (!req.principal.allocation_id.empty()
      && req.principal.trial_id == *trial_id) {
    auto alloc = req.principal.allocation_id;
    return command_and_answer(
        ctx, res, command{metrics_report{alloc, group, steps, std::move(avg)}},
        [ctx, res, alloc](const caf::error& err) {
          if (err != errc::not_found)
            return fail(res, err);
          ctx->auth->forget_allocation_id(alloc);
          res.send_error(grpc_code::unauthenticated, "invalid credentials");
        });
  }
  post(ctx->bridge, [ctx, req, res, trial_id = *trial_id, group, steps,
                     avg](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [trial_id](const state::cluster_state& s, int64_t) {
          return trial_allocation(s, trial_id);
        },
        res,
        [ctx, req, res, self, trial_id, group, steps, avg](json j) {
          if (j.is_null())
            return res.send_error(grpc_code::not_found,
                                  "trial " + std::to_string(trial_id)
                                      + " not found");
          auto alloc = j.value("allocation_id", std::string{});
          // A user's session reports for an unmanaged trial, and for a
          // managed one that is not running.
          bool unmanaged = j.value("unmanaged", false);
          if ((unmanaged || alloc.empty())
              && req.principal.allocation_id.empty())
            // The master tells an unmanaged trial from a managed one.
            return record_write(
                ctx, req, res,
                parse_user_metrics_report({{"trialId", trial_id},
                                           {"group", group},
                                           {"steps", steps},
                                           {"metrics", avg}}),
                [ctx, res](caf::event_based_actor*, json) {
                  send_written(ctx, res, "{}");
                });
          if (alloc.empty())
            return res.send_error(grpc_code::failed_precondition,
                                  "trial " + std::to_string(trial_id)
                                      + " has no live allocation");
          if (!authorized(ctx, req, res, alloc))
            return;
          self->request(ctx->master, ctx->request_timeout,
                        command{metrics_report{alloc, group, steps, avg}})
              .then([ctx,
                     res](const std::string&) { send_written(ctx, res, "{}"); },
                    [res](caf::error& err) { fail(res, err); });
        });
  });
}

void report_runner_metadata(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  acknowledge(ctx, req, res, "trial_id", "runner state");
}

void report_early_exit(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  acknowledge(ctx, req, res, "trial_id", "exits early:");
}

void ship_task_logs(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  post_task_logs(ctx, req, res, false);
}

void ship_bare_task_logs(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  post_task_logs(ctx, req, res, true);
}

} // namespace det::api
