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

/// POST and PUT /api/v1/trials, POST /api/v1/trials/{id}/start, PATCH
/// /api/v1/trials/{id}.
void add_unmanaged_routes(http::router& r, ctx_ptr ctx);

} // namespace det::api
