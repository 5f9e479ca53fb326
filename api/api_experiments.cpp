#include "api/api_experiments.hpp"

#include "actors/master_actor.hpp"
#include "api/api_bridge.hpp"
#include "api/views.hpp"
#include "core/checkpoint_gc.hpp"
#include "core/log_retention.hpp"
#include "http/grpc_error.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <climits>
#include <set>

namespace det::api {

namespace {

using json = nlohmann::json;
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
        for (auto t : state::trials_of_experiment(s, id))
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

/// PUT /api/v1/experiments/{id}/retain_logs and
/// /api/v1/trials/{id}/retain_logs, body {"numDays": N}: decided on the
/// master's state, then recorded (refused if the state moved on).
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
  auto decided =
      std::make_shared<caf::expected<log_retention_set>>(log_retention_set{});
  std::optional<int64_t> trial_id;
  if (trial)
    trial_id = *id;
  state_view view{[decided, id = *id, trial_id, n = days->get<int64_t>(),
                   user = req.principal.username](const state::cluster_state& s,
                                                  int64_t now_us) {
    *decided = log_retention_change(s, id, trial_id, n, user, now_us);
    return std::string{};
  }};
  post(ctx->bridge, [ctx, res, view, decided](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, view_atom::value, view)
        .then(
            [ctx, res, self, decided](const std::string&) {
              if (!*decided)
                return fail(res, decided->error());
              event_batch batch;
              batch.events.emplace_back(std::move(**decided));
              self->request(ctx->master, ctx->request_timeout,
                            record_atom::value, std::move(batch))
                  .then([ctx,
                         res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                        [res](caf::error& err) { fail(res, err); });
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

} // namespace

void add_experiment_more_routes(http::router& r, ctx_ptr ctx) {
  r.put("/api/v1/experiments/{id}/retain_logs",
        [ctx](http::http_request req, responder res) {
          retain_logs(ctx, req, res, false);
        });
  r.put("/api/v1/trials/{trial_id}/retain_logs",
        [ctx](http::http_request req, responder res) {
          retain_logs(ctx, req, res, true);
        });
  r.del("/api/v1/experiments/{id}/tensorboard-files",
        [ctx](http::http_request req, responder res) {
          delete_tensorboard_files(ctx, req, res);
        });
  r.get("/experiments/{id}/preview_gc",
        [ctx](http::http_request req, responder res) {
          preview_gc(ctx, req, res);
        });
}

} // namespace det::api
