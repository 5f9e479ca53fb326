#include "api/experiment_routes.hpp"

#include "api/api_cluster.hpp"
#include "api/api_experiments.hpp"
#include "api/api_records.hpp"
#include "api/api_unmanaged.hpp"
#include "api/experiment_handlers.hpp"

namespace det::api {

const route_family& experiment_routes() {
  static const route_family family{
      "experiment_routes",
      {"/api/v1/experiments", "/experiments", "/api/v1/preview-hp-search"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/experiments", &list_experiments, access::signed_in},
          {"POST",   "/api/v1/experiments", &create_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/continue", &continue_experiment, access::users_only},
          {"PUT",    "/api/v1/experiments/by-external-id/{external_id}", &put_experiment_by_external_id, access::users_only},
          {"GET",    "/api/v1/experiments/{id}", &get_experiment, access::signed_in},
          {"PATCH",  "/api/v1/experiments/{id}", &edit_experiment, access::signed_in},
          {"DELETE", "/api/v1/experiments/{id}", &delete_experiment, access::signed_in},
          {"GET",    "/api/v1/experiments/{id}/trials", &get_experiment_trials, access::signed_in},
          {"GET",    "/api/v1/experiments/{id}/checkpoints", &experiment_checkpoints, access::signed_in},
          {"GET",    "/api/v1/experiments/{id}/model_def", &get_model_def, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/pause", &pause_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/activate", &activate_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/kill", &kill_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/cancel", &cancel_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/archive", &archive_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/unarchive", &unarchive_experiment, access::signed_in},
          {"POST",   "/api/v1/experiments/{id}/move", &move_experiment, access::signed_in},
          {"PUT",    "/api/v1/experiments/{id}/retain_logs", &retain_experiment_logs, access::users_only},
          {"DELETE", "/api/v1/experiments/{id}/tensorboard-files", &delete_tensorboard_files, access::users_only},
          {"GET",    "/experiments/{id}/preview_gc", &preview_gc, access::signed_in},
          {"POST",   "/api/v1/preview-hp-search", &preview_hp_search, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
