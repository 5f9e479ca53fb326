#pragma once

// Unmanaged experiments and trials (api_unmanaged.cpp): trials that run
// outside the cluster and report with their user's session.

#include "api/route_util.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::api {

/// POST /api/v1/experiments with `unmanaged: true`, and PUT
/// /api/v1/experiments/by-external-id/{id} (`external` non-empty): `body`
/// is a v1CreateExperimentRequest. Answers {experiment, config}; a put of
/// an external id already known answers that experiment.
void create_unmanaged_experiment(const ctx_ptr& ctx,
                                 const http::http_request& req,
                                 const http::responder& res,
                                 const nlohmann::json& body,
                                 const std::string& external);

/// PUT /api/v1/experiments/by-external-id/{external_id} (a row of
/// api/experiment_routes.cpp): create_unmanaged_experiment named so.
void put_experiment_by_external_id(const ctx_ptr& ctx,
                                   const http::http_request& req,
                                   const http::responder& res);

/// Unmanaged trials, rows of api/trial_routes.cpp: POST /api/v1/trials
/// (create), PUT /api/v1/trials (by externalTrialId: created the first
/// time, the same one after), POST /api/v1/trials/{trial_id}/start and
/// PATCH /api/v1/trials/{trial_id} (its state). A trial's allocation token
/// is refused (403) after the body is read.
void create_trial_route(const ctx_ptr& ctx, const http::http_request& req,
                        const http::responder& res);
void put_trial(const ctx_ptr& ctx, const http::http_request& req,
               const http::responder& res);
void start_trial(const ctx_ptr& ctx, const http::http_request& req,
                 const http::responder& res);
void patch_trial(const ctx_ptr& ctx, const http::http_request& req,
                 const http::responder& res);

} // namespace det::api
