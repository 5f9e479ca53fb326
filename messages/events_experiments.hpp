#pragma once

// Persisted events of experiments: submitted, their model stored, their
// state, searcher and scheduling changed, edited, archived, deleted, and
// their settings changed after creation (the checkpoint GC policy, log
// retention). Included by messages/events.hpp (the catalogue); the rules
// there apply (past tense, never renamed, new fields at the end).

#include "messages/event_definition.hpp"
#include "messages/priority.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// Experiment states in upstream spelling.
inline const std::vector<std::string>& experiment_states() {
  static const std::vector<std::string> xs{"ACTIVE",
                                           "PAUSED",
                                           "STOPPING_COMPLETED",
                                           "STOPPING_CANCELED",
                                           "STOPPING_KILLED",
                                           "STOPPING_ERROR",
                                           "COMPLETED",
                                           "CANCELED",
                                           "ERROR"};
  return xs;
}

/// A user submitted an experiment. `config` is the validated experiment
/// configuration as the user gave it (with defaults filled in). It starts
/// ACTIVE.
struct experiment_submitted {
  static constexpr const char* type_name = "experiment_submitted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string pool;
  std::string owner;
  nlohmann::json config = nlohmann::json::object();
  int32_t priority = default_priority;
  double weight = 1.0;
  int32_t max_restarts = 5;
  int32_t slots_per_trial = 1;
  int64_t at_us = 0;
  /// Its model definition is being stored: no trial of it is placed until
  /// experiment_model_stored (absent in older logs: false).
  bool model_definition_pending = false;
  /// The project it is created in; 0 (older logs) means project 1,
  /// "Uncategorized".
  int64_t project_id = 0;
  /// Created with `unmanaged: true`: its trials run outside the cluster
  /// (messages/events_unmanaged.hpp); it has no searcher and no model
  /// definition, and starts PAUSED. `external_id` is the name a client
  /// puts it by (PUT /api/v1/experiments/by-external-id/{id}), "" for none.
  bool unmanaged = false;
  std::string external_id;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("pool", pool);
    f.opt("owner", owner);
    f.opt("config", config);
    f.opt("priority", priority);
    f.opt("weight", weight);
    f.opt("max_restarts", max_restarts);
    f.opt("slots_per_trial", slots_per_trial);
    f.opt("at_us", at_us);
    f.opt("model_definition_pending", model_definition_pending);
    f.opt("project_id", project_id);
    f.opt("unmanaged", unmanaged);
    f.opt("external_id", external_id);
  }
  void validate() const {
    require_object(config, "field 'config'");
    if (slots_per_trial < 1)
      throw field_error("field 'slots_per_trial': must be at least 1");
    require_non_negative("max_restarts", max_restarts);
    if (!(weight > 0))
      throw field_error("field 'weight': must be positive");
    require_non_negative("project_id", project_id);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// The model definition of an experiment created with
/// model_definition_pending is stored; its trials may now be placed.
struct experiment_model_stored {
  static constexpr const char* type_name = "experiment_model_stored";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.opt("at_us", at_us);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// An experiment moved to `state`: ACTIVE, PAUSED, STOPPING_COMPLETED,
/// STOPPING_CANCELED, STOPPING_KILLED, STOPPING_ERROR, COMPLETED, CANCELED,
/// ERROR.
struct experiment_state_changed {
  static constexpr const char* type_name = "experiment_state_changed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string state;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("state", state);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  void validate() const { require_one_of("state", state, experiment_states()); }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// The searcher's state after it acted (opaque to state/, owned by the
/// searcher in policy/), and its progress in [0, 1]. `inputs_through` is
/// the seq of the last queued searcher input it has consumed (0: none yet);
/// -1, which logs written before the inbox existed read as, consumed
/// every input queued so far.
struct experiment_searcher_updated {
  static constexpr const char* type_name = "experiment_searcher_updated";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  nlohmann::json searcher_state = nlohmann::json::object();
  double progress = 0.0;
  int64_t inputs_through = -1;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.opt("searcher_state", searcher_state);
    f.opt("progress", progress);
    f.opt("inputs_through", inputs_through);
  }
  void validate() const {
    if (!(progress >= 0.0 && progress <= 1.0))
      throw field_error("field 'progress': must be within [0, 1]");
    if (inputs_through < -1)
      throw field_error("field 'inputs_through': must be -1 or more");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user changed an experiment's scheduling: its priority (1-99, lower
/// runs first), fair-share weight, and the most slots its trials may hold
/// at once (0 = no limit). The event holds all three as they are now.
struct experiment_resources_changed {
  static constexpr const char* type_name = "experiment_resources_changed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int32_t priority = 0;
  double weight = 1.0;
  int32_t max_slots = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("priority", priority);
    f.req("weight", weight);
    f.req("max_slots", max_slots);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (priority < 1 || priority > 99)
      throw field_error("field 'priority': must be within [1, 99]");
    if (!(weight > 0.0) || !std::isfinite(weight))
      throw field_error("field 'weight': must be a positive number");
    if (max_slots < 0)
      throw field_error("field 'max_slots': must be 0 or more");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user asked to delete an ended experiment (det experiment delete): it
/// shows as DELETING and takes no command until the checkpoint collector
/// has deleted its checkpoints and TensorBoard files and records
/// experiment_deleted.
struct experiment_deletion_started {
  static constexpr const char* type_name = "experiment_deletion_started";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// An ended experiment is deleted: it and its trials leave the state; their
/// ids are never given again. After experiment_deletion_started, the
/// collector records it once the files are gone; a workspace deleted with
/// its projects deletes its experiments at once.
struct experiment_deleted {
  static constexpr const char* type_name = "experiment_deleted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user edited an experiment's name, description, notes or labels; the
/// event holds all four as they are now.
struct experiment_edited {
  static constexpr const char* type_name = "experiment_edited";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string name;
  std::string description;
  std::string notes;
  std::vector<std::string> labels;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("name", name);
    f.opt("description", description);
    f.opt("notes", notes);
    f.opt("labels", labels);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (name.empty())
      throw field_error("field 'name': must not be empty");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user archived (or unarchived) an ended experiment: lists leave it out
/// unless asked for archived ones.
struct experiment_archived {
  static constexpr const char* type_name = "experiment_archived";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  bool archived = true;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("archived", archived);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user changed an experiment's checkpoint garbage-collection policy
/// (`det experiment set gc-policy`): its checkpoint_storage keeps these
/// counts from now on, and the collector deletes what they no longer keep.
struct experiment_gc_policy_changed {
  static constexpr const char* type_name = "experiment_gc_policy_changed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 0;
  int64_t save_trial_latest = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("save_experiment_best", save_experiment_best);
    f.req("save_trial_best", save_trial_best);
    f.req("save_trial_latest", save_trial_latest);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_negative("save_experiment_best", save_experiment_best);
    require_non_negative("save_trial_best", save_trial_best);
    require_non_negative("save_trial_latest", save_trial_latest);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user set how long the logs of an experiment's trials (`trial_ids`;
/// empty = all of them) are kept after each trial ends (`det experiment
/// set log-retention`, `det trial set log-retention`): `days` from 0, or
/// -1 for ever.
struct log_retention_set {
  static constexpr const char* type_name = "log_retention_set";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<int64_t> trial_ids;
  int64_t days = -1;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.opt("trial_ids", trial_ids);
    f.req("days", days);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (days < -1 || days > 32767)
      throw field_error("field 'days': must be within [-1, 32767]");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

using experiment_event_family =
    event_family<experiment_submitted, experiment_model_stored,
                 experiment_state_changed, experiment_searcher_updated,
                 experiment_resources_changed, experiment_deleted,
                 experiment_edited, experiment_archived,
                 experiment_gc_policy_changed, log_retention_set,
                 experiment_deletion_started>;

} // namespace det
