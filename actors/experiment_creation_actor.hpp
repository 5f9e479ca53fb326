#pragma once

// Experiment creation with its model definition, decided here rather than
// in a route. One request carries the validated experiment and its files;
// the actor then:
//   1. sends experiment_create to the master: the experiment is recorded
//      with its model definition pending (created PAUSED unless activated),
//      so no trial of it is placed;
//   2. stores the files with the model definition actor
//      (actors/model_def_actor.hpp), which builds the .tar.gz;
//   3. sends model_definition_stored (its trials may be placed), or
//      model_definition_lost with the store's error (the experiment ends in
//      ERROR);
// and answers the experiment id once step 3 is durable, or the error of
// the step that failed (the store's error once model_definition_lost is
// durable). A master that stops between the steps leaves a pending
// experiment that its next start settles (master_core::
// settle_model_definitions): stored, or ERROR; never one running without
// its model (core/commands_experiment_creation.hpp).
//
// Reads of an experiment's model definition come here too: one whose
// definition is being stored waits until step 2 ends, then reads the
// store (the files, or not_found when they were lost); others read it at
// once.
//   (create_atom, experiment_creation) -> int64_t experiment id
//   (get_atom, experiment_id) -> base64 .tar.gz text; errc::not_found.
// Both are always answered: ask with caf::infinite. The actor's own
// requests to the master and reads of the store time out after
// `request_timeout`; storing does not (95 MiB may take a while).

#include "actors/master_actor.hpp"
#include "actors/model_def_actor.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace det {

/// One experiment to create: what experiment_create carries, and its model
/// definition (moved here from the request, never copied).
struct experiment_creation {
  /// The filled-in config, validated by the API.
  nlohmann::json config = nlohmann::json::object();
  std::string owner = {};
  bool activate = true;
  /// 0: the config's workspace and project names, else project 1.
  int64_t project_id = 0;
  model_files files = {};
};

caf::actor spawn_experiment_creation_actor(
    caf::actor_system& sys, master_actor master, caf::actor model_defs,
    std::chrono::milliseconds request_timeout = std::chrono::seconds{30});

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::experiment_creation)
