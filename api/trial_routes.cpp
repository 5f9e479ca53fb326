#include "api/trial_routes.hpp"

#include "api/api_cluster.hpp"
#include "api/api_experiments.hpp"
#include "api/api_metrics.hpp"
#include "api/api_trials.hpp"
#include "api/api_unmanaged.hpp"

namespace det::api {

const route_family& trial_routes() {
  static const route_family family{
      "trial_routes",
      {"/api/v1/trials"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"POST",  "/api/v1/trials", &create_trial_route, access::users_only},
          {"PUT",   "/api/v1/trials", &put_trial, access::users_only},
          {"GET",   "/api/v1/trials/{trial_id}", &get_trial, access::signed_in},
          {"PATCH", "/api/v1/trials/{trial_id}", &patch_trial, access::users_only},
          {"POST",  "/api/v1/trials/{trial_id}/start", &start_trial, access::users_only},
          {"POST",  "/api/v1/trials/{trial_id}/kill", &kill_trial, access::signed_in},
          {"GET",   "/api/v1/trials/{trial_id}/logs", &get_trial_logs, access::signed_in},
          {"GET",   "/api/v1/trials/{trial_id}/logs/fields", &get_trial_log_fields, access::signed_in},
          {"GET",   "/api/v1/trials/{trial_id}/checkpoints", &get_trial_checkpoints, access::signed_in},
          {"PUT",   "/api/v1/trials/{trial_id}/retain_logs", &retain_trial_logs, access::users_only},
          {"GET",   "/api/v1/trials/{trial_id}/workloads", &trial_workloads, access::signed_in},
          {"GET",   "/api/v1/trials/{trial_id}/timeline", &trial_timeline, access::users_only},
          {"GET",   "/api/v1/trials/metrics/trial_metrics", &trial_metrics_stream, access::users_only},
          {"GET",   "/api/v1/trials/metrics/training_metrics", &training_metrics_stream, access::users_only},
          {"GET",   "/api/v1/trials/metrics/validation_metrics", &validation_metrics_stream, access::users_only},
          {"GET",   "/api/v1/trials/time-series", &trial_time_series, access::users_only},
          // The harness's reports, with its allocation token (or a user's
          // session for an unmanaged trial's metrics).
          {"POST",  "/api/v1/trials/{trial_id}/metrics", &report_metrics, access::signed_in, token_check::by_master},
          {"POST",  "/api/v1/trials/{trial_id}/progress", &report_progress, access::signed_in},
          {"POST",  "/api/v1/trials/{trial_id}/runner/metadata", &report_runner_metadata, access::signed_in},
          {"POST",  "/api/v1/trials/{trial_id}/early_exit", &report_early_exit, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
