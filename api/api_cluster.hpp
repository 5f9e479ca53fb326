#pragma once

// The user-facing read routes the det CLI needs beyond experiments:
// master config (admin only, secrets redacted), agents, slots (through
// agents), tasks, trials (describe, workloads, kill, logs with follow,
// head and tail), checkpoints and resource pools; plus the paginated,
// user-filtered experiment list. Each answer is a view of the master's
// state (views_cluster.hpp), except the config (from api_context) and the
// log lines (trial_logs).

#include "api/api_context.hpp"
#include "http/router.hpp"

namespace det::api {

void add_cluster_routes(http::router& r,
                        std::shared_ptr<const api_context> ctx);

/// GET /api/v1/master/logs and PATCH /api/v1/master/config
/// (api_master_logs.cpp).
void add_master_log_routes(http::router& r,
                           std::shared_ptr<const api_context> ctx);

} // namespace det::api
