// The log family's table (api/log_routes.hpp).

#include "api/log_routes.hpp"

#include "api/api_experiments.hpp"
#include "api/api_trials.hpp"

namespace det::api {

const route_family& log_routes() {
  static const route_family family{
      "log_routes",
      {"/api/v1/task/logs", "/task-logs", "/api/v1/cleanup_logs"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"POST",   "/api/v1/task/logs", &ship_task_logs, access::signed_in},
          {"POST",   "/task-logs", &ship_bare_task_logs, access::signed_in},
          {"POST",   "/api/v1/cleanup_logs", &cleanup_logs, access::admin},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
