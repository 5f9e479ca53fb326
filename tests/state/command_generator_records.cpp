// The command generator's user records (workspaces, projects, models and
// the rest of master_core::records) and webhooks with their deliveries.

#include "command_generator.hpp"

#include <string>
#include <vector>

namespace det::state::test {

std::optional<domain_event> command_generator::records(const cluster_state& s) {
  auto n = [this](const char* prefix) {
    return prefix + std::to_string(below(4));
  };
  // A document member given as {} would be null: events carry objects.
  const auto obj = nlohmann::json::object();
  switch (below(12)) {
  case 0: {
    auto name = n("w");
    for (const auto& [id, w] : s.workspaces)
      if (w.name == name)
        return workspace_saved{id,    name, !w.archived, {{"agentUid", 7}},
                               obj,   "",   "",          "u1",
                               tick()};
    return workspace_saved{
        s.last_workspace_id + 1, name, false, obj, obj, "", "", "u1", tick()};
  }
  case 1: {
    auto empty = where(s.workspaces, [&s](const workspace_info& w) {
      return w.id != 1
             && std::none_of(
                 s.projects.begin(), s.projects.end(),
                 [&w](const auto& p) { return p.second.workspace_id == w.id; });
    });
    if (empty.empty())
      return std::nullopt;
    if (chance(50)) {
      auto ws = where(s.workspaces, [](const workspace_info&) { return true; });
      if (!ws.empty())
        return workspace_pinned{pick(ws)->id, chance(60), n("u"), tick()};
    }
    return workspace_deleted{pick(empty)->id, "u1", tick()};
  }
  case 2: {
    if (s.workspaces.empty())
      return std::nullopt;
    auto ws = where(s.workspaces, [](const workspace_info&) { return true; });
    const auto& w = *pick(ws);
    auto name = n("p");
    for (const auto& [id, p] : s.projects)
      if (p.workspace_id == w.id && p.name == name)
        return project_saved{id,  w.id,        name, "d",
                             "K", !p.archived, "u1", tick()};
    return project_saved{
        s.last_project_id + 1, w.id, name, "", "", false, "u1", tick()};
  }
  case 3: {
    auto empty = where(s.projects, [&s](const project_info& p) {
      return p.id != 1
             && std::none_of(
                 s.experiments.begin(), s.experiments.end(),
                 [&p](const auto& e) { return e.second.project_id == p.id; });
    });
    if (empty.empty())
      return std::nullopt;
    if (chance(40)) {
      auto ps = where(s.projects, [](const project_info&) { return true; });
      if (!ps.empty())
        return project_notes_set{pick(ps)->id,
                                 nlohmann::json::array({nlohmann::json{
                                     {"name", n("n")}, {"contents", "c"}}}),
                                 "u1", tick()};
    }
    return project_deleted{pick(empty)->id, "u1", tick()};
  }
  case 4: {
    auto exps =
        where(s.experiments, [](const experiment_info&) { return true; });
    if (exps.empty())
      return std::nullopt;
    int64_t to = 1;
    if (!s.projects.empty() && chance(70)) {
      auto ps = where(s.projects, [](const project_info&) { return true; });
      to = pick(ps)->id;
    }
    return experiment_moved{pick(exps)->id, to, "u1", tick()};
  }
  case 5: {
    auto name = n("t");
    if (s.templates.count(name) != 0 && chance(40))
      return template_deleted{name, "u1", tick()};
    return template_saved{name,
                          1,
                          {{"max_restarts", static_cast<int64_t>(below(5))}},
                          "u1",
                          tick()};
  }
  case 6: {
    if (s.pools.empty())
      return std::nullopt;
    auto it = s.pools.begin();
    std::advance(it, static_cast<long>(below(s.pools.size())));
    std::vector<int64_t> ids;
    if (chance(60))
      ids.push_back(1);
    for (const auto& [id, w] : s.workspaces)
      if (id != 1 && chance(50))
        ids.push_back(id);
    return pool_bindings_set{it->first, ids, "admin", tick()};
  }
  case 7: {
    auto name = n("m");
    for (const auto& [id, m] : s.models)
      if (m.name == name) {
        if (chance(30))
          return model_deleted{id, "u1", tick()};
        return model_saved{id,  name,  "d", 1,    !m.archived,
                           obj, {"l"}, "",  "u1", tick()};
      }
    return model_saved{
        s.last_model_id + 1, name, "", 1, false, obj, {}, "", "u1", tick()};
  }
  case 8: {
    auto ws = where(s.workspaces, [](const workspace_info&) { return true; });
    if (ws.empty())
      return std::nullopt;
    // Bound, moved to another namespace, or back to the default ("").
    const char* spaces[] = {"team-a", "team-b", ""};
    return workspace_namespace_bound{pick(ws)->id, chance(80) ? "" : "east",
                                     spaces[below(3)], "admin", tick()};
  }
  case 9: {
    // Global (0) or a workspace's; set, changed or removed (both null).
    int64_t scope = 0;
    auto ws = where(s.workspaces, [](const workspace_info&) { return true; });
    if (!ws.empty() && chance(60))
      scope = pick(ws)->id;
    auto limit = nlohmann::json{{"priority_limit", 1 + below(99)}};
    bool removed = chance(30);
    return config_policies_set{scope,   chance(50) ? "EXPERIMENT" : "NTSC",
                               nullptr, removed ? nlohmann::json() : limit,
                               "admin", tick()};
  }
  default: {
    if (s.models.empty())
      return std::nullopt;
    auto ms = where(s.models, [](const model_info&) { return true; });
    const auto& m = *pick(ms);
    if (!m.versions.empty() && chance(40)) {
      const auto& v = m.versions[below(m.versions.size())];
      if (chance(50))
        return model_version_deleted{m.id, v.version, "u1", tick()};
      return model_version_saved{
          m.id, v.version, v.checkpoint_uuid, "v", "c", "", obj, {},
          "u1", tick()};
    }
    for (const auto& [id, t] : s.trials)
      if (!t.checkpoints.empty())
        return model_version_saved{m.id,
                                   m.last_version + 1,
                                   t.checkpoints.back().uuid,
                                   "",
                                   "",
                                   "",
                                   obj,
                                   {},
                                   "u1",
                                   tick()};
    return std::nullopt;
  }
  }
}

std::optional<domain_event>
command_generator::webhooks(const cluster_state& s) {
  using nlohmann::json;
  auto hooks = where(s.webhooks, [](const webhook_info&) { return true; });
  switch (below(4)) {
  case 0: {
    if (!hooks.empty() && chance(40)) {
      const auto& w = *pick(hooks);
      return webhook_saved{w.id,           w.name, "http://127.0.0.1:9/e",
                           w.webhook_type, w.mode, w.workspace_id,
                           w.triggers,     "u1",   tick()};
    }
    auto t = s.last_webhook_trigger_id + 1;
    json triggers = json::array({{{"id", t},
                                  {"trigger_type", "EXPERIMENT_STATE_CHANGE"},
                                  {"condition", {{"state", "COMPLETED"}}}},
                                 {{"id", t + 1},
                                  {"trigger_type", "TASK_LOG"},
                                  {"condition", {{"regex", "x"}}}}});
    return webhook_saved{s.last_webhook_id + 1,
                         "h",
                         "http://127.0.0.1:9/h",
                         chance(50) ? "DEFAULT" : "SLACK",
                         chance(50) ? "WORKSPACE" : "SPECIFIC",
                         0,
                         triggers,
                         "u1",
                         tick()};
  }
  case 1:
    // Seldom: a webhook lives long enough for its deliveries to be due
    // and to end.
    if (hooks.empty() || !chance(30))
      return std::nullopt;
    return webhook_deleted{pick(hooks)->id, "u1", tick()};
  case 2: {
    if (hooks.empty())
      return std::nullopt;
    const auto& w = *pick(hooks);
    const auto& t = w.triggers[below(w.triggers.size())];
    auto id = s.last_webhook_delivery_id + 1;
    return webhook_delivery_due{id,
                                w.id,
                                t["id"].get<int64_t>(),
                                t["trigger_type"].get<std::string>(),
                                0,
                                id, // a new "trial" each time: never fired
                                {{"event_type", "x"}},
                                tick()};
  }
  default: {
    auto due = where(s.webhook_deliveries,
                     [](const webhook_delivery_info&) { return true; });
    if (due.empty())
      return std::nullopt;
    const auto& d = *pick(due);
    return webhook_delivery_ended{d.id, d.webhook_id, chance(80), 1,
                                  200,  "",           tick()};
  }
  }
}

} // namespace det::state::test
