#pragma once

// The user's records in upstream's JSON shapes (v1Workspace, v1Project,
// v1Template, v1Model, v1ModelVersion), rendered from a state: pure
// functions for the read model's replicas. A lookup that finds nothing
// answers null (the route's 404).

#include "api/views_cluster.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace det::api {

/// `viewer`: the user asking, for whom `pinned` is shown.
nlohmann::json workspace_json(const state::cluster_state& s,
                              const state::workspace_info& w,
                              const std::string& viewer);
nlohmann::json project_json(const state::cluster_state& s,
                            const state::project_info& p);
nlohmann::json template_json(const state::template_info& t);
nlohmann::json model_json(const state::cluster_state& s,
                          const state::model_info& m);
nlohmann::json model_version_json(const state::cluster_state& s,
                                  const state::model_info& m,
                                  const state::model_version_info& v);

/// GET /api/v1/workspaces: by name (exact with nameCaseSensitive; without
/// case with `name`, as upstream's ILIKE), archived or not.
struct workspace_filter {
  std::optional<std::string> name_exact;
  std::optional<std::string> name_nocase;
  std::optional<bool> archived;
  /// pinned=true|false: those `viewer` pinned, or those they did not.
  std::optional<bool> pinned;
  std::string viewer;
  bool by_name = false; ///< sortBy=SORT_BY_NAME
  bool descending = false;
};
nlohmann::json workspaces_response(const state::cluster_state& s,
                                   const workspace_filter& f, page p);
/// {"workspace": ...}; null when absent.
nlohmann::json workspace_response(const state::cluster_state& s, int64_t id,
                                  const std::string& viewer);

/// GET /api/v1/workspaces/{id}/projects (`name`: without case), in
/// creation order or by name (without case first), either way reversed
/// when `descending`; null when the workspace is absent.
nlohmann::json
workspace_projects_response(const state::cluster_state& s, int64_t id,
                            const std::optional<std::string>& name,
                            std::optional<bool> archived, page p,
                            bool by_name = false, bool descending = false);
/// {"project": ...}; null when absent.
nlohmann::json project_response(const state::cluster_state& s, int64_t id);

nlohmann::json templates_response(const state::cluster_state& s,
                                  const std::string& name_contains,
                                  const std::vector<int64_t>& workspace_ids,
                                  page p);
/// {"template": ...}; null when absent.
nlohmann::json template_response(const state::cluster_state& s,
                                 const std::string& name);

/// The model named `name` (or with that id, as the SDK asks), or nullptr.
const state::model_info* model_by_identifier(const state::cluster_state& s,
                                             const std::string& name);

struct model_filter {
  std::optional<std::string> name; ///< substring, case-insensitive
  std::optional<int64_t> id;
  std::optional<bool> archived;
  std::vector<int64_t> workspace_ids;
  std::vector<std::string> workspace_names;
  std::vector<std::string> labels;
  std::vector<std::string> users;
  std::string sort_by; ///< SORT_BY_NAME, ... ("" or unknown: by id)
  bool descending = false;
};
nlohmann::json models_response(const state::cluster_state& s,
                               const model_filter& f, page p);
nlohmann::json model_response(const state::cluster_state& s,
                              const std::string& name);
nlohmann::json model_versions_response(const state::cluster_state& s,
                                       const std::string& name, bool descending,
                                       page p);
nlohmann::json model_version_response(const state::cluster_state& s,
                                      const std::string& name, int64_t version);
/// Every label of every model (each once, in order).
nlohmann::json model_labels_response(const state::cluster_state& s);

} // namespace det::api
