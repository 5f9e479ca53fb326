#include "api/experiment_handlers.hpp"

#include "actors/experiment_creation_actor.hpp"
#include "api/api_project_experiments.hpp"
#include "api/api_records.hpp"
#include "api/api_unmanaged.hpp"
#include "api/templates.hpp"
#include "api/views.hpp"
#include "core/experiments_parse.hpp"
#include "http/grpc_error.hpp"
#include "messages/model_archive.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

/// The command on experiment `id` (the path's) answered {} once durable.
template <class Command>
void experiment_command(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  command_and_answer(ctx, res, Command{*id});
}

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

/// POST /api/v1/experiments/{id}/archive and /unarchive.
void set_archived(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, bool archived) {
  auto id = id_param(req, res);
  if (!id)
    return;
  command_and_answer(ctx, res,
                     experiment_archive{*id, archived, req.principal.username});
}

/// `listed`: the body's modelDefinition (an empty list when it had none),
/// taken out before the template and the config policies were merged.
void create_experiment_with(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res, std::optional<json> body,
                            std::shared_ptr<json> listed) {
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
  if (auto err = check_model_files(*listed))
    return fail(res, err);
  if (auto err =
          check_model_size(*listed, ctx->config->max_model_definition_bytes))
    return fail(res, err);
  experiment_creation c;
  c.config = std::move(cfg->filled);
  c.owner = req.principal.username.empty() ? std::string{"determined"}
                                           : req.principal.username;
  c.activate = act == body->end() || act->is_null() || act->get<bool>();
  c.project_id = project_id;
  c.files = model_files{std::move(listed)};
  // The experiment-creation actor records the experiment (paused when
  // activate is false) with its model definition pending, stores the
  // definition, then lets its trials be placed, and answers the id once
  // that is durable (actors/experiment_creation_actor.hpp).
  post(ctx->bridge, [ctx, res, c = std::move(c),
                     warnings](caf::event_based_actor* self) mutable {
    self->request(ctx->experiment_creation, caf::infinite, create_atom::value,
                  std::move(c))
        .then(
            [ctx, res, self, warnings](int64_t id) {
              ask_view(
                  ctx, self,
                  [id, warnings](const state::cluster_state& s, int64_t) {
                    auto j = experiment_response(s, id);
                    if (!j.is_null() && !warnings.empty())
                      j["warnings"] = warnings;
                    return j;
                  },
                  res,
                  [ctx, res](json j) { send_written(ctx, res, j.dump()); });
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

} // namespace

void create_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // Moved out of the body, never copied: it may be 95 MiB of base64, and
  // the merges below copy the body they carry.
  auto listed = std::make_shared<json>(json::array());
  if (auto m = body->find("modelDefinition"); m != body->end()) {
    if (!m->is_null())
      *listed = std::move(*m);
    body->erase(m);
  }
  // Invariant configs of config policies go over the template's result.
  auto with_policies = [ctx, req, res, listed](json b) {
    if (auto u = b.find("unmanaged");
        u != b.end() && u->is_boolean() && u->get<bool>())
      return create_experiment_with(ctx, req, res, std::move(b), listed);
    with_invariant_config(
        ctx, res, std::move(b), [ctx, req, res, listed](json m) {
          create_experiment_with(ctx, req, res, std::move(m), listed);
        });
  };
  auto t = body->find("template");
  if (t == body->end() || t->is_null())
    return with_policies(std::move(*body));
  apply_template(ctx, req, res, std::move(*body), with_policies);
}

/// PATCH /api/v1/experiments/{id}: name, description, notes, labels,
/// resources and GC counts (parse_experiment_edit checks them).
void edit_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  record_write(ctx, req, res, parse_experiment_edit(*id, *body),
               [ctx, res, id = *id](caf::event_based_actor* self, const json&) {
                 answer_experiment(ctx, self, res, id);
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

/// GET /api/v1/experiments/{id}: the config's secrets redacted unless the
/// caller is a live allocation of one of its trials (views.hpp).
void get_experiment(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  answer_by_id(ctx, req, res, "experiment",
               [alloc = req.principal.allocation_id](
                   const state::cluster_state& s, int64_t id) {
                 return experiment_response(s, id, alloc);
               });
}

void get_experiment_trials(const ctx_ptr& ctx, const http::http_request& req,
                           const responder& res) {
  answer_by_id(ctx, req, res, "experiment", &trials_response);
}

void pause_experiment(const ctx_ptr& ctx, const http::http_request& req,
                      const responder& res) {
  experiment_command<experiment_pause>(ctx, req, res);
}

void activate_experiment(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  experiment_command<experiment_activate>(ctx, req, res);
}

void kill_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res) {
  experiment_command<experiment_kill>(ctx, req, res);
}

void cancel_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  experiment_command<experiment_cancel>(ctx, req, res);
}

void delete_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  auto user = req.principal.username;
  send_command(
      ctx, res, experiment_delete{*id, user},
      [ctx, res, id = *id, user](caf::event_based_actor*, const json&) {
        log::info() << "experiment " << id << " deleted by '" << user << "'";
        send_written(ctx, res, "{}");
      });
}

void archive_experiment(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res) {
  set_archived(ctx, req, res, true);
}

void unarchive_experiment(const ctx_ptr& ctx, const http::http_request& req,
                          const responder& res) {
  set_archived(ctx, req, res, false);
}

} // namespace det::api
