#pragma once

// A project's experiments as a set:
//
// POST /api/v1/projects/{projectId}/experiments/{action}, action one of
//   pause, activate, cancel, kill, archive, unarchive, delete. The body
//   names the experiments (experimentIds) or selects them (filters: name
//   and description as case-insensitive substrings, labels all present,
//   archived, states, userIds, projectId, excludedExperimentIds); with
//   filters the ids are ignored and each action adds the states it applies
//   to when none are given (pause: ACTIVE; activate: PAUSED; cancel and
//   kill: the live ones; archive and delete: the ended ones). A projectId
//   below 1 in the path means every project. Archived experiments are left
//   out except by unarchive. Each selected experiment is then asked of the
//   master in turn, as its own route would; the answer is {"results":
//   [{"error": "", "id": N}]}, one per experiment, the error the refusal's
//   text ("" when done). A named experiment that was not selected answers
//   "experiment N not found".
// GET /api/v1/projects/{id}/columns: the columns a project's experiment
//   table can show (upstream's GetProjectColumns): the experiment's own,
//   "hp.<path>" per hyperparameter leaf its experiments declare, and
//   "<group>.<metric>.{min,max,last,mean}" per metric name in its trials'
//   latest training and validation reports ("last" alone for a metric that
//   is not a number).
// GET /api/v1/projects/{id}/experiments/metric-ranges: per validation and
//   training metric name, the least and greatest of the project's trials'
//   latest values ({"ranges": [{metricsName, min, max}]}).

// Each a row of api/project_routes.cpp.

#include "api/route_util.hpp"

namespace det::api {

void pause_project_experiments(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const http::responder& res);
void activate_project_experiments(const ctx_ptr& ctx,
                                  const http::http_request& req,
                                  const http::responder& res);
void cancel_project_experiments(const ctx_ptr& ctx,
                                const http::http_request& req,
                                const http::responder& res);
void kill_project_experiments(const ctx_ptr& ctx, const http::http_request& req,
                              const http::responder& res);
void archive_project_experiments(const ctx_ptr& ctx,
                                 const http::http_request& req,
                                 const http::responder& res);
void unarchive_project_experiments(const ctx_ptr& ctx,
                                   const http::http_request& req,
                                   const http::responder& res);
void delete_project_experiments(const ctx_ptr& ctx,
                                const http::http_request& req,
                                const http::responder& res);
void get_project_columns(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void get_project_metric_ranges(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const http::responder& res);

} // namespace det::api
