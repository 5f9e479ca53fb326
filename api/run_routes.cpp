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
// Not served (404): archive, unarchive and delete of single runs. Upstream
// keeps an archived flag and deletes rows per run; here a trial lives and
// goes with its experiment, and `det experiment archive/delete` do that.

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

/// The results of one action, answered once every master request made
/// for it has come back. Lives on the bridge (one thread).
struct action_results {
  action_results(ctx_ptr c, responder r)
      : ctx(std::move(c)), res(std::move(r)) {}
  ctx_ptr ctx;
  responder res;
  json results = json::array();
  int pending = 1; ///< the requests out, plus one until all are sent
  bool wrote = false;

  void add(int64_t id, std::string error) {
    results.push_back({{"error", std::move(error)}, {"id", id}});
  }
  void done_one() {
    if (--pending != 0)
      return;
    auto body = json{{"results", std::move(results)}}.dump();
    if (wrote)
      send_written(ctx, res, std::move(body));
    else
      res.send_json(std::move(body));
  }
};
using results_ptr = std::shared_ptr<action_results>;

std::string not_found(int64_t id, int64_t project_id) {
  auto text = "Run with id '" + std::to_string(id) + "' not found";
  if (project_id != 0)
    text += " in project with id '" + std::to_string(project_id) + "'";
  return text;
}

/// Asks for the candidates of `r`, then calls `act` with them on the
/// bridge; `act` adds results and sends master requests through `out`.
void with_candidates(
    const ctx_ptr& ctx, const responder& res, run_request r,
    std::function<void(caf::event_based_actor*, const json&, results_ptr)>
        act) {
  post(ctx->bridge, [ctx, res, r = std::move(r),
                     act = std::move(act)](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [r, clock = ctx->wall_clock_us](const state::cluster_state& s,
                                        int64_t) {
          return candidates(s, r, clock());
        },
        res,
        [ctx, res, self, act](json cands) {
          auto out = std::make_shared<action_results>(ctx, res);
          act(self, cands, out);
          out->done_one();
        });
  });
}

/// What an action answers a candidate run at once: its result (an error,
/// or "" when there is nothing to do), or nothing when the master is to
/// act on it.
using early_answer = std::function<std::optional<std::string>(const json&)>;

/// Sorts the candidates: a run not found, or one `early` answers, is
/// answered now; the others are returned by experiment.
std::map<int64_t, std::vector<int64_t>>
runs_by_experiment(const json& cands, int64_t project, action_results& out,
                   const early_answer& early) {
  std::map<int64_t, std::vector<int64_t>> runs_of;
  for (const auto& c : cands) {
    auto id = c["id"].get<int64_t>();
    if (!c["found"].get<bool>())
      out.add(id, not_found(id, project));
    else if (auto now = early(c))
      out.add(id, std::move(*now));
    else
      runs_of[c["experiment"].get<int64_t>()].push_back(id);
  }
  return runs_of;
}

/// "Run is archived." for a run of an archived experiment, project or
/// workspace, which pause and move leave alone.
std::optional<std::string> archived_refusal(const json& c) {
  if (c["archived"].get<bool>())
    return std::string{"Run is archived."};
  return std::nullopt;
}

/// Counts one more master request out; the function returned answers
/// each of `runs` with its error ("": done) when the request comes back.
std::function<void(std::string)> answer_runs(const results_ptr& out,
                                             std::vector<int64_t> runs) {
  ++out->pending;
  return [out, runs = std::move(runs)](std::string error) {
    if (error.empty())
      out->wrote = true;
    for (auto id : runs)
      out->add(id, error);
    out->done_one();
  };
}

/// Sends the request `send(experiment_id, runs)` makes for each
/// experiment's runs in `runs_of`; a refusal is each run's result, after
/// `failed`. `done` gets the runs of each success.
template <class Send>
void each_experiment(const results_ptr& out,
                     std::map<int64_t, std::vector<int64_t>> runs_of,
                     const std::string& failed,
                     std::function<void(const std::vector<int64_t>&)> done,
                     Send send) {
  for (const auto& entry : runs_of) {
    // A structured binding cannot be captured before C++20 (clang).
    const auto& runs = entry.second;
    auto answer = answer_runs(out, runs);
    send(entry.first, runs)
        .then(
            [answer, done, runs](const std::string&) {
              if (done)
                done(runs);
              answer("");
            },
            [answer, failed](caf::error& err) {
              answer(failed + render(err));
            });
  }
}

/// Sends record command `op` for each experiment's runs in `runs_of`
/// (arguments `extra`, experimentId and runIds), as each_experiment.
void record_runs(caf::event_based_actor* self, const ctx_ptr& ctx,
                 const results_ptr& out,
                 std::map<int64_t, std::vector<int64_t>> runs_of,
                 const std::string& op, const json& extra,
                 const std::string& user, const std::string& failed = {},
                 std::function<void(const std::vector<int64_t>&)> done = {}) {
  each_experiment(out, std::move(runs_of), failed, std::move(done),
                  [&](int64_t experiment, const std::vector<int64_t>& runs) {
                    auto args = extra;
                    args["experimentId"] = experiment;
                    args["runIds"] = runs;
                    return self->request(ctx->master, ctx->request_timeout,
                                         records_atom::value, op, args.dump(),
                                         user);
                  });
}

void kill_runs(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  auto r = parse_action(json_body(req, res), res, "projectId");
  if (!r)
    return;
  auto project = r->project_id;
  with_candidates(ctx, res, std::move(*r),
                  [ctx, project](caf::event_based_actor* self,
                                 const json& cands, results_ptr out) {
                    for (const auto& c : cands) {
                      auto id = c["id"].get<int64_t>();
                      if (!c["found"].get<bool>()) {
                        out->add(id, not_found(id, project));
                        continue;
                      }
                      if (c["terminal"].get<bool>()) {
                        out->add(id, "");
                        continue;
                      }
                      auto answer = answer_runs(out, {id});
                      self->request(ctx->master, ctx->request_timeout,
                                    kill_atom::value, trial_atom::value, id)
                          .then([answer](caf::ok_atom) { answer(""); },
                                [answer](caf::error& err) {
                                  answer("Failed to kill run: " + render(err));
                                });
                    }
                  });
}

/// pause (true) or resume (false): the experiments of single-trial runs.
void pause_runs(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res, bool pause) {
  auto r = parse_action(json_body(req, res), res, "projectId");
  if (!r)
    return;
  auto project = r->project_id;
  with_candidates(ctx, res, std::move(*r),
                  [ctx, project, pause](caf::event_based_actor* self,
                                        const json& cands, results_ptr out) {
                    auto runs_of = runs_by_experiment(
                        cands, project, *out,
                        [](const json& c) -> std::optional<std::string> {
                          if (auto why = archived_refusal(c))
                            return why;
                          if (c["single"].get<bool>())
                            return std::nullopt;
                          return "Cannot pause/unpause run '"
                                 + std::to_string(c["id"].get<int64_t>())
                                 + "' (part of multi-trial).";
                        });
                    std::string failed =
                        pause ? "Failed to pause associated experiment: "
                              : "Failed to resume associated experiment: ";
                    for (auto& [exp, runs] : runs_of) {
                      auto answer = answer_runs(out, std::move(runs));
                      auto ok = [answer](caf::ok_atom) { answer(""); };
                      auto refused = [answer, failed](caf::error& err) {
                        answer(failed + render(err));
                      };
                      if (pause)
                        self->request(ctx->master, ctx->request_timeout,
                                      pause_atom::value, exp)
                            .then(ok, refused);
                      else
                        self->request(ctx->master, ctx->request_timeout,
                                      activate_atom::value, exp)
                            .then(ok, refused);
                    }
                  });
}

/// Moves the experiments of the runs to destinationProjectId.
void move_runs(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  auto body = json_body(req, res);
  auto r = parse_action(body, res, "sourceProjectId");
  int64_t dest = 0;
  if (!r || !id_field(*body, "destinationProjectId", true, res, dest))
    return;
  if (r->project_id == 0)
    return void(refuse(res, "sourceProjectId", "required"));
  auto skip = body->value("skipMultitrial", json(false));
  if (!skip.is_boolean())
    return void(refuse(res, "skipMultitrial", "expected true or false"));
  auto project = r->project_id;
  with_candidates(
      ctx, res, std::move(*r),
      [ctx, project, dest, skip = skip.get<bool>(),
       user = req.principal.username](caf::event_based_actor* self,
                                      const json& cands, results_ptr out) {
        auto runs_of = runs_by_experiment(
            cands, project, *out,
            [skip](const json& c) -> std::optional<std::string> {
              if (auto why = archived_refusal(c))
                return why;
              if (!skip || !c["multitrial"].get<bool>())
                return std::nullopt;
              return "Skipping run '" + std::to_string(c["id"].get<int64_t>())
                     + "' (part of multi-trial).";
            });
        each_experiment(out, std::move(runs_of),
                        "Failed to move associated experiment: ", {},
                        [&](int64_t experiment, const std::vector<int64_t>&) {
                          return self->request(
                              ctx->master, ctx->request_timeout,
                              command{experiment_move{experiment, dest, user}});
                        });
      });
}

/// archive (true) or unarchive (false): ended runs, their experiment not
/// archived (upstream's ArchiveRuns / UnarchiveRuns).
void archive_runs(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, bool archive) {
  auto r = parse_action(json_body(req, res), res, "projectId");
  if (!r)
    return;
  if (r->project_id == 0)
    return void(refuse(res, "projectId", "required"));
  auto project = r->project_id;
  with_candidates(
      ctx, res, std::move(*r),
      [ctx, project, archive, user = req.principal.username](
          caf::event_based_actor* self, const json& cands, results_ptr out) {
        auto runs_of = runs_by_experiment(
            cands, project, *out,
            [archive](const json& c) -> std::optional<std::string> {
              if (c["archived"].get<bool>())
                return "Run is part of archived Search (id: '"
                       + std::to_string(c["experiment"].get<int64_t>()) + "').";
              if (c["runArchived"].get<bool>() == archive)
                return std::string{};
              if (!c["terminal"].get<bool>())
                return std::string{"Run is not in terminal state."};
              return std::nullopt;
            });
        record_runs(self, ctx, out, std::move(runs_of), "runs.archive",
                    {{"archived", archive}}, user);
      });
}

/// Deletes ended runs of ended experiments (upstream's DeleteRuns), and
/// their logs.
void delete_runs(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  auto r = parse_action(json_body(req, res), res, "projectId");
  if (!r)
    return;
  auto project = r->project_id;
  with_candidates(
      ctx, res, std::move(*r),
      [ctx, project, user = req.principal.username](
          caf::event_based_actor* self, const json& cands, results_ptr out) {
        auto runs_of = runs_by_experiment(
            cands, project, *out,
            [](const json& c) -> std::optional<std::string> {
              if (!c["terminal"].get<bool>())
                return std::string{"Run is not in a terminal state."};
              if (!c["experimentEnded"].get<bool>())
                return "Run is part of an active search (id: '"
                       + std::to_string(c["experiment"].get<int64_t>())
                       + "'); its runs can be deleted once it has ended.";
              return std::nullopt;
            });
        record_runs(self, ctx, out, std::move(runs_of), "runs.delete",
                    json::object(), user, {},
                    [ctx](const std::vector<int64_t>& runs) {
                      if (ctx->logs)
                        ctx->logs->erase(runs);
                    });
      });
}

void post_archive(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res) {
  archive_runs(ctx, req, res, true);
}

void post_unarchive(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  archive_runs(ctx, req, res, false);
}

void post_pause(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res) {
  pause_runs(ctx, req, res, true);
}

void post_resume(const ctx_ptr& ctx, const http::http_request& req,
                 const responder& res) {
  pause_runs(ctx, req, res, false);
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
