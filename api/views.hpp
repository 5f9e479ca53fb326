#pragma once

// The master's state rendered in the upstream REST shapes (v1Experiment,
// trialv1Trial, ...) and the lookups the REST and WebSocket handlers need.
// Pure functions of a cluster_state: they run inside the master actor as a
// state_view (actors/master_actor.hpp), never on another thread.

#include "core/master_core.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::api {

/// RFC 3339 UTC with microseconds; "" for 0.
std::string rfc3339(int64_t at_us);

/// "STATE_ACTIVE", ... (experimentv1State / trialv1State).
std::string experiment_state_name(state::experiment_status s);
/// The same, an active experiment shown by its trials (QUEUED, PULLING,
/// RUNNING), as upstream reports it.
std::string experiment_state_name(const state::cluster_state& s,
                                  const state::experiment_info& e);
std::string trial_state_name(state::trial_status s);

/// Where an experiment lives: its project (name, key) and workspace (id,
/// name), and whether either is archived. A project that is gone reads as
/// empty names in the default workspace (id 1).
struct experiment_home {
  std::string project_name;
  std::string project_key;
  int64_t workspace_id = 1;
  std::string workspace_name;
  bool parent_archived = false;
};
experiment_home home_of(const state::cluster_state& s, int64_t project_id);

/// Whether a list asking for live experiments (archived=false) leaves `e`
/// out, as upstream: archived itself, or (unless the list is of one
/// project) in an archived project or workspace.
bool listed_as_archived(const state::cluster_state& s,
                        const state::experiment_info& e, bool one_project);

/// What an experiment's JSON carries. A list row (GET /api/v1/experiments)
/// leaves originalConfig, the submitted text, empty, as upstream's lists do;
/// GET /api/v1/experiments/{id} fills it in.
enum class experiment_detail { row, full };

/// The experiment's config as it is now: the submitted one with
/// resources.priority, weight and max_slots as they were last changed.
nlohmann::json effective_config(const state::experiment_info& e);

nlohmann::json
experiment_json(const state::cluster_state& s, const state::experiment_info& e,
                experiment_detail detail = experiment_detail::full);
nlohmann::json trial_json(const state::trial_info& t);
/// A trial's `summaryMetrics` as upstream keys it: training under
/// "avg_metrics", validation under "validation_metrics", any other group
/// under its own name, each {metric: {type, count, sum, min, max, mean,
/// last}} (state/metric_summary.hpp); null before the first report.
nlohmann::json summary_metrics_json(const state::metrics_summary& m);
/// The same, and for a pending trial whose pool's last launch failed,
/// `pendingReason` saying so (kind and message), so a user sees why it
/// waits.
nlohmann::json trial_json(const state::cluster_state& s,
                          const state::trial_info& t);

/// GET /api/v1/experiments: {"experiments": [...], "pagination": {...}}.
nlohmann::json experiments_response(const state::cluster_state& s);

/// {"experiment": ..., "config": ...}, or null when absent.
/// Describe-experiment: its config with secrets redacted, unless
/// `allocation_id` is a live allocation of one of its trials.
nlohmann::json experiment_response(const state::cluster_state& s, int64_t id,
                                   const std::string& allocation_id = {});

/// {"trials": [...], "pagination": ...}, or null when the experiment is
/// absent.
nlohmann::json trials_response(const state::cluster_state& s, int64_t id);

/// {"allocation_id": "<id>" or "", "experiment_id": N, "unmanaged": its
/// experiment's flag}, or null when the trial is absent.
nlohmann::json trial_allocation(const state::cluster_state& s,
                                int64_t trial_id);

/// {"live": bool, "preempt": bool} for an allocation id.
nlohmann::json preemption_status(const state::cluster_state& s,
                                 const std::string& allocation_id);

/// The experiment's entrypoint as one shell command ("" when unknown).
std::string entrypoint_of(const state::cluster_state& s, int64_t experiment_id);

/// What the `start` frame needs besides the order: the order's fields plus
/// the experiment's entrypoint, as a JSON object (see agent_ws.cpp).
struct start_context {
  std::string master_url;
  std::string checkpoint_dir;
  /// The configured cluster id (tags, labels, agents' work folders):
  /// DET_CLUSTER_ID.
  std::string cluster_id;
  /// The cluster's uuid, as GET /info's cluster_id: DET_CLUSTER_UUID, what
  /// the harness's ClusterInfo calls cluster_id (TensorBoard files go
  /// under <storage>/<it>/tensorboard, where upstream's tools look).
  std::string cluster_uuid;
};

/// What a trial of `o` needs from the state besides the order:
/// {"entrypoint": "...", "env": {DET_TASK_ID, DET_USER, DET_TRIAL_RUN_ID,
/// DET_TRIAL_SEED, DET_STEPS_COMPLETED, DET_EXPERIMENT_CONFIG (the filled
/// config), the config's environment.environment_variables}}; null when the
/// trial is gone.
nlohmann::json start_environment(const state::cluster_state& s,
                                 const start_order& o);

/// The agent protocol's `start` frame for `o`, with the environment
/// (DET_SESSION_TOKEN is `token`); `info` is start_environment's answer.
nlohmann::json start_frame(const start_order& o, const nlohmann::json& info,
                           const start_context& ctx, const std::string& token);

} // namespace det::api
