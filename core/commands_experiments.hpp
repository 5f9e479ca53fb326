#pragma once

// The commands on experiments and their trials, part of core/commands.hpp's
// `command`: what a user asks of an experiment once it exists (and the
// plain submission that the master's tests and tools use; the API creates
// experiments with their model definitions: actors/master_actor.hpp's
// create_atom). Decided in core/master_core_on_experiments.cpp, most by
// the master_core methods they name, whose refusals they keep; an
// experiment_edit is decided in core/master_core_changes.cpp.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det {

/// A validated experiment config (master_core::submit_experiment); a
/// config that is not a JSON object is errc::invalid_argument. Reply
/// {"experiment_id"}.
struct experiment_submit {
  nlohmann::json config;
  std::string owner = {};
};

/// master_core::pause_experiment.
struct experiment_pause {
  int64_t experiment_id = 0;
};

/// master_core::activate_experiment.
struct experiment_activate {
  int64_t experiment_id = 0;
};

/// master_core::kill_experiment.
struct experiment_kill {
  int64_t experiment_id = 0;
};

/// master_core::cancel_experiment.
struct experiment_cancel {
  int64_t experiment_id = 0;
};

/// master_core::kill_trial.
struct trial_kill {
  int64_t trial_id = 0;
};

/// master_core::delete_experiment. Reply {"checkpointsDeleted"}.
struct experiment_delete {
  int64_t experiment_id = 0;
  std::string username = {};
};

/// The resources an edit changes (master_core::change_resources); unset:
/// kept. The core checks only what needs its state (the experiment, not
/// ended); core/experiments_parse.hpp checks the values.
struct resources_edit {
  std::optional<int32_t> priority = {};  ///< 1 (first) to 99
  std::optional<double> weight = {};     ///< positive, finite
  std::optional<int32_t> max_slots = {}; ///< 0 = no limit
};

/// The checkpoint GC counts an edit changes (upstream's
/// saveExperimentBest, saveTrialBest, saveTrialLatest); unset: kept.
struct gc_counts_edit {
  std::optional<int64_t> save_experiment_best = {};
  std::optional<int64_t> save_trial_best = {};
  std::optional<int64_t> save_trial_latest = {};
};

/// A user's edit of an experiment (PATCH /api/v1/experiments/{id}, or a
/// job-queue update's resources), parsed at the route by
/// parse_experiment_edit; unset fields keep their value. An edit that
/// changes nothing writes nothing.
struct experiment_edit {
  int64_t experiment_id = 0;
  std::optional<std::string> name = {};
  std::optional<std::string> description = {};
  std::optional<std::string> notes = {};
  std::optional<std::vector<std::string>> labels = {};
  std::optional<resources_edit> resources = {};
  std::optional<gc_counts_edit> checkpoint_storage = {};
  std::string username = {};
};

/// master_core::archive_experiment (archived false: unarchive).
struct experiment_archive {
  int64_t experiment_id = 0;
  bool archived = true;
  std::string username = {};
};

/// master_core::continue_experiment: the override config (free-form, a
/// partial experiment config) merged over the experiment's.
struct experiment_continue {
  int64_t experiment_id = 0;
  nlohmann::json override_config = nlohmann::json::object();
  std::string username = {};
};

} // namespace det
