#pragma once

// The commands on runs and trials that users' sessions send (members of
// `command`, core/commands.hpp): the Runs API's actions, a user's metric
// report, and unmanaged experiments and trials, whose trials run outside
// the cluster (the SDK's core_v2) and report through a user's session. The
// API builds each from the request with its parse function
// (core/trials_parse.hpp), which checked every field's shape; the core's
// decider (core/runs.hpp, core/master_core_unmanaged.cpp) checks what
// depends on the state. `username` is the caller, set by the API.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det {

// -- the Runs API (core/runs.hpp) -------------------------------------------

/// What an action of the Runs API does to each run it takes.
enum class run_action {
  kill,      ///< kill the run's trial (an ended one counts as done)
  pause,     ///< pause its experiment (single-trial searches only)
  resume,    ///< activate its experiment (single-trial searches only)
  move,      ///< move its experiment to another project
  archive,   ///< archive the ended run
  unarchive, ///< unarchive the ended run
  remove,    ///< delete the ended run of an ended experiment
};

/// POST /api/v1/runs/{kill,pause,resume,move,archive,unarchive,delete}:
/// the runs `run_ids` (a filter the API resolved to the ids a search with
/// it lists), each qualified against the master's state in the one
/// decision. Reply {"results": [{"id", "error"}]} ("" = done), and for
/// remove {"deleted": [ids]} (the API then drops their logs).
struct runs_act {
  run_action action = run_action::kill;
  std::vector<int64_t> run_ids = {};
  /// 0: runs of any project; else a run elsewhere is "not found".
  int64_t project_id = 0;
  int64_t destination_project_id = 0; ///< move
  bool skip_multitrial = false;       ///< move: leave multi-trial runs
  std::string username = {};
};

/// POST /api/v1/trials/{id}/metrics from a user's session: metrics for an
/// unmanaged trial, or for a managed one that is not running (only its
/// experiment's owner or an admin, never once it ended).
struct user_metrics_report {
  int64_t trial_id = 0;
  std::string group = {};
  int64_t steps = 0;
  nlohmann::json metrics = nlohmann::json::object();
  std::string username = {};
};

// -- unmanaged experiments and trials (core/master_core_unmanaged.cpp) ------

/// POST /api/v1/experiments with unmanaged, PUT .../by-external-id: the
/// experiment `external_id` names if there is one, else a new one. Reply
/// {experiment_id, created}.
struct unmanaged_experiment_open {
  nlohmann::json config = nlohmann::json::object(); ///< filled, validated
  std::string external_id = {};                     ///< "" = none
  int64_t project_id = 0;                           ///< 0 = as the config says
  std::string username = {};
};

/// POST /api/v1/trials, PUT /api/v1/trials: a trial of an unmanaged
/// experiment (the one `external_id` names again, unless its hparams
/// changed). Reply {trial_id}.
struct unmanaged_trial_open {
  int64_t experiment_id = 0;
  std::string external_id = {}; ///< "" = none
  nlohmann::json hparams = nlohmann::json::object();
  std::string username = {};
};

/// POST /api/v1/trials/{id}/start. Reply {trialRunId, latestCheckpoint,
/// stepsCompleted}.
struct unmanaged_trial_start {
  int64_t trial_id = 0;
  bool resume = false;
  std::string username = {};
};

/// PATCH /api/v1/trials/{id}: a heartbeat, and a new state when `state`
/// is set (PAUSED, RUNNING, COMPLETED, CANCELED or ERROR).
struct unmanaged_trial_patch {
  int64_t trial_id = 0;
  std::optional<std::string> state = {};
  std::string username = {};
};

/// POST /api/v1/checkpoints for an unmanaged trial (named by its task id).
struct unmanaged_checkpoint {
  int64_t trial_id = 0;
  std::string uuid = {};
  int64_t steps = 0;
  nlohmann::json metadata = nlohmann::json::object();
  std::string username = {};
};

} // namespace det
