#pragma once

// The task family's routes: every path under /api/v1/tasks, the four
// kinds of interactive task (/api/v1/commands, /notebooks, /shells,
// /tensorboards), /api/v1/generic-tasks and a task's allocation
// (/api/v1/allocations: ready, the preemption signal and its ack), as one
// table (api/route_table.hpp) in api/task_routes.cpp. The handlers are
// api_tasks.hpp's, api_cluster.hpp's task logs, api_trials.hpp's context
// directory and the allocation signals beside the table.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& task_routes();

} // namespace det::api
