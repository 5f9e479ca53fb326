#pragma once

// The commands of experiment creation, part of core/commands.hpp's
// `command`. Creation is two steps around the model definition store (the
// definition is too large for an event): experiment_create records the
// experiment with its model definition pending (no trial is placed), then
// the experiment-creation actor (actors/experiment_creation_actor.hpp)
// stores the files and sends model_definition_stored, or
// model_definition_lost when the store refused them. A master that stops
// in between settles the pending experiment at start-up
// (master_core::settle_model_definitions): stored, or ERROR; never running
// without its model.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

/// A validated experiment from the API: its filled-in config (defaults,
/// template and invariant configs merged, checked by
/// conf::parse_experiment_config), created PAUSED unless `activate`, in
/// project `project_id` (0: the config's `workspace` and `project` names,
/// else project 1), its model definition pending
/// (master_core::create_experiment). Reply {"experiment_id"}.
struct experiment_create {
  nlohmann::json config = nlohmann::json::object();
  std::string owner = {};
  bool activate = true;
  int64_t project_id = 0;
};

/// The model definition of experiment `experiment_id` is stored: its trials
/// may be placed (a no-op when nothing is pending). Reply {}.
struct model_definition_stored {
  int64_t experiment_id = 0;
};

/// It could not be stored: the experiment ends in ERROR with `why`.
/// Reply {}.
struct model_definition_lost {
  int64_t experiment_id = 0;
  std::string why = {};
};

} // namespace det
