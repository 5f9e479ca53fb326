// Upstream 0.38's Runs API, as the WebUI's run table calls it: a run is a
// trial. POST /api/v1/runs searches them (a page, sorted, archived ones
// left out unless asked for); kill, pause, resume and move act on several
// at once and answer one result per run: an empty error when it was done,
// else why not, the others acted on all the same.
//
// What each action does is upstream's: kill kills the run's trial (an
// ended one counts as done); pause and resume pause and activate the
// run's experiment, so only runs of a single-trial search qualify; move
// moves the runs' experiments to the destination project (a run of a
// multi-trial search takes its siblings along unless skipMultitrial).
//
// The filter upstream's table sends is JSON text, {"filterGroup": {...},
// "showArchived": bool}: its conditions are read/run_filter.hpp's, over
// the same flat run JSON the search answers, so an action takes exactly
// the runs a search with that filter lists.
//
// archive, unarchive and delete act on ended runs (delete: of ended
// experiments). Which runs qualify, and the acts on them, the master
// decides in one command (runs_act, core/master_core_runs.cpp) on its own
// state; the route reads the request, and resolves a filter to the runs a
// search with it lists.

#include "api/run_routes.hpp"

#include "api/api_trials.hpp"

#include "api/run_requests.hpp"
#include "api/run_rows.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "read/run_filter.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

/// The most sort columns a search may give.
constexpr size_t max_sort_columns = 16;

// -- search -------------------------------------------------------------------

/// One column of a sort: a key of a run's JSON and its direction.
struct run_sort_key {
  read::run_column get = nullptr;
  bool descending = false;
};

/// upstream's sort text, "col=asc,col2=desc", over the run columns of
/// read/run_filter.hpp.
bool parse_sort(const std::string& text, const responder& res,
                std::vector<run_sort_key>& out) {
  size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    auto part = text.substr(start, end == std::string::npos ? std::string::npos
                                                            : end - start);
    auto eq = part.find('=');
    auto dir = eq == std::string::npos ? std::string{} : part.substr(eq + 1);
    if (eq == std::string::npos || (dir != "asc" && dir != "desc"))
      return refuse(res, "sort",
                    "expected column=asc or column=desc, got '"
                        + part.substr(0, 64) + "'");
    auto col = read::find_run_column(part.substr(0, eq));
    if (col == nullptr)
      return refuse(res, "sort",
                    "column '" + part.substr(0, std::min<size_t>(eq, 64))
                        + "' is not supported");
    if (out.size() == max_sort_columns)
      return refuse(res, "sort",
                    "at most " + std::to_string(max_sort_columns) + " columns");
    out.push_back({col, dir == "desc"});
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return true;
}

void search_runs(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  run_request r;
  if (!id_field(*body, "projectId", false, res, r.project_id)
      || !parse_filter(*body, res, r))
    return;
  page pg;
  for (auto [key, dst] :
       {std::pair{"offset", &pg.offset}, std::pair{"limit", &pg.limit}}) {
    auto it = body->find(key);
    if (it == body->end() || it->is_null())
      continue;
    if (!it->is_number_integer() || it->get<int64_t>() < 0)
      return void(refuse(res, key, "expected a whole number, 0 or more"));
    *dst = it->get<int64_t>();
  }
  std::vector<run_sort_key> keys;
  if (auto s = body->find("sort"); s != body->end() && !s->is_null()) {
    if (!s->is_string())
      return void(refuse(res, "sort", "expected text"));
    if (!s->get<std::string>().empty()
        && !parse_sort(s->get<std::string>(), res, keys))
      return;
  }
  answer_view(
      ctx, req, res,
      [r, pg, keys, clock = ctx->wall_clock_us](const state::cluster_state& s,
                                                int64_t) -> json {
        if (r.project_id != 0 && !state::find_project(s, r.project_id))
          return nullptr;
        auto now = clock();
        std::vector<json> rows;
        for (const auto& [id, t] : s.trials) {
          auto e = state::find_experiment(s, t.experiment_id);
          if (e == nullptr || t.deleted
              || (r.project_id != 0 && e->project_id != r.project_id)
              || (!r.show_archived && (e->archived || t.archived)))
            continue;
          auto row = flat_run(s, t, *e, now);
          if (!r.conditions || r.conditions->matches(row))
            rows.push_back(std::move(row));
        }
        // Ties (and no sort at all) go by id, as upstream.
        std::stable_sort(rows.begin(), rows.end(),
                         [&keys](const json& a, const json& b) {
                           for (const auto& k : keys) {
                             auto x = k.get(a);
                             auto y = k.get(b);
                             if (x == y)
                               continue;
                             // Missing values last either way (upstream: NULLS
                             // LAST).
                             if (x.is_null() || y.is_null())
                               return y.is_null();
                             return k.descending ? y < x : x < y;
                           }
                           return a["id"] < b["id"];
                         });
        auto [from, to] = page_bounds(static_cast<int64_t>(rows.size()), pg);
        json list = json::array();
        for (auto i = from; i < to; ++i)
          list.push_back(std::move(rows[static_cast<size_t>(i)]));
        return {{"runs", std::move(list)},
                {"pagination",
                 pagination_of(pg, static_cast<int64_t>(rows.size()))}};
      },
      "project " + std::to_string(r.project_id) + " not found");
}

// -- actions ------------------------------------------------------------------

/// Sends `c` for the runs `r` names: its runIds, or the runs its filter
/// takes (the ids a search with that filter lists, read as a search is).
/// The master qualifies each run and acts on it in one decision
/// (core/master_core_runs.cpp); the answer is its results, one per run.
/// After a delete, the deleted runs' logs go too.
void act_on_runs(const ctx_ptr& ctx, const responder& res, const run_request& r,
                 runs_act c) {
  c.project_id = r.project_id;
  auto send = [ctx, res](runs_act act) {
    send_command(
        ctx, res, command{std::move(act)},
        [ctx, res](caf::event_based_actor*, json reply) {
          auto gone = reply.find("deleted");
          if (ctx->logs && gone != reply.end() && !gone->empty())
            ctx->logs->erase(gone->get<std::vector<int64_t>>());
          json body{{"results", reply.value("results", json::array())}};
          send_written(ctx, res, body.dump());
        });
  };
  if (!r.filtered) {
    c.run_ids = r.ids;
    return send(std::move(c));
  }
  post(ctx->bridge,
       [ctx, res, r, c = std::move(c), send](caf::event_based_actor* self) {
         ask_view(
             ctx, self,
             [r, clock = ctx->wall_clock_us](const state::cluster_state& s,
                                             int64_t) {
               return json(filtered_run_ids(s, r, clock()));
             },
             res,
             [c, send](json ids) {
               auto act = c;
               act.run_ids = ids.get<std::vector<int64_t>>();
               send(std::move(act));
             });
       });
}

/// An action's body, runIds or a filter, and its project (`project_key`,
/// `required` or not), sent as `c`.
void run_action_route(const ctx_ptr& ctx, const http::http_request& req,
                      const responder& res, runs_act c,
                      const char* project_key = "projectId",
                      bool required = false) {
  auto r = parse_action(json_body(req, res), res, project_key);
  if (!r)
    return;
  if (required && r->project_id == 0)
    return void(refuse(res, project_key, "required"));
  c.username = req.principal.username;
  act_on_runs(ctx, res, *r, std::move(c));
}

void kill_runs(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::kill});
}

/// Moves the experiments of the runs to destinationProjectId.
void move_runs(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  auto body = json_body(req, res);
  auto r = parse_action(body, res, "sourceProjectId");
  runs_act c{run_action::move};
  if (!r
      || !id_field(*body, "destinationProjectId", true, res,
                   c.destination_project_id))
    return;
  if (r->project_id == 0)
    return void(refuse(res, "sourceProjectId", "required"));
  auto skip = body->value("skipMultitrial", json(false));
  if (!skip.is_boolean())
    return void(refuse(res, "skipMultitrial", "expected true or false"));
  c.skip_multitrial = skip.get<bool>();
  c.username = req.principal.username;
  act_on_runs(ctx, res, *r, std::move(c));
}

void delete_runs(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::remove});
}

void post_archive(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::archive}, "projectId",
                   true);
}

void post_unarchive(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::unarchive}, "projectId",
                   true);
}

void post_pause(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::pause});
}

void post_resume(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  run_action_route(ctx, req, res, runs_act{run_action::resume});
}

} // namespace

const route_family& run_routes() {
  static const route_family family{
      "run_routes",
      {"/api/v1/runs"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"POST",   "/api/v1/runs", &search_runs, access::signed_in},
          {"POST",   "/api/v1/runs/kill", &kill_runs, access::signed_in},
          {"POST",   "/api/v1/runs/pause", &post_pause, access::signed_in},
          {"POST",   "/api/v1/runs/resume", &post_resume, access::signed_in},
          {"POST",   "/api/v1/runs/move", &move_runs, access::signed_in},
          {"POST",   "/api/v1/runs/archive", &post_archive, access::signed_in},
          {"POST",   "/api/v1/runs/unarchive", &post_unarchive, access::signed_in},
          {"POST",   "/api/v1/runs/delete", &delete_runs, access::signed_in},
          // The harness starts its run (api_trials.cpp), with its
          // allocation token.
          {"POST",   "/api/v1/runs/start", &run_start, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
