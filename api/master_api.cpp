#include "api/master_api.hpp"

#include "api/account_records.hpp"

#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/api_checkpoints.hpp"
#include "api/api_cluster.hpp"
#include "api/api_experiments.hpp"
#include "api/api_inspect.hpp"
#include "api/api_metrics.hpp"
#include "api/api_project_experiments.hpp"
#include "api/api_records.hpp"
#include "api/api_runs.hpp"
#include "api/api_tasks.hpp"
#include "api/api_unmanaged.hpp"
#include "api/durable_feed.hpp"
#include "api/pool_views.hpp"
#include "api/queue_routes.hpp"
#include "api/resource_routes.hpp"
#include "api/route_util.hpp"
#include "api/simulate_routes.hpp"
#include "api/templates.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "messages/metric_group.hpp"
#include "messages/model_archive.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

template <class Atom>
void experiment_command(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  post(ctx->bridge, [ctx, res, id = *id](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, Atom::value, id)
        .then([ctx, res](caf::ok_atom) { send_written(ctx, res, "{}"); },
              [res](caf::error& err) { fail(res, err); });
  });
}

// -- experiments -------------------------------------------------------------

/// Answers {"experiment": ...} as the read model has it now (after a
/// write: it already holds the write).
void answer_experiment(const ctx_ptr& ctx, caf::event_based_actor* self,
                       const responder& res, int64_t id) {
  ask_view(
      ctx, self,
      [id](const state::cluster_state& s, int64_t) {
        auto j = experiment_response(s, id);
        return j.is_null() ? j : json{{"experiment", j["experiment"]}};
      },
      res, [ctx, res](json j) { send_written(ctx, res, j.dump()); });
}

/// PATCH /api/v1/experiments/{id}: name, description, notes, labels
/// (master_core::edit_experiment checks them).
void edit_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  post(ctx->bridge,
       [ctx, res, id = *id, patch = body->dump(),
        user = req.principal.username](caf::event_based_actor* self) {
         self->request(ctx->master, ctx->request_timeout, edit_atom::value, id,
                       patch, user)
             .then([ctx, res, self, id](
                       caf::ok_atom) { answer_experiment(ctx, self, res, id); },
                   [res](caf::error& err) { fail(res, err); });
       });
}

/// POST /api/v1/experiments/{id}/archive and /unarchive.
void archive_experiment(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res, bool archived) {
  auto id = id_param(req, res);
  if (!id)
    return;
  post(ctx->bridge,
       [ctx, res, id = *id, archived,
        user = req.principal.username](caf::event_based_actor* self) {
         self->request(ctx->master, ctx->request_timeout, archive_atom::value,
                       id, archived, user)
             .then([ctx, res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                   [res](caf::error& err) { fail(res, err); });
       });
}

void finish_model_def(const ctx_ptr& ctx, int64_t id) {
  auto& b = *ctx->bridge_data;
  b.storing.erase(id);
  auto waiting = std::move(b.waiting[id]);
  b.waiting.erase(id);
  for (auto& w : waiting)
    post(ctx->bridge, [ctx, w, id](caf::event_based_actor* self) {
      reply_model_def(ctx, self, id, w);
    });
}

void create_experiment_with(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res, std::optional<json> body);

void create_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // Invariant configs of config policies go over the template's result.
  auto with_policies = [ctx, req, res](json b) {
    if (auto u = b.find("unmanaged");
        u != b.end() && u->is_boolean() && u->get<bool>())
      return create_experiment_with(ctx, req, res, std::move(b));
    with_invariant_config(ctx, res, std::move(b), [ctx, req, res](json m) {
      create_experiment_with(ctx, req, res, std::move(m));
    });
  };
  auto t = body->find("template");
  if (t == body->end() || t->is_null())
    return with_policies(std::move(*body));
  apply_template(ctx, req, res, std::move(*body), with_policies);
}

void create_experiment_with(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res, std::optional<json> body) {
  if (auto u = body->find("unmanaged");
      u != body->end() && !u->is_null() && (!u->is_boolean() || u->get<bool>()))
    return create_unmanaged_experiment(ctx, req, res, *body, "");
  int64_t project_id = 0;
  if (auto p = body->find("projectId"); p != body->end() && !p->is_null()) {
    if (!p->is_number_integer() || p->get<int64_t>() < 1)
      return res.send_error(grpc_code::invalid_argument,
                            "projectId: expected a positive integer");
    project_id = p->get<int64_t>();
  }
  auto cfg_field = body->find("config");
  if (cfg_field != body->end() && !cfg_field->is_string()
      && !cfg_field->is_null())
    return res.send_error(grpc_code::invalid_argument,
                          "config: expected the configuration as a YAML "
                          "string");
  auto act = body->find("activate");
  if (act != body->end() && !act->is_boolean() && !act->is_null())
    return res.send_error(grpc_code::invalid_argument,
                          "activate: expected true or false");
  auto cfg_text = cfg_field != body->end() && cfg_field->is_string()
                      ? cfg_field->get<std::string>()
                      : std::string{};
  auto cfg = conf::parse_experiment_config(cfg_text, ctx->experiment_defaults);
  if (!cfg)
    return fail(res, cfg.error());
  // A trial that can never fit: refused, or with launch_error false
  // created and queued with upstream's warning.
  auto warnings = json::array();
  auto cap = ctx->pool_capacities.find(cfg->resources.resource_pool);
  if (cap != ctx->pool_capacities.end())
    if (auto err =
            conf::check_slots_fit(cfg->resources.slots_per_trial,
                                  cfg->resources.is_single_node, cap->second)) {
      if (ctx->config == nullptr || ctx->config->launch_error)
        return fail(res, err);
      warnings.push_back("LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED");
    }
  // Moved out of the body, not copied: it may be 95 MiB of base64.
  auto listed = std::make_shared<json>(json::array());
  if (auto m = body->find("modelDefinition"); m != body->end() && !m->is_null())
    *listed = std::move(*m);
  if (auto err = check_model_files(*listed))
    return fail(res, err);
  if (auto err =
          check_model_size(*listed, ctx->config->max_model_definition_bytes))
    return fail(res, err);
  model_files files{std::move(listed)};
  bool activate = act == body->end() || act->is_null() || act->get<bool>();
  auto filled = cfg->filled.dump();
  auto owner = req.principal.username.empty() ? std::string{"determined"}
                                              : req.principal.username;
  // One command creates the experiment as asked (paused when activate is
  // false) with its model definition pending; once the definition is
  // stored a second command lets its trials be placed. A crash in between
  // leaves a pending experiment that start-up settles (stored, or ERROR),
  // never a running one without its model.
  post(ctx->bridge, [ctx, res, filled, files = std::move(files), activate,
                     owner, project_id,
                     warnings](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, create_atom::value, filled,
                  owner, activate, project_id)
        .then(
            [ctx, res, self, files, warnings](int64_t id) {
              ctx->bridge_data->storing.insert(id);
              self->request(ctx->model_defs, caf::infinite, put_atom::value, id,
                            files)
                  .then(
                      [ctx, res, self, id, warnings](caf::ok_atom) {
                        finish_model_def(ctx, id);
                        self->request(ctx->master, ctx->request_timeout,
                                      defstored_atom::value, id)
                            .then(
                                [ctx, res, self, id, warnings](caf::ok_atom) {
                                  ask_view(
                                      ctx, self,
                                      [id,
                                       warnings](const state::cluster_state& s,
                                                 int64_t) {
                                        auto j = experiment_response(s, id);
                                        if (!j.is_null() && !warnings.empty())
                                          j["warnings"] = warnings;
                                        return j;
                                      },
                                      res,
                                      [ctx, res](json j) {
                                        send_written(ctx, res, j.dump());
                                      });
                                },
                                [res](caf::error& err) { fail(res, err); });
                      },
                      [ctx, res, self, id](caf::error& err) {
                        log::error()
                            << "experiment " << id
                            << ": storing its model definition failed: "
                            << render(err);
                        finish_model_def(ctx, id);
                        self->request(ctx->master, ctx->request_timeout,
                                      deflost_atom::value, id,
                                      "storing its model definition failed: "
                                          + render(err));
                        fail(res, err);
                      });
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

void get_model_def(const ctx_ptr& ctx, const http::http_request& req,
                   const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  post(ctx->bridge, [ctx, res, id = *id](caf::event_based_actor* self) {
    reply_model_def(ctx, self, id, res);
  });
}

// -- trial side --------------------------------------------------------------

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
            return record_write(ctx, req, res,
                                unmanaged ? "unmanaged.metrics"
                                          : "trial.user_metrics",
                                {{"trialId", trial_id},
                                 {"group", group},
                                 {"steps", steps},
                                 {"metrics", avg}},
                                [ctx, res](caf::event_based_actor*, json) {
                                  send_written(ctx, res, "{}");
                                });
          if (alloc.empty())
            return res.send_error(grpc_code::failed_precondition,
                                  "trial " + std::to_string(trial_id)
                                      + " has no live allocation");
          if (!authorized(ctx, req, res, alloc))
            return;
          self->request(ctx->master, ctx->request_timeout, metrics_atom::value,
                        alloc, group, steps, avg.dump())
              .then([ctx, res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                    [res](caf::error& err) { fail(res, err); });
        });
  });
}

void report_checkpoint(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // Upstream's body is the v1Checkpoint itself; {"checkpoint": {...}} too.
  auto c = body->contains("checkpoint")
               ? get_field_or(*body, "checkpoint", json::object())
               : *body;
  require_object(c, "field 'checkpoint'");
  auto alloc = get_field_or(c, "allocationId", std::string{});
  auto uuid = get_field_or(c, "uuid", std::string{});
  auto meta = get_field_or(c, "metadata", json::object());
  require_object(meta, "field 'checkpoint.metadata'");
  // The files the harness lists ({path: size}) live beside the metadata.
  if (auto r = c.find("resources");
      r != c.end() && !r->is_null() && !meta.contains("resources")) {
    if (!r->is_object())
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.resources: expected an object");
    meta["resources"] = *r;
  }
  auto steps = get_field_or(meta, "steps_completed", int64_t{0});
  // An unmanaged trial has no allocation: its task id names it, and its
  // user's session reports for it.
  if (alloc.empty() && !uuid.empty() && req.principal.allocation_id.empty()) {
    auto trial =
        state::trial_of_task_id(get_field_or(c, "taskId", std::string{}));
    if (!trial)
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.taskId: required without an "
                            "allocationId, an unmanaged trial's task id");
    return record_write(ctx, req, res, "unmanaged.checkpoint",
                        {{"trialId", *trial},
                         {"uuid", uuid},
                         {"steps", steps},
                         {"metadata", meta}},
                        [ctx, res](caf::event_based_actor*, json) {
                          send_written(ctx, res, "{}");
                        });
  }
  if (alloc.empty() || uuid.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint.allocationId and checkpoint.uuid: "
                          "required");
  if (!authorized(ctx, req, res, alloc))
    return;
  post(ctx->bridge,
       [ctx, res, alloc, uuid, steps, meta](caf::event_based_actor* self) {
         self->request(ctx->master, ctx->request_timeout, ckpt_atom::value,
                       alloc, uuid, steps, meta.dump())
             .then([ctx, res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                   [res](caf::error& err) { fail(res, err); });
       });
}

/// One look at the state; answers when preempting, when the allocation is
/// gone or at the deadline, otherwise looks again after preemption_poll.
void poll_preemption(const ctx_ptr& ctx, caf::event_based_actor* self,
                     responder res, std::string alloc,
                     std::chrono::steady_clock::time_point deadline) {
  if (res.client_gone())
    return res.send_json(R"({"preempt":false})");
  ask_view(
      ctx, self,
      [alloc](const state::cluster_state& s, int64_t) {
        return preemption_status(s, alloc);
      },
      res,
      [ctx, self, res, alloc, deadline](json j) {
        bool preempt = j.value("preempt", false);
        if (preempt || !j.value("live", false)
            || std::chrono::steady_clock::now() >= deadline)
          return res.send_json(json{{"preempt", preempt}}.dump());
        self->delayed_send(
            self, ctx->preemption_poll,
            bridge_job{[ctx, res, alloc, deadline](caf::event_based_actor* s) {
              poll_preemption(ctx, s, res, alloc, deadline);
            }});
      });
}

void preemption_signal(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto alloc = req.param("allocation_id");
  if (!authorized(ctx, req, res, alloc))
    return;
  int64_t secs = 0;
  if (auto t = req.query.get("timeout_seconds"))
    try {
      secs = std::clamp<int64_t>(std::stoll(*t), 0, 600);
    } catch (const std::exception&) {
      return res.send_error(grpc_code::invalid_argument,
                            "timeout_seconds: not a number");
    }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{secs};
  post(ctx->bridge, [ctx, res, alloc, deadline](caf::event_based_actor* self) {
    poll_preemption(ctx, self, res, alloc, deadline);
  });
}

} // namespace

size_t request_body_limit(std::string_view method, std::string_view path,
                          bool authorized, size_t model_bytes) {
  // A browser reaches a task with the `auth` cookie, no Authorization.
  if (path.substr(0, 7) == "/proxy/")
    return 8u << 20;
  if (!authorized)
    return 64u << 10;
  if (method == "POST" && path == "/api/v1/experiments")
    return model_bytes / 3 * 4 + (1u << 20);
  return 8u << 20;
}

void add_master_routes(http::router& r, ctx_ptr ctx) {
  add_inspect_routes(r, ctx);
  add_task_routes(r, ctx);
  add_auth_routes(r, ctx);
  add_cluster_routes(r, ctx);
  add_metric_routes(r, ctx);
  // Both answers are fixed for the life of the process: rendered once.
  auto info_text = json{
      {"version", ctx->version},
      {"master_id", ctx->master_id},
      {"cluster_id", ctx->cluster_id},
      {"cluster_name", ctx->cluster_name},
      {"telemetry",
       {{"enabled", false}, {"otel_enabled", false}, {"otel_endpoint", ""}}},
      {"sso_providers",
       nullptr}}.dump();
  r.get("/info", [info_text](http::http_request, responder res) {
    res.send_json(info_text);
  });
  // Fixed for the life of the process but for the cluster message.
  auto master_json =
      std::make_shared<const json>(json{{"version", ctx->version},
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
                                        {"hasCustomLogo", false}});
  r.get("/api/v1/master",
        [ctx, master_json](http::http_request req, responder res) {
          answer_view(
              ctx, req, res,
              [ctx, master_json](const state::cluster_state& s, int64_t) {
                auto j = *master_json;
                if (auto m = active_cluster_message(*ctx, s); !m.is_null())
                  j["clusterMessage"] = std::move(m);
                return j;
              },
              "");
        });
  r.post("/api/v1/experiments", [ctx](http::http_request req, responder res) {
    create_experiment(ctx, req, res);
  });
  r.get("/api/v1/experiments/{id}",
        [ctx](http::http_request req, responder res) {
          auto id = id_param(req, res);
          if (id)
            answer_view(
                ctx, req, res,
                [id = *id, alloc = req.principal.allocation_id](
                    const state::cluster_state& s, int64_t) {
                  return experiment_response(s, id, alloc);
                },
                "experiment " + std::to_string(*id) + " not found");
        });
  r.get("/api/v1/experiments/{id}/trials",
        [ctx](http::http_request req, responder res) {
          auto id = id_param(req, res);
          if (id)
            answer_view(
                ctx, req, res,
                [id = *id](const state::cluster_state& s, int64_t) {
                  return trials_response(s, id);
                },
                "experiment " + std::to_string(*id) + " not found");
        });
  r.get("/api/v1/experiments/{id}/model_def",
        [ctx](http::http_request req, responder res) {
          get_model_def(ctx, req, res);
        });
  r.post("/api/v1/experiments/{id}/pause",
         [ctx](http::http_request req, responder res) {
           experiment_command<pause_atom>(ctx, req, res);
         });
  r.post("/api/v1/experiments/{id}/activate",
         [ctx](http::http_request req, responder res) {
           experiment_command<activate_atom>(ctx, req, res);
         });
  r.post("/api/v1/experiments/{id}/kill",
         [ctx](http::http_request req, responder res) {
           experiment_command<kill_atom>(ctx, req, res);
         });
  r.del("/api/v1/experiments/{id}",
        [ctx](http::http_request req, responder res) {
          auto id = id_param(req, res);
          if (!id)
            return;
          post(ctx->bridge, [ctx, res, id = *id, user = req.principal.username](
                                caf::event_based_actor* self) {
            self->request(ctx->master, ctx->request_timeout, delete_atom::value,
                          id, user)
                .then(
                    [ctx, res, id, user](caf::ok_atom) {
                      log::info() << "experiment " << id << " deleted by '"
                                  << user << "'";
                      send_written(ctx, res, "{}");
                    },
                    [res](caf::error& err) { fail(res, err); });
          });
        });
  r.post("/api/v1/experiments/{id}/cancel",
         [ctx](http::http_request req, responder res) {
           experiment_command<cancel_atom>(ctx, req, res);
         });
  r.patch("/api/v1/experiments/{id}",
          [ctx](http::http_request req, responder res) {
            edit_experiment(ctx, req, res);
          });
  r.post("/api/v1/experiments/{id}/archive",
         [ctx](http::http_request req, responder res) {
           archive_experiment(ctx, req, res, true);
         });
  r.post("/api/v1/experiments/{id}/unarchive",
         [ctx](http::http_request req, responder res) {
           archive_experiment(ctx, req, res, false);
         });
  r.post("/api/v1/trials/{trial_id}/metrics",
         [ctx](http::http_request req, responder res) {
           report_metrics(ctx, req, res);
         });
  r.post("/api/v1/checkpoints", [ctx](http::http_request req, responder res) {
    report_checkpoint(ctx, req, res);
  });
  r.get("/api/v1/allocations/{allocation_id}/signals/preemption",
        [ctx](http::http_request req, responder res) {
          preemption_signal(ctx, req, res);
        });
  r.post("/api/v1/allocations/{allocation_id}/signals/ack_preemption",
         [ctx](http::http_request req, responder res) {
           if (authorized(ctx, req, res, req.param("allocation_id")))
             res.send_json("{}");
         });
  add_trial_routes(r, ctx);
  add_unmanaged_routes(r, ctx);
  add_run_routes(r, ctx);
  add_job_routes(r, ctx);
  add_resource_routes(r, ctx);
  add_simulate_routes(r, ctx);
  add_checkpoint_routes(r, ctx);
  add_workspace_routes(r, ctx);
  add_template_routes(r, ctx);
  add_model_routes(r, ctx);
  add_webhook_routes(r, ctx);
  add_config_policy_routes(r, ctx);
  add_experiment_more_routes(r, ctx);
  add_project_experiment_routes(r, ctx);
}

} // namespace det::api
