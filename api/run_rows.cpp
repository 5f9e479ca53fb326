#include "api/run_rows.hpp"

#include "api/route_util.hpp"
#include "api/views.hpp"
#include "state/queries.hpp"

#include <algorithm>

namespace det::api {

using json = nlohmann::json;

/// A run's state as upstream's runs table keeps it: ACTIVE until it ends
/// (however it waits or runs), PAUSED with its experiment.
std::string run_state_name(const state::trial_info& t,
                           const state::experiment_info& e) {
  if (state::is_terminal(t.status))
    return trial_state_name(t.status);
  return e.status == state::experiment_status::paused ? "STATE_PAUSED"
                                                      : "STATE_ACTIVE";
}

/// A run as upstream's v1FlatRun.
json flat_run(const state::cluster_state& s, const state::trial_info& t,
              const state::experiment_info& e, int64_t now_us) {
  const auto& c = e.config;
  auto searcher = c.value("searcher", json::object());
  auto home = home_of(s, e.project_id);
  int64_t count = 0;
  int64_t bytes = 0;
  for (const auto& cp : t.checkpoints)
    if (state::checkpoint_kept(cp)) {
      ++count;
      bytes += state::checkpoint_bytes(cp);
    }
  auto owner = s.users.find(e.owner);
  bool ended = state::is_terminal(t.status);
  int64_t end_us = ended ? t.ended_at_us : now_us;
  json j{
      {"id", t.id},
      {"state", run_state_name(t, e)},
      {"startTime", rfc3339(t.created_at_us)},
      {"duration", std::max<int64_t>(0, (end_us - t.created_at_us) / 1000000)},
      {"archived", t.archived},
      {"parentArchived", e.archived || home.parent_archived},
      {"checkpointCount", count},
      {"checkpointSize", std::to_string(bytes)},
      {"projectId", e.project_id},
      {"projectName", home.project_name},
      {"workspaceId", home.workspace_id},
      {"workspaceName", home.workspace_name},
      {"hyperparameters", t.hparams},
      {"labels", c.value("labels", json::array())},
      {"localId", home.project_key + "-" + std::to_string(t.id)},
      {"userId", owner == s.users.end() ? 0 : owner->second.id},
      {"experiment",
       {{"id", e.id},
        {"name", c.value("name", std::string{"Experiment"})},
        {"description", c.value("description", std::string{})},
        {"searcherType", searcher.value("name", std::string{"single"})},
        {"searcherMetric", searcher.value("metric", std::string{})},
        {"resourcePool", e.pool},
        {"progress", e.progress},
        {"unmanaged", false},
        {"isMultitrial", e.trial_ids.size() > 1}}},
  };
  if (ended)
    j["endTime"] = rfc3339(t.ended_at_us);
  if (!t.log_policy_matched.empty())
    j["logPolicyMatched"] = t.log_policy_matched;
  if (t.metrics.best_validation)
    j["searcherMetricValue"] = *t.metrics.best_validation;
  if (auto summary = summary_metrics_json(t.metrics); !summary.is_null())
    j["summaryMetrics"] = std::move(summary);
  return j;
}

} // namespace det::api
