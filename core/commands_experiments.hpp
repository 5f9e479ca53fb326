#pragma once

// The commands on experiments and their trials, part of core/commands.hpp's
// `command`: what a user asks of an experiment once it exists (and the
// plain submission that the master's tests and tools use; the API creates
// experiments with their model definitions: actors/master_actor.hpp's
// create_atom). Decided in core/master_core_on_experiments.cpp by the
// master_core methods they name, whose refusals they keep.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

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

/// master_core::edit_experiment. The patch stays JSON: the core checks it
/// field by field in its own order (the experiment first, then each key:
/// unknown ones refused by name) and hands "resources" and
/// "checkpointStorage" on as they are, so typed fields would move those
/// checks and their refusals to the route.
struct experiment_edit {
  int64_t experiment_id = 0;
  nlohmann::json patch = nlohmann::json::object();
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
