#pragma once

// The master's REST routes (the end-to-end subset of upstream's /api/v1,
// plus the trial-side endpoints of docs/agent_protocol.md). Handlers decode
// the request on the I/O thread, then post a job to the API bridge, which
// asks the master (or the model-definition actor) and answers through the
// responder. No handler blocks.
//
// Trial endpoints require "Authorization: Bearer <DET_SESSION_TOKEN>": no
// token -> 401, a token of another allocation -> 403.

#include "api/api_context.hpp"
#include "api/route_table.hpp"
#include "http/router.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace det::api {

/// Body limits (http::server_config::body_limit_for): a request without
/// an Authorization header may send 64 KiB (login); an experiment's
/// creation room for a model directory of `model_bytes`, base64-encoded
/// in JSON; every other authenticated request, and every request to the
/// proxy (/proxy/..., api/task_proxy.hpp), 8 MiB.
size_t request_body_limit(std::string_view method, std::string_view path,
                          bool authorized, size_t model_bytes);

/// Every resource family's route table (api/route_table.hpp), in the
/// order add_master_routes registers them; docs/api.md is checked against
/// them (tests/api/route_table_test.cpp).
const std::vector<const route_family*>& route_families();

/// Registers every route on `r`.
void add_master_routes(http::router& r, std::shared_ptr<const api_context> ctx);

} // namespace det::api
