#include "api/project_routes.hpp"

#include "api/api_project_experiments.hpp"
#include "api/api_records.hpp"

namespace det::api {

const route_family& project_routes() {
  static const route_family family{
      "project_routes",
      {"/api/v1/projects"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/projects/{id}", &get_project, access::signed_in},
          {"PATCH",  "/api/v1/projects/{id}", &edit_project, access::signed_in},
          {"DELETE", "/api/v1/projects/{id}", &delete_project, access::signed_in},
          {"POST",   "/api/v1/projects/{id}/notes", &add_project_note, access::signed_in},
          {"PUT",    "/api/v1/projects/{id}/notes", &put_project_notes, access::signed_in},
          {"POST",   "/api/v1/projects/{id}/archive", &archive_project, access::signed_in},
          {"POST",   "/api/v1/projects/{id}/unarchive", &unarchive_project, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/move", &move_project, access::signed_in},
          {"GET",    "/api/v1/projects/{id}/columns", &get_project_columns, access::signed_in},
          {"GET",    "/api/v1/projects/{id}/experiments/metric-ranges", &get_project_metric_ranges, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/pause", &pause_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/activate", &activate_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/cancel", &cancel_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/kill", &kill_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/archive", &archive_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/unarchive", &unarchive_project_experiments, access::signed_in},
          {"POST",   "/api/v1/projects/{projectId}/experiments/delete", &delete_project_experiments, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
