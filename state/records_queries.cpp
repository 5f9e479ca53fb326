#include "state/records_queries.hpp"

#include <algorithm>

namespace det::state {

namespace {

workspace_info default_workspace() {
  workspace_info w;
  w.id = default_workspace_id;
  w.name = "Uncategorized";
  w.username = "admin";
  return w;
}

project_info default_project() {
  project_info p;
  p.id = default_project_id;
  p.workspace_id = default_workspace_id;
  p.name = "Uncategorized";
  p.username = "admin";
  return p;
}

} // namespace

std::optional<workspace_info> find_workspace(const cluster_state& s,
                                             int64_t id) {
  auto i = s.workspaces.find(id);
  if (i != s.workspaces.end())
    return i->second;
  if (id == default_workspace_id)
    return default_workspace();
  return std::nullopt;
}

std::vector<workspace_info> all_workspaces(const cluster_state& s) {
  std::vector<workspace_info> out;
  if (s.workspaces.count(default_workspace_id) == 0)
    out.push_back(default_workspace());
  for (const auto& [id, w] : s.workspaces)
    out.push_back(w);
  return out;
}

std::optional<workspace_info> workspace_named(const cluster_state& s,
                                              const std::string& name) {
  for (auto& w : all_workspaces(s))
    if (w.name == name)
      return w;
  return std::nullopt;
}

std::optional<project_info> find_project(const cluster_state& s, int64_t id) {
  auto i = s.projects.find(id);
  if (i != s.projects.end())
    return i->second;
  if (id == default_project_id)
    return default_project();
  return std::nullopt;
}

std::vector<project_info> projects_of(const cluster_state& s,
                                      int64_t workspace_id) {
  std::vector<project_info> out;
  if (workspace_id == default_workspace_id
      && s.projects.count(default_project_id) == 0)
    out.push_back(default_project());
  for (const auto& [id, p] : s.projects)
    if (p.workspace_id == workspace_id)
      out.push_back(p);
  return out;
}

std::optional<project_info> project_named(const cluster_state& s,
                                          int64_t workspace_id,
                                          const std::string& name) {
  for (auto& p : projects_of(s, workspace_id))
    if (p.name == name)
      return p;
  return std::nullopt;
}

int64_t experiments_in_project(const cluster_state& s, int64_t project_id) {
  return std::count_if(s.experiments.begin(), s.experiments.end(),
                       [project_id](const auto& kv) {
                         return kv.second.project_id == project_id;
                       });
}

int64_t active_experiments_in_project(const cluster_state& s,
                                      int64_t project_id) {
  return std::count_if(s.experiments.begin(), s.experiments.end(),
                       [project_id](const auto& kv) {
                         return kv.second.project_id == project_id
                                && !is_terminal(kv.second.status);
                       });
}

const model_info* model_named(const cluster_state& s, const std::string& name) {
  for (const auto& [id, m] : s.models)
    if (m.name == name)
      return &m;
  return nullptr;
}

const model_version_info* find_model_version(const model_info& m,
                                             int64_t version) {
  for (const auto& v : m.versions)
    if (v.version == version)
      return &v;
  return nullptr;
}

bool checkpoint_exists(const cluster_state& s, const std::string& uuid) {
  for (const auto& [id, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.uuid == uuid)
        return true;
  return false;
}

std::vector<std::string> pools_bound_to(const cluster_state& s, int64_t id) {
  std::vector<std::string> out;
  for (const auto& [pool, b] : s.pool_bindings)
    if (std::find(b.workspace_ids.begin(), b.workspace_ids.end(), id)
        != b.workspace_ids.end())
      out.push_back(pool);
  return out;
}

} // namespace det::state
