#include "api/api_experiments.hpp"

#include "actors/master_actor.hpp"
#include "api/api_auth.hpp"
#include "api/api_bridge.hpp"
#include "api/route_table.hpp"
#include "api/trial_logs.hpp"
#include "api/views.hpp"
#include "conf/yaml_tree.hpp"
#include "core/checkpoint_gc.hpp"
#include "core/log_retention.hpp"
#include "http/grpc_error.hpp"
#include "policy/search_preview.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <climits>
#include <set>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

/// The checkpoint as upstream's legacy Go struct renders it.
json preview_checkpoint(const state::trial_info& t,
                        const state::checkpoint_info& c,
                        const std::string& metric) {
  json resources = json::object();
  if (auto r = c.metadata.find("resources");
      r != c.metadata.end() && r->is_object())
    resources = *r;
  json out{{"TrialID", t.id},
           {"StepsCompleted", c.steps_completed},
           {"State", "COMPLETED"},
           {"UUID", c.uuid},
           {"ReportTime", rfc3339(c.at_us)},
           {"Resources", std::move(resources)},
           {"ValidationMetrics", json::object()}};
  if (c.searcher_metric) {
    out["ValidationMetrics"] = {{metric, *c.searcher_metric}};
    out["step"] = {{"validation", {{"metrics", out["ValidationMetrics"]}}}};
  }
  return out;
}

} // namespace

/// GET /experiments/{id}/preview_gc?save_experiment_best=N&... (a legacy
/// route, outside /api/v1, as upstream serves it).
void preview_gc(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  // Each count as the query gives it (whole numbers from 0), else the
  // experiment's own.
  std::map<std::string, int64_t> asked;
  for (const char* key :
       {"save_experiment_best", "save_trial_best", "save_trial_latest"}) {
    auto v = req.query.get(key);
    if (!v)
      continue;
    auto n = v->empty() ? std::nullopt : positive_id(*v);
    if (*v == "0")
      n = 0;
    if (!n || *n > INT32_MAX)
      return res.send_error(grpc_code::invalid_argument,
                            std::string{key}
                                + ": expected a whole number from 0, not '"
                                + v->substr(0, 32) + "'");
    asked[key] = *n;
  }
  answer_view(
      ctx, req, res,
      [id = *id, asked](const state::cluster_state& s, int64_t) -> json {
        auto e = state::find_experiment(s, id);
        if (e == nullptr)
          return nullptr;
        auto p = gc_policy_of(*e);
        auto set = [&asked](const char* key, int64_t& field) {
          if (auto a = asked.find(key); a != asked.end())
            field = a->second;
        };
        set("save_experiment_best", p.save_experiment_best);
        set("save_trial_best", p.save_trial_best);
        set("save_trial_latest", p.save_trial_latest);
        auto doomed = checkpoints_policy_deletes(s, *e, p);
        std::set<std::string> chosen(doomed.begin(), doomed.end());
        auto metric = e->config.value("searcher", json::object())
                          .value("metric", std::string{});
        json checkpoints = json::array();
        for (auto t : state::listed_trials_of(s, id))
          for (const auto& c : t->checkpoints)
            if (chosen.count(c.uuid) != 0)
              checkpoints.push_back(preview_checkpoint(*t, c, metric));
        return json{{"checkpoints", std::move(checkpoints)},
                    {"metric_name", metric}};
      },
      "experiment " + std::to_string(*id) + " not found");
}

/// DELETE /api/v1/experiments/{id}/tensorboard-files (`det experiment
/// delete-tb-files`): answers once the files are gone (none is fine).
void delete_tensorboard_files(const ctx_ptr& ctx, const http::http_request& req,
                              const responder& res) {
  auto id = id_param(req, res);
  if (!id)
    return;
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not delete TensorBoard files");
  if (!ctx->delete_tensorboard_files)
    return res.send_error(grpc_code::unavailable,
                          "this master cannot delete TensorBoard files");
  post(ctx->bridge, [ctx, res, id = *id](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [id](const state::cluster_state& s, int64_t) -> json {
          auto e = state::find_experiment(s, id);
          if (e == nullptr)
            return nullptr;
          return e->config.value("checkpoint_storage", json::object());
        },
        res,
        [ctx, res, id](json storage) {
          if (storage.is_null())
            return res.send_error(grpc_code::not_found, "experiment "
                                                            + std::to_string(id)
                                                            + " not found");
          ctx->delete_tensorboard_files(
              id, std::move(storage), [res, id](const std::string& why) {
                if (!why.empty())
                  return res.send_error(grpc_code::internal,
                                        "deleting the TensorBoard files of "
                                        "experiment "
                                            + std::to_string(id) + ": " + why);
                log::info()
                    << "experiment " << id << ": TensorBoard files deleted";
                res.send_json("{}");
              });
        });
  });
}

namespace {

/// PUT /api/v1/experiments/{id}/retain_logs and
/// /api/v1/trials/{id}/retain_logs, body {"numDays": N}: decided on the
/// master's state and recorded in the same turn.
void retain_logs(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res, bool trial) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not change log retention");
  auto id = id_param(req, res, trial ? "trial_id" : "id");
  auto body = id ? json_body(req, res) : std::nullopt;
  if (!body)
    return;
  auto days = body->find("numDays");
  if (days == body->end() || !days->is_number_integer())
    return res.send_error(grpc_code::invalid_argument,
                          "numDays: expected a whole number of days (-1 = "
                          "for ever)");
  std::optional<int64_t> trial_id;
  if (trial)
    trial_id = *id;
  command_and_answer(ctx, res,
                     det::retain_logs{*id, trial_id, days->get<int64_t>(),
                                      req.principal.username});
}

} // namespace

void retain_trial_logs(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  retain_logs(ctx, req, res, true);
}

void retain_experiment_logs(const ctx_ptr& ctx, const http::http_request& req,
                            const responder& res) {
  retain_logs(ctx, req, res, false);
}

/// POST /api/v1/preview-hp-search {"config": {...}} (`det preview-search`):
/// the searcher's plan for the config, run on simulated trials.
void preview_hp_search(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto config = body->value("config", json());
  if (config.is_string()) // the YAML text, as CreateExperiment takes it
    return res.send_error(grpc_code::invalid_argument,
                          "config: expected the config as an object");
  if (!config.is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "config: expected an object with a searcher");
  uint64_t seed = 0;
  if (auto r = config.find("reproducibility");
      r != config.end() && r->is_object())
    if (auto v = r->find("experiment_seed");
        v != r->end() && v->is_number_unsigned())
      seed = v->get<uint64_t>();
  // Bounded (policy::preview_search caps its steps); off the I/O thread.
  post(ctx->bridge,
       [res, config = std::move(config), seed](caf::event_based_actor*) {
         auto summary = policy::preview_search(config, seed);
         if (!summary)
           return fail(res, summary.error());
         res.send_json(json{{"summary", std::move(*summary)}}.dump());
       });
}

/// POST /api/v1/experiments/continue {"id", "overrideConfig": YAML text}
/// (`det experiment continue`): the override merged over the experiment's
/// config is validated as a submission here; master_core::
/// continue_experiment decides the rest against the master's state.
void continue_experiment(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto idf = body->find("id");
  if (idf == body->end() || !idf->is_number_integer()
      || idf->get<int64_t>() < 1)
    return res.send_error(grpc_code::invalid_argument,
                          "id: expected a positive experiment id");
  auto id = idf->get<int64_t>();
  auto text = body->find("overrideConfig");
  if (text != body->end() && !text->is_null() && !text->is_string())
    return res.send_error(grpc_code::invalid_argument,
                          "overrideConfig: expected the config as YAML text");
  auto over = json::object();
  if (text != body->end() && text->is_string()) {
    auto tree = conf::parse_tree(text->get<std::string>());
    if (!tree)
      return res.send_error(grpc_code::invalid_argument,
                            "overrideConfig: " + render(tree.error()));
    if (!tree->is_null() && !tree->is_object())
      return res.send_error(grpc_code::invalid_argument,
                            "overrideConfig: expected a mapping of config "
                            "fields");
    if (tree->is_object())
      over = std::move(*tree);
  }
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not continue an experiment");
  post(ctx->bridge, [ctx, res, id, over, user = req.principal.username](
                        caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [id](const state::cluster_state& s, int64_t) -> json {
          auto e = state::find_experiment(s, id);
          return e == nullptr ? json{} : e->config;
        },
        res,
        [ctx, res, self, id, over, user](json config) {
          if (config.is_null())
            return res.send_error(grpc_code::not_found, "experiment "
                                                            + std::to_string(id)
                                                            + " not found");
          if (!over.empty()) {
            config.merge_patch(over);
            auto checked = conf::parse_experiment_tree(
                std::move(config), ctx->experiment_defaults);
            if (!checked)
              return fail(res, checked.error());
          }
          self->request(ctx->master, ctx->request_timeout,
                        command{experiment_continue{id, over, user}})
              .then(
                  [ctx, res, self, id](const std::string&) {
                    ask_view(
                        ctx, self,
                        [id](const state::cluster_state& s, int64_t) {
                          auto j = experiment_response(s, id);
                          return j.is_null()
                                     ? j
                                     : json{{"experiment", j["experiment"]}};
                        },
                        res,
                        [ctx, res](json j) {
                          send_written(ctx, res, j.dump());
                        });
                  },
                  [res](caf::error& err) { fail(res, err); });
        });
  });
}

/// POST /api/v1/cleanup_logs (`det task cleanup-logs`, admins: the route
/// table checks): drops now the logs of every ended trial past its
/// retention, as the collector's tick would; answers the count of lines
/// dropped.
void cleanup_logs(const ctx_ptr& ctx, const http::http_request&,
                  const responder& res) {
  post(ctx->bridge, [ctx, res](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [](const state::cluster_state& s, int64_t now_us) -> json {
          return trials_with_expired_logs(s, now_us);
        },
        res,
        [ctx, res](json ids) {
          size_t removed = 0;
          if (ctx->logs && ids.is_array())
            removed = ctx->logs->erase(ids.get<std::vector<int64_t>>());
          log::info() << "cleanup_logs: " << removed << " log lines of "
                      << ids.size() << " trial(s) past their retention";
          res.send_json(json{{"removedCount", std::to_string(removed)}}.dump());
        });
  });
}

} // namespace det::api
