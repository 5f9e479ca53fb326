#pragma once

// The log family's routes: what ships log lines to the master and what
// drops them, as one table (api/route_table.hpp) in api/log_routes.cpp:
// POST /api/v1/task/logs (a trial's own lines, with its allocation token),
// the legacy POST /task-logs (the same as a bare list, for the SDK's
// unmanaged trials) and POST /api/v1/cleanup_logs (admins: the logs of
// ended trials past their retention). The handlers are api_trials.cpp's
// and api_experiments.cpp's. A trial's logs are read through the trial
// and task families.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& log_routes();

} // namespace det::api
