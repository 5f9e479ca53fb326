#pragma once

// Read-only questions about the user's records (workspaces, projects,
// templates, models), for core/ and the API's views. Workspace 1 and
// project 1, "Uncategorized", exist in every state: these lookups give
// their default form until an event changes them. Pure functions; a
// pointer returned lives until the state next changes.

#include "state/cluster_state.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::state {

/// The default workspace and project (id 1).
constexpr int64_t default_workspace_id = 1;
constexpr int64_t default_project_id = 1;

/// Workspace `id` (the default one even without an event), or nothing.
std::optional<workspace_info> find_workspace(const cluster_state& s,
                                             int64_t id);
/// Every workspace, by id (the default one included).
std::vector<workspace_info> all_workspaces(const cluster_state& s);
/// The workspace named exactly `name`, or nothing.
std::optional<workspace_info> workspace_named(const cluster_state& s,
                                              const std::string& name);

std::optional<project_info> find_project(const cluster_state& s, int64_t id);
/// The projects of workspace `workspace_id` (the default project in
/// workspace 1), by id.
std::vector<project_info> projects_of(const cluster_state& s,
                                      int64_t workspace_id);
/// The project of workspace `workspace_id` named exactly `name`.
std::optional<project_info> project_named(const cluster_state& s,
                                          int64_t workspace_id,
                                          const std::string& name);

/// Experiments in project `project_id`, and those of them not ended.
int64_t experiments_in_project(const cluster_state& s, int64_t project_id);
int64_t active_experiments_in_project(const cluster_state& s,
                                      int64_t project_id);

/// The registered model named exactly `name`, or nullptr.
const model_info* model_named(const cluster_state& s, const std::string& name);
/// A version of `m` by number, or nullptr.
const model_version_info* find_model_version(const model_info& m,
                                             int64_t version);

/// Whether some trial reported a checkpoint with this uuid.
bool checkpoint_exists(const cluster_state& s, const std::string& uuid);

/// The pools bound to workspace `id` (empty when none is bound to it).
std::vector<std::string> pools_bound_to(const cluster_state& s, int64_t id);

} // namespace det::state
