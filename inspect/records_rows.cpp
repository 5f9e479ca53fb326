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
  json hs = json::array();
  for (const auto& [id, w] : s.webhooks) {
    std::string triggers;
    for (const auto& t : w.triggers)
      triggers += (triggers.empty() ? "" : ", ")
                  + t.value("trigger_type", std::string{}) + " "
                  + t.value("condition", json::object()).dump();
    // The URL's scheme and host only: its path may be a secret (Slack's).
    auto host_end = w.url.find('/', w.url.find("://") + 3);
    int64_t due = 0;
    for (const auto& [did, d] : s.webhook_deliveries)
      due += d.webhook_id == id ? 1 : 0;
    hs.push_back({{"id", id},
                  {"name", w.name},
                  {"type", w.webhook_type},
                  {"mode", w.mode},
                  {"workspace_id", w.workspace_id},
                  {"url", w.url.substr(0, host_end)},
                  {"triggers", triggers},
                  {"due", due}});
  }
  return {{"workspaces", ws},
          {"projects", ps},
          {"templates", ts},
          {"models", ms},
          {"webhooks", hs}};
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
            {"updated_at", "UPDATED"}}},
          {"webhooks",
           {{"id", "ID"},
            {"name", "WEBHOOK"},
            {"type", "TYPE"},
            {"mode", "MODE"},
            {"workspace_id", "WORKSPACE"},
            {"url", "URL"},
            {"triggers", "TRIGGERS"},
            {"due", "DUE"}}}};
}

} // namespace det::inspection
