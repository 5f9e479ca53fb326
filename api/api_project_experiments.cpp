#include "api/api_project_experiments.hpp"

#include "api/api_bridge.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "messages/atoms.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

enum class bulk_action {
  pause,
  activate,
  cancel,
  kill,
  archive,
  unarchive,
  remove
};

/// What a bulk request selects: ids, or filters (then the ids are ignored).
struct bulk_selection {
  std::vector<int64_t> ids;
  bool filtered = false;
  std::string name;
  std::string description;
  std::vector<std::string> labels;
  std::optional<bool> archived;
  std::set<std::string> states; // STATE_ACTIVE, ...
  std::set<int64_t> user_ids;
  int64_t project_id = 0;
  std::set<int64_t> excluded;
};

/// The states an action applies to when its filters name none.
std::set<std::string> default_states(bulk_action a) {
  switch (a) {
  case bulk_action::pause:
    return {"STATE_ACTIVE"};
  case bulk_action::activate:
    return {"STATE_PAUSED"};
  case bulk_action::cancel:
  case bulk_action::kill:
    return {"STATE_ACTIVE",
            "STATE_PAUSED",
            "STATE_STOPPING_COMPLETED",
            "STATE_STOPPING_CANCELED",
            "STATE_STOPPING_KILLED",
            "STATE_STOPPING_ERROR"};
  case bulk_action::archive:
  case bulk_action::remove:
    return {"STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR"};
  case bulk_action::unarchive:
    return {};
  }
  return {};
}

/// Reads a list of positive ids at `key` of `j`; "" or the problem.
std::string read_ids(const json& j, const char* key, std::vector<int64_t>& out,
                     const std::string& path) {
  auto v = j.find(key);
  if (v == j.end() || v->is_null())
    return {};
  if (!v->is_array() || v->size() > 100000)
    return path + ": expected a list of ids";
  for (const auto& x : *v) {
    if (!x.is_number_integer() || x.get<int64_t>() < 1)
      return path + ": expected positive ids, got "
             + util::printable_excerpt(x.dump(), 40);
    out.push_back(x.get<int64_t>());
  }
  return {};
}

std::string read_text(const json& j, const char* key, std::string& out) {
  auto v = j.find(key);
  if (v == j.end() || v->is_null())
    return {};
  if (!v->is_string())
    return std::string{"filters."} + key + ": expected a string";
  out = v->get<std::string>();
  if (out.size() > 1024)
    return std::string{"filters."} + key + ": at most 1024 bytes";
  return {};
}

/// The request's selection, or the problem naming the field.
std::string read_selection(const json& body, bulk_action a, bulk_selection& s) {
  if (auto why = read_ids(body, "experimentIds", s.ids, "experimentIds");
      !why.empty())
    return why;
  auto f = body.find("filters");
  if (f == body.end() || f->is_null())
    return {};
  if (!f->is_object())
    return "filters: expected an object";
  s.filtered = true;
  std::vector<int64_t> excluded, users;
  for (auto [key, out] : {std::pair{"excludedExperimentIds", &excluded},
                          std::pair{"userIds", &users}})
    if (auto why = read_ids(*f, key, *out, std::string{"filters."} + key);
        !why.empty())
      return why;
  s.excluded.insert(excluded.begin(), excluded.end());
  s.user_ids.insert(users.begin(), users.end());
  if (auto why = read_text(*f, "name", s.name); !why.empty())
    return why;
  if (auto why = read_text(*f, "description", s.description); !why.empty())
    return why;
  if (auto l = f->find("labels"); l != f->end() && !l->is_null()) {
    if (!l->is_array() || l->size() > 1000)
      return "filters.labels: expected a list of labels";
    for (const auto& x : *l) {
      if (!x.is_string())
        return "filters.labels: expected strings";
      s.labels.push_back(x.get<std::string>());
    }
  }
  if (auto v = f->find("archived"); v != f->end() && !v->is_null()) {
    if (!v->is_boolean())
      return "filters.archived: expected true or false";
    s.archived = v->get<bool>();
  }
  if (auto v = f->find("projectId"); v != f->end() && !v->is_null()) {
    if (!v->is_number_integer())
      return "filters.projectId: expected an integer";
    s.project_id = v->get<int64_t>();
  }
  if (auto v = f->find("states"); v != f->end() && !v->is_null()) {
    if (!v->is_array())
      return "filters.states: expected a list of states";
    for (const auto& x : *v) {
      state::experiment_status st{};
      if (!x.is_string() || !util::starts_with(x.get<std::string>(), "STATE_")
          || !state::from_string(x.get<std::string>().substr(6), st))
        return "filters.states: unknown state "
               + util::printable_excerpt(x.dump(), 40);
      s.states.insert(x.get<std::string>());
    }
  }
  if (s.states.empty())
    s.states = default_states(a);
  return {};
}

bool contains_folded(const std::string& text, const std::string& part) {
  return util::to_lower(text).find(util::to_lower(part)) != std::string::npos;
}

/// Whether experiment `e` is one the filters select.
bool selected(const state::cluster_state& s, const state::experiment_info& e,
              const bulk_selection& sel) {
  if (sel.excluded.count(e.id) != 0)
    return false;
  const auto& c = e.config;
  if (!sel.name.empty()
      && !contains_folded(c.value("name", std::string{}), sel.name))
    return false;
  if (!sel.description.empty()
      && !contains_folded(c.value("description", std::string{}),
                          sel.description))
    return false;
  if (!sel.labels.empty()) {
    auto have = c.value("labels", json::array());
    for (const auto& l : sel.labels)
      if (std::find(have.begin(), have.end(), json(l)) == have.end())
        return false;
  }
  if (sel.archived && e.archived != *sel.archived)
    return false;
  if (!sel.states.empty()
      && sel.states.count(experiment_state_name(e.status)) == 0)
    return false;
  if (!sel.user_ids.empty()) {
    auto u = s.users.find(e.owner);
    if (u == s.users.end() || sel.user_ids.count(u->second.id) == 0)
      return false;
  }
  return sel.project_id == 0 || e.project_id == sel.project_id;
}

/// {"ids": [...], "missing": [...]}: the experiments the action applies
/// to, and the named ones it does not find.
json select_experiments(const state::cluster_state& s,
                        const bulk_selection& sel, int64_t project_id,
                        bulk_action a) {
  auto in_scope = [&](const state::experiment_info& e) {
    if (project_id > 0 && e.project_id != project_id)
      return false;
    return a == bulk_action::unarchive || !e.archived;
  };
  json ids = json::array();
  json missing = json::array();
  if (sel.filtered) {
    for (const auto& [id, e] : s.experiments)
      if (in_scope(e) && selected(s, e, sel))
        ids.push_back(id);
  } else {
    for (auto id : sel.ids) {
      auto e = state::find_experiment(s, id);
      if (e != nullptr && in_scope(*e))
        ids.push_back(id);
      else
        missing.push_back(id);
    }
  }
  return {{"ids", std::move(ids)}, {"missing", std::move(missing)}};
}

/// One bulk request's progress on the bridge.
struct bulk_run {
  bulk_action action;
  std::string user;
  std::vector<int64_t> ids;
  size_t next = 0;
  json results = json::array();
};

void ask_next(const ctx_ptr& ctx, caf::event_based_actor* self,
              std::shared_ptr<bulk_run> run, const responder& res) {
  if (run->next == run->ids.size()) {
    send_written(ctx, res, json{{"results", run->results}}.dump());
    return;
  }
  auto id = run->ids[run->next++];
  auto done = [ctx, self, run, res, id](const std::string&) {
    run->results.push_back({{"error", ""}, {"id", id}});
    ask_next(ctx, self, run, res);
  };
  auto refused = [ctx, self, run, res, id](caf::error& err) {
    run->results.push_back({{"error", render(err)}, {"id", id}});
    ask_next(ctx, self, run, res);
  };
  auto c = [&]() -> command {
    switch (run->action) {
    case bulk_action::pause:
      return experiment_pause{id};
    case bulk_action::activate:
      return experiment_activate{id};
    case bulk_action::cancel:
      return experiment_cancel{id};
    case bulk_action::kill:
      return experiment_kill{id};
    case bulk_action::archive:
    case bulk_action::unarchive:
      return experiment_archive{id, run->action == bulk_action::archive,
                                run->user};
    case bulk_action::remove:
      break;
    }
    return experiment_delete{id, run->user};
  }();
  self->request(ctx->master, ctx->request_timeout, std::move(c))
      .then(done, refused);
}

void bulk_route(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res, bulk_action action) {
  auto project = positive_id(req.param("projectId"));
  auto raw = req.param("projectId");
  int64_t project_id = project ? *project : 0;
  if (!project && raw != "-1" && raw != "0")
    return res.send_error(grpc_code::invalid_argument,
                          "projectId: expected a project id (or -1 for all)");
  auto body = json_body(req, res);
  if (!body)
    return;
  auto sel = std::make_shared<bulk_selection>();
  if (auto why = read_selection(*body, action, *sel); !why.empty())
    return res.send_error(grpc_code::invalid_argument, why);
  auto user = req.principal.username;
  post(ctx->bridge,
       [ctx, res, sel, project_id, action, user](caf::event_based_actor* self) {
         ask_view(
             ctx, self,
             [sel, project_id, action](const state::cluster_state& s, int64_t) {
               return select_experiments(s, *sel, project_id, action);
             },
             res,
             [ctx, res, self, action, user](json picked) {
               auto run = std::make_shared<bulk_run>();
               run->action = action;
               run->user = user;
               for (const auto& id : picked["missing"])
                 run->results.push_back(
                     {{"error", "experiment " + id.dump() + " not found"},
                      {"id", id}});
               for (const auto& id : picked["ids"])
                 run->ids.push_back(id.get<int64_t>());
               ask_next(ctx, self, run, res);
             });
       });
}

// -- columns and ranges -------------------------------------------------------

json column(const std::string& name, const char* display, const char* location,
            const char* type) {
  json c{{"column", name}, {"location", location}, {"type", type}};
  if (display != nullptr)
    c["displayName"] = display;
  return c;
}

/// "hp.<path>" of every leaf of a declared hyperparameter space (empty
/// nested ones show no column, as upstream's).
void hparam_columns(const json& space, const std::string& prefix,
                    std::map<std::string, const char*>& out) {
  if (!space.is_object())
    return;
  for (const auto& [k, v] : space.items()) {
    auto name = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object() && !v.contains("type")) {
      hparam_columns(v, name, out);
      continue;
    }
    const char* type = "COLUMN_TYPE_NUMBER";
    auto t = v.is_object() ? v.value("type", std::string{}) : std::string{};
    auto val = v.is_object() ? v.value("val", json()) : v;
    if (t == "categorical" || ((t.empty() || t == "const") && !val.is_number()))
      type = "COLUMN_TYPE_TEXT";
    out.emplace("hp." + name, type);
  }
}

/// Calls `metric(group, name, value)` for each metric of the latest
/// training and validation reports of the project's trials, and
/// `trial(t)` once per trial.
void each_latest_metric(
    const state::cluster_state& s, int64_t project_id,
    const std::function<void(const char*, const std::string&, const json&)>&
        metric,
    const std::function<void(const state::trial_info&)>& trial = {}) {
  for (const auto& [id, e] : s.experiments) {
    if (e.project_id != project_id)
      continue;
    for (auto tid : e.trial_ids) {
      auto t = state::find_trial(s, tid);
      if (t == nullptr)
        continue;
      for (auto [group, latest] :
           {std::pair{"training", &t->metrics.latest_training},
            std::pair{"validation", &t->metrics.latest_validation}})
        if (latest->is_object())
          for (const auto& [k, v] : latest->items())
            metric(group, k, v);
      if (trial)
        trial(*t);
    }
  }
}

json project_columns(const state::cluster_state& s, int64_t project_id) {
  if (!state::find_project(s, project_id))
    return nullptr;
  json cols = json::array();
  const char* exp = "LOCATION_TYPE_EXPERIMENT";
  for (auto [name, display, type] :
       std::initializer_list<std::tuple<const char*, const char*, const char*>>{
           {"id", "ID", "COLUMN_TYPE_NUMBER"},
           {"name", "Name", "COLUMN_TYPE_TEXT"},
           {"description", "Description", "COLUMN_TYPE_TEXT"},
           {"tags", "Tags", "COLUMN_TYPE_TEXT"},
           {"forkedFrom", "Forked", "COLUMN_TYPE_NUMBER"},
           {"startTime", "Start time", "COLUMN_TYPE_DATE"},
           {"duration", "Duration", "COLUMN_TYPE_NUMBER"},
           {"numTrials", "Trial count", "COLUMN_TYPE_NUMBER"},
           {"state", "State", "COLUMN_TYPE_TEXT"},
           {"searcherType", "Searcher", "COLUMN_TYPE_TEXT"},
           {"resourcePool", "Resource pool", "COLUMN_TYPE_TEXT"},
           {"progress", "Progress", "COLUMN_TYPE_NUMBER"},
           {"checkpointSize", "Checkpoint size", "COLUMN_TYPE_NUMBER"},
           {"checkpointCount", "Checkpoints", "COLUMN_TYPE_NUMBER"},
           {"user", "User", "COLUMN_TYPE_TEXT"},
           {"searcherMetric", "Searcher Metric", "COLUMN_TYPE_TEXT"},
           {"searcherMetricsVal", "Searcher Metric Value",
            "COLUMN_TYPE_NUMBER"},
           {"externalExperimentId", "External Experiment ID",
            "COLUMN_TYPE_TEXT"},
           {"externalTrialId", "External Trial ID", "COLUMN_TYPE_TEXT"},
           {"archived", "Archived", "COLUMN_TYPE_UNSPECIFIED"}})
    cols.push_back(column(name, display, exp, type));
  std::map<std::string, const char*> hps;
  // group -> metric -> is a number
  std::map<std::string, std::map<std::string, bool>> metrics;
  for (const auto& [id, e] : s.experiments)
    if (e.project_id == project_id)
      hparam_columns(e.config.value("hyperparameters", json::object()), "",
                     hps);
  each_latest_metric(
      s, project_id,
      [&](const char* group, const std::string& name, const json& v) {
        metrics[group][name] |= v.is_number();
      });
  for (const auto& [group, names] : metrics) {
    const char* location = group == "training" ? "LOCATION_TYPE_TRAINING"
                                               : "LOCATION_TYPE_VALIDATIONS";
    for (const auto& [name, numeric] : names) {
      auto base = group + "." + name + ".";
      if (!numeric) {
        cols.push_back(
            column(base + "last", nullptr, location, "COLUMN_TYPE_TEXT"));
        continue;
      }
      for (const char* agg : {"max", "min", "mean", "last"})
        cols.push_back(
            column(base + agg, nullptr, location, "COLUMN_TYPE_NUMBER"));
    }
  }
  for (const auto& [name, type] : hps)
    cols.push_back(
        column(name, nullptr, "LOCATION_TYPE_HYPERPARAMETERS", type));
  return {{"columns", std::move(cols)}};
}

json metric_ranges(const state::cluster_state& s, int64_t project_id) {
  if (!state::find_project(s, project_id))
    return nullptr;
  std::map<std::string, std::pair<double, double>> ranges;
  auto see = [&](const std::string& name, double v) {
    auto [it, fresh] = ranges.emplace(name, std::pair{v, v});
    if (!fresh) {
      it->second.first = std::min(it->second.first, v);
      it->second.second = std::max(it->second.second, v);
    }
  };
  each_latest_metric(
      s, project_id,
      [&](const char* group, const std::string& name, const json& v) {
        if (v.is_number())
          see(std::string{group} + "." + name, v.get<double>());
      },
      [&](const state::trial_info& t) {
        if (t.metrics.best_validation)
          see("searcherMetricsVal", *t.metrics.best_validation);
      });
  json out = json::array();
  for (const auto& [name, r] : ranges)
    out.push_back({{"metricsName", name}, {"min", r.first}, {"max", r.second}});
  return {{"ranges", std::move(out)}};
}

void project_view(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res,
                  json (*fn)(const state::cluster_state&, int64_t)) {
  auto id = id_param(req, res);
  if (!id)
    return;
  post(ctx->bridge, [ctx, res, fn, id = *id](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [fn, id](const state::cluster_state& s, int64_t) { return fn(s, id); },
        res,
        [res, id](json j) {
          if (j.is_null())
            return res.send_error(grpc_code::not_found, "project "
                                                            + std::to_string(id)
                                                            + " not found");
          res.send(http::http_response::json(200, j.dump()));
        });
  });
}

} // namespace

void pause_project_experiments(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const responder& res) {
  bulk_route(ctx, req, res, bulk_action::pause);
}

void activate_project_experiments(const ctx_ptr& ctx,
                                  const http::http_request& req,
                                  const responder& res) {
  bulk_route(ctx, req, res, bulk_action::activate);
}

void cancel_project_experiments(const ctx_ptr& ctx,
                                const http::http_request& req,
                                const responder& res) {
  bulk_route(ctx, req, res, bulk_action::cancel);
}

void kill_project_experiments(const ctx_ptr& ctx, const http::http_request& req,
                              const responder& res) {
  bulk_route(ctx, req, res, bulk_action::kill);
}

void archive_project_experiments(const ctx_ptr& ctx,
                                 const http::http_request& req,
                                 const responder& res) {
  bulk_route(ctx, req, res, bulk_action::archive);
}

void unarchive_project_experiments(const ctx_ptr& ctx,
                                   const http::http_request& req,
                                   const responder& res) {
  bulk_route(ctx, req, res, bulk_action::unarchive);
}

void delete_project_experiments(const ctx_ptr& ctx,
                                const http::http_request& req,
                                const responder& res) {
  bulk_route(ctx, req, res, bulk_action::remove);
}

void get_project_columns(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  project_view(ctx, req, res, project_columns);
}

void get_project_metric_ranges(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const responder& res) {
  project_view(ctx, req, res, metric_ranges);
}

} // namespace det::api
