// Unmanaged experiments and trials, in upstream 0.38's shapes: what the
// SDK's core_v2 calls when a training script runs outside the cluster
// (`core_v2.init(config=...)` without a task): create or put the
// experiment (`unmanaged: true`), create or put a trial, start it, then
// heartbeats and state changes through PATCH /api/v1/trials/{id}. Metrics,
// checkpoints and logs come through the trial routes with the user's
// session (master_api.cpp, api_trials.cpp). The master decides every
// write (core/master_core_unmanaged.cpp); a trial's allocation token is
// never valid here.

#include "api/api_unmanaged.hpp"
#include "api/api_records.hpp"
#include "api/views.hpp"
#include "conf/experiment_config.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "state/queries.hpp"
#include "util/text.hpp"

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

const util::text_rules external_id_rules{255, false, false};

/// A user's session, not a trial's allocation token; else answers 403.
bool user_session(const http::http_request& req, const responder& res) {
  if (req.principal.allocation_id.empty())
    return true;
  res.send_error(grpc_code::permission_denied,
                 "a trial's allocation token is not valid for unmanaged "
                 "experiments and trials");
  return false;
}

/// `unmanaged` of a create request: must be true.
bool unmanaged_flag(const json& body, const responder& res, const char* what) {
  auto u = body.find("unmanaged");
  if (u != body.end() && !u->is_null() && !u->is_boolean()) {
    res.send_error(grpc_code::invalid_argument,
                   "unmanaged: expected true or false");
    return false;
  }
  if (u == body.end() || !u->is_boolean() || !u->get<bool>()) {
    res.send_error(grpc_code::invalid_argument,
                   std::string{"only unmanaged "} + what + " are supported");
    return false;
  }
  return true;
}

/// An external id (path or body), checked, or answers 400 naming `field`.
std::optional<std::string>
external_id(const std::string& v, const responder& res, const char* field) {
  if (v.empty()) {
    res.send_error(grpc_code::invalid_argument,
                   std::string{field} + ": required");
    return std::nullopt;
  }
  if (auto why = util::text_problem(v, external_id_rules); !why.empty()) {
    res.send_error(grpc_code::invalid_argument, std::string{field} + " " + why);
    return std::nullopt;
  }
  return v;
}

render_fn trial_view(int64_t id) {
  return [id](const state::cluster_state& s, int64_t) -> json {
    auto t = state::find_listed_trial(s, id);
    if (t == nullptr)
      return nullptr;
    return {{"trial", trial_json(s, *t)}};
  };
}

/// POST /api/v1/trials and PUT /api/v1/trials: `create` is a
/// v1CreateTrialRequest; `ext` the external trial id ("" for none).
void create_trial(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, const json& create,
                  const std::string& ext) {
  if (!create.is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "createTrialRequest: expected an object");
  if (!unmanaged_flag(create, res, "trials"))
    return;
  auto exp = create.find("experimentId");
  if (exp == create.end() || !exp->is_number_integer()
      || exp->get<int64_t>() < 1)
    return res.send_error(grpc_code::invalid_argument,
                          "experimentId: required, a positive integer");
  auto hp = get_field_or(create, "hparams", json());
  if (!hp.is_null() && !hp.is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "hparams: expected an object");
  json args{{"experimentId", *exp},
            {"hparams", hp.is_null() ? json::object() : hp}};
  if (!ext.empty())
    args["externalTrialId"] = ext;
  record_write_then_view(
      ctx, req, res, parse_unmanaged_trial_open(args),
      [](const json& reply) { return trial_view(reply.value("trial_id", 0)); });
}

} // namespace

void create_unmanaged_experiment(const ctx_ptr& ctx,
                                 const http::http_request& req,
                                 const responder& res, const json& body,
                                 const std::string& external) {
  if (!user_session(req, res) || !unmanaged_flag(body, res, "experiments"))
    return;
  if (auto p = body.find("parentId");
      p != body.end() && !p->is_null() && *p != 0)
    return res.send_error(grpc_code::invalid_argument,
                          "parentId: can't fork into an unmanaged experiment");
  auto cfg_field = body.find("config");
  if (cfg_field != body.end() && !cfg_field->is_string()
      && !cfg_field->is_null())
    return res.send_error(grpc_code::invalid_argument,
                          "config: expected the configuration as a YAML "
                          "string");
  auto defaults = ctx->experiment_defaults;
  defaults.unmanaged = true;
  auto cfg = conf::parse_experiment_config(cfg_field != body.end()
                                                   && cfg_field->is_string()
                                               ? cfg_field->get<std::string>()
                                               : std::string{},
                                           defaults);
  if (!cfg)
    return fail(res, cfg.error());
  int64_t project_id = 0;
  if (auto p = body.find("projectId"); p != body.end() && !p->is_null()) {
    if (!p->is_number_integer() || p->get<int64_t>() < 1)
      return res.send_error(grpc_code::invalid_argument,
                            "projectId: expected a positive integer");
    project_id = p->get<int64_t>();
  }
  if (get_field_or(body, "validateOnly", false))
    return res.send_json(R"({"experiment":{}})");
  json args{{"config", cfg->filled}};
  if (!external.empty())
    args["externalExperimentId"] = external;
  if (project_id > 0)
    args["projectId"] = project_id;
  record_write_then_view(ctx, req, res, parse_unmanaged_experiment_open(args),
                         [](const json& reply) -> render_fn {
                           auto id = reply.value("experiment_id", int64_t{0});
                           return [id](const state::cluster_state& s, int64_t) {
                             return experiment_response(s, id);
                           };
                         });
}

void put_experiment_by_external_id(const ctx_ptr& ctx,
                                   const http::http_request& req,
                                   const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto ext = external_id(req.param("external_id"), res, "externalExperimentId");
  if (ext)
    create_unmanaged_experiment(ctx, req, res, *body, *ext);
}

void create_trial_route(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res) {
  auto body = json_body(req, res);
  if (body && user_session(req, res))
    create_trial(ctx, req, res, *body, "");
}

void put_trial(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  auto body = json_body(req, res);
  if (!body || !user_session(req, res))
    return;
  auto ext = external_id(get_field_or(*body, "externalTrialId", std::string{}),
                         res, "externalTrialId");
  if (ext)
    create_trial(ctx, req, res,
                 get_field_or(*body, "createTrialRequest", json::object()),
                 *ext);
}

void start_trial(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  auto id = id_param(req, res, "trial_id");
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body || !user_session(req, res))
    return;
  auto resume = get_field_or(*body, "resume", json(false));
  if (!resume.is_boolean())
    return res.send_error(grpc_code::invalid_argument,
                          "resume: expected true or false");
  record_write(
      ctx, req, res,
      parse_unmanaged_trial_start({{"trialId", *id}, {"resume", resume}}),
      [ctx, res](caf::event_based_actor*, json reply) {
        send_written(ctx, res, reply.dump());
      });
}

void patch_trial(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  auto id = id_param(req, res, "trial_id");
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body || !user_session(req, res))
    return;
  json args{{"trialId", *id}};
  if (auto s = body->find("state"); s != body->end() && !s->is_null())
    args["state"] = *s;
  record_write_then_view(ctx, req, res, parse_unmanaged_trial_patch(args),
                         [id = *id](const json&) { return trial_view(id); });
}

} // namespace det::api
