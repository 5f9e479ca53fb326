#pragma once

// The cluster family's routes: every path under /api/v1/agents (agents
// and their slots) and /api/v1/master (the master's info, config, log and
// cluster message), and the legacy GET /info, as one table
// (api/route_table.hpp) in api/cluster_routes.cpp. The handlers are
// api_cluster.hpp's (agents, slots, config, log), account_records.hpp's
// (the cluster message), and GET /api/v1/master and GET /info beside the
// table.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& cluster_routes();

} // namespace det::api
