#include "inspect/records_rows.hpp"

#include "state/records_queries.hpp"

namespace det::inspection {

using nlohmann::json;

json record_rows(const state::cluster_state& s) {
  json ws = json::array();
  for (const auto& w : state::all_workspaces(s))
    ws.push_back(
        {{"id", w.id},
         {"name", w.name},
         {"archived", w.archived},
         {"projects", state::projects_of(s, w.id).size()},
         {"checkpoint_storage", w.checkpoint_storage.empty()
                                    ? json()
                                    : json(w.checkpoint_storage.dump())},
         {"pools", state::pools_bound_to(s, w.id)},
         {"created_at", time_json(w.created_at_us)}});
  json ps = json::array();
  for (const auto& w : state::all_workspaces(s))
    for (const auto& p : state::projects_of(s, w.id))
      ps.push_back({{"id", p.id},
                    {"name", p.name},
                    {"workspace_id", p.workspace_id},
                    {"archived", p.archived},
                    {"experiments", state::experiments_in_project(s, p.id)},
                    {"created_at", time_json(p.created_at_us)}});
  json ts = json::array();
  for (const auto& [name, t] : s.templates)
    ts.push_back({{"name", name},
                  {"workspace_id", t.workspace_id},
                  {"config", t.config.dump()}});
  json ms = json::array();
  for (const auto& [id, m] : s.models) {
    json versions = json::array();
    for (const auto& v : m.versions)
      versions.push_back(std::to_string(v.version) + ":" + v.checkpoint_uuid);
    ms.push_back({{"id", id},
                  {"name", m.name},
                  {"workspace_id", m.workspace_id},
                  {"archived", m.archived},
                  {"versions", versions},
                  {"updated_at", time_json(m.updated_at_us)}});
  }
  return {
      {"workspaces", ws}, {"projects", ps}, {"templates", ts}, {"models", ms}};
}

std::vector<std::pair<std::string, std::vector<column>>> record_tables() {
  return {{"workspaces",
           {{"id", "ID"},
            {"name", "WORKSPACE"},
            {"archived", "ARCHIVED"},
            {"projects", "PROJECTS"},
            {"pools", "BOUND POOLS"},
            {"checkpoint_storage", "CHECKPOINT STORAGE"},
            {"created_at", "CREATED"}}},
          {"projects",
           {{"id", "ID"},
            {"name", "PROJECT"},
            {"workspace_id", "WORKSPACE"},
            {"archived", "ARCHIVED"},
            {"experiments", "EXPERIMENTS"},
            {"created_at", "CREATED"}}},
          {"templates",
           {{"name", "TEMPLATE"},
            {"workspace_id", "WORKSPACE"},
            {"config", "CONFIG"}}},
          {"models",
           {{"id", "ID"},
            {"name", "MODEL"},
            {"workspace_id", "WORKSPACE"},
            {"archived", "ARCHIVED"},
            {"versions", "VERSIONS"},
            {"updated_at", "UPDATED"}}}};
}

} // namespace det::inspection
