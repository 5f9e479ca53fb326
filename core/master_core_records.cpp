// The user's records (core/records.hpp) decided on the master's own state,
// so that uniqueness and ids never race a read copy: most by the generic
// master_core::on (core/master_core.hpp), deleting a workspace here.

#include "core/master_core.hpp"

#include "core/config_policies.hpp"
#include "core/record_models.hpp"
#include "state/records_queries.hpp"

#include <algorithm>

namespace det {

decision master_core::recorded(record_outcome out) {
  decision d;
  if (out.refusal) {
    d.refusal = std::move(out.refusal);
    return d;
  }
  for (auto& ev : out.events)
    if (!emit(d, std::move(ev)))
      return d;
  d.reply = std::move(out.reply);
  return d;
}

// -- workspaces ---------------------------------------------------------------

decision master_core::on(const workspace_delete& c, int64_t now_us) {
  auto d = recorded(decide_record(st_, c, now_us));
  if (d.refusal)
    return d;
  // As upstream: a deleted workspace's tasks are killed with it.
  std::vector<std::string> live;
  for (const auto& [tid, t] : st_.tasks)
    if (t.workspace_id == c.id && t.state != state::task_state::terminated)
      live.push_back(tid);
  for (const auto& tid : live)
    absorb(d, kill_task(tid, c.username, "its workspace was deleted", now_us));
  return d;
}

} // namespace det

namespace det {

std::string master_core::project_for(const nlohmann::json& config,
                                     const std::string& pool,
                                     int64_t& project_id) const {
  auto ws = config.find("workspace");
  auto pr = config.find("project");
  bool ws_named = ws != config.end() && ws->is_string() && !ws->empty();
  bool pr_named = pr != config.end() && pr->is_string() && !pr->empty();
  if (project_id == 0 && (ws_named || pr_named)) {
    if (!(ws_named && pr_named))
      return "workspace and project must both be included in config if one "
             "is provided";
    auto w = state::workspace_named(st_, ws->get<std::string>());
    auto p = w ? state::project_named(st_, w->id, pr->get<std::string>())
               : std::nullopt;
    if (!p) {
      project_id = -1;
      return "project '" + pr->get<std::string>() + "' not found in workspace '"
             + ws->get<std::string>() + "'";
    }
    project_id = p->id;
  }
  if (project_id == 0)
    project_id = state::default_project_id;
  auto p = state::find_project(st_, project_id);
  if (!p) {
    auto why = "project '" + std::to_string(project_id) + "' not found";
    project_id = -1;
    return why;
  }
  auto w = state::find_workspace(st_, p->workspace_id);
  if (p->archived || (w && w->archived))
    return "project '" + p->name
           + "' is archived: no experiment can be "
             "created in it";
  auto b = st_.pool_bindings.find(pool);
  if (b != st_.pool_bindings.end()) {
    const auto& ids = b->second.workspace_ids;
    if (std::find(ids.begin(), ids.end(), p->workspace_id) == ids.end())
      return "invalid resource configuration: resource pool " + pool
             + " does not exist or is not available to workspace id "
             + std::to_string(p->workspace_id);
  }
  return {};
}

} // namespace det
