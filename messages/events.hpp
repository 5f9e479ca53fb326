#pragma once

// The catalogue of persisted domain events (past tense, never renamed once
// released). Each struct names its type and current schema version; its
// payload form is in events.cpp and documented in docs/events.md. Streams:
// "cluster", "pool/<name>", "agent/<id>", "experiment/<id>", "trial/<id>",
// "instance/<id>" (EC2 instance ids and spot request ids alike); "user/<name>"
// is reserved for users and auth tokens.
//
// Instants are microseconds since the Unix epoch taken from the deciding
// actor's clock (`*_us`); durations are whole seconds (`*_s`). state/ takes
// every time from these fields, never from a clock, so timers survive a
// restart.
//
// To add an event: a struct here, its entry in domain_event, its fields() and
// stream in events.cpp, a line in docs/events.md, and a round-trip case in
// tests/messages. New fields go at the end of a struct (aggregate
// initialisers elsewhere rely on the order). To change a released payload:
// bump `version`, add an upcaster from the old version in events.cpp, keep a
// golden file of the old form in tests/data/events/.

#include "messages/event.hpp"
#include "messages/events_accounts.hpp"
#include "messages/events_capacity.hpp"
#include "messages/events_checkpoint_files.hpp"
#include "messages/events_continue.hpp"
#include "messages/events_experiments.hpp"
#include "messages/events_instances.hpp"
#include "messages/events_records.hpp"
#include "messages/events_runs.hpp"
#include "messages/events_unmanaged.hpp"
#include "messages/events_webhooks.hpp"
#include "messages/priority.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace det {

// -- cluster ----------------------------------------------------------------

/// A master process took the writer lock and started.
struct master_started {
  static constexpr const char* type_name = "master_started";
  static constexpr int32_t version = 1;
  std::string cluster_id;
  std::string host;
  int64_t pid = 0;
  std::string master_version;
  int64_t at_us = 0;
  /// The cluster's identity (a UUID made by the first master that had
  /// none; `/api/v1/master` clusterId) and this master process's own
  /// (masterId). Absent in logs of older masters.
  std::string cluster_uuid{};
  std::string master_uuid{};
};

// -- pools ------------------------------------------------------------------

/// A resource pool exists with this configuration (repeated when the
/// master's configuration changes it).
struct pool_configured {
  static constexpr const char* type_name = "pool_configured";
  static constexpr int32_t version = 1;
  std::string pool;
  /// "priority" or "fair_share".
  std::string scheduler = "priority";
  /// "" (static agents only), "local" or "aws".
  std::string provider;
  int32_t slots_per_instance = 0;
  int32_t min_instances = 0;
  int32_t max_instances = 0;
  std::string instance_type;
  bool spot = false;
  int64_t max_idle_agent_period_s = 1200;
  int64_t max_agent_starting_period_s = 1200;
  int64_t agent_reconnect_wait_s = 25;
};

/// Equal when every payload field is (the event's one field list in
/// messages/event_payloads.hpp); pool_info compares its configuration so.
bool operator==(const pool_configured& a, const pool_configured& b);

// -- agents -----------------------------------------------------------------

/// An agent connected and reported its slots; or, while its reconnect
/// deadline runs, reconnected with the same pool, slots and instance.
/// Version 1 called the pool "resource_pool" and had no slot type.
struct agent_connected {
  static constexpr const char* type_name = "agent_connected";
  static constexpr int32_t version = 2;
  std::string agent_id;
  std::string pool;
  int32_t slots = 0;
  /// "cpu", "cuda" or "rocm".
  std::string slot_type = "cpu";
  /// The provisioner's instance id, empty for static agents.
  std::string instance_id;
  int64_t at_us = 0;
};

/// An agent's connection closed; it keeps its slots (and its trials keep
/// running) until `reconnect_deadline_us`.
struct agent_disconnected {
  static constexpr const char* type_name = "agent_disconnected";
  static constexpr int32_t version = 1;
  std::string agent_id;
  std::string reason;
  int64_t reconnect_deadline_us = 0;
  int64_t at_us = 0;
};

/// An agent is gone for good; every allocation holding one of its slots
/// ends with it (reason agent_lost, or spot_reclaimed when `reason` is
/// spot_reclaimed; neither counts against max_restarts). `reason`:
/// reconnect_timeout, spot_reclaimed, instance_terminated, shut_down.
struct agent_lost {
  static constexpr const char* type_name = "agent_lost";
  static constexpr int32_t version = 1;
  std::string agent_id;
  std::string reason;
  int64_t at_us = 0;
};

/// An operator enabled a disabled agent: it takes new work again.
struct agent_enabled {
  static constexpr const char* type_name = "agent_enabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
};

/// An operator disabled an agent: no new work is placed on it. With `drain`
/// its running trials finish; without, the actor kills them.
struct agent_disabled {
  static constexpr const char* type_name = "agent_disabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  bool drain = false;
};

/// An operator disabled one slot of an agent (det slot disable): no new
/// work is placed on it; without `drain` the trial on it is killed.
struct slot_disabled {
  static constexpr const char* type_name = "slot_disabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  int64_t slot_id = 0;
  bool drain = false;
};

/// The slot takes work again (det slot enable).
struct slot_enabled {
  static constexpr const char* type_name = "slot_enabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  int64_t slot_id = 0;
};

// -- experiments ------------------------------------------------------------

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
};

/// The model definition of an experiment created with
/// model_definition_pending is stored; its trials may now be placed.
struct experiment_model_stored {
  static constexpr const char* type_name = "experiment_model_stored";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int64_t at_us = 0;
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
};

// -- trials -----------------------------------------------------------------

/// The experiment's searcher created a trial with these hyperparameters;
/// `request_id` is the searcher's name for it.
struct trial_created {
  static constexpr const char* type_name = "trial_created";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  nlohmann::json hparams = nlohmann::json::object();
  std::string request_id;
  int64_t at_us = 0;
};

/// Slots of one agent given to an allocation.
struct slot_assignment {
  std::string agent_id;
  std::vector<int64_t> slots;
};

inline bool operator==(const slot_assignment& a, const slot_assignment& b) {
  return a.agent_id == b.agent_id && a.slots == b.slots;
}

/// The scheduler gave a trial its slots; `allocation_id` identifies this
/// run of the trial ("<trial_id>.<run>", state::allocation_id_for) and the
/// agent's start order carries it.
struct trial_placed {
  static constexpr const char* type_name = "trial_placed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  std::vector<slot_assignment> assignments;
  int64_t at_us = 0;
};

/// Every container of the allocation started.
struct trial_running {
  static constexpr const char* type_name = "trial_running";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  int64_t at_us = 0;
};

/// The master asked the trial to checkpoint and exit (scheduler preemption,
/// experiment paused, agent disabled).
struct trial_preemption_requested {
  static constexpr const char* type_name = "trial_preemption_requested";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  std::string reason;
  int64_t at_us = 0;
};

/// A trial saved a checkpoint; restarts resume from the latest one.
struct trial_checkpointed {
  static constexpr const char* type_name = "trial_checkpointed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string uuid;
  int64_t steps_completed = 0;
  nlohmann::json metadata = nlohmann::json::object();
  std::string allocation_id;
  int64_t at_us = 0;
};

/// A trial reported the metrics of one group (`kind`) at a step.
struct trial_metrics_reported {
  static constexpr const char* type_name = "trial_metrics_reported";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  /// The metric group (messages/metric_group.hpp): "training" and
  /// "validation" mean what they always did (the latest validation feeds
  /// the searcher); any other group a trial names is kept as reported.
  std::string kind;
  int64_t steps_completed = 0;
  nlohmann::json metrics = nlohmann::json::object();
  int64_t at_us = 0;
};

/// A trial's allocation ended; its slots are free. `reason`: completed,
/// killed (the trial ends), failed (counts a restart), preempted, paused,
/// agent_lost, spot_reclaimed (the trial may be restarted without counting).
struct trial_exited {
  static constexpr const char* type_name = "trial_exited";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  int32_t exit_code = 0;
  std::string reason;
  int64_t at_us = 0;
};

/// An exited trial waits for a new allocation again (resuming from its
/// latest checkpoint).
struct trial_restarted {
  static constexpr const char* type_name = "trial_restarted";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t at_us = 0;
};

/// A trial ended in ERROR: restarts exhausted, or its request cannot be met.
struct trial_errored {
  static constexpr const char* type_name = "trial_errored";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string reason;
  int64_t at_us = 0;
};

/// A trial without an allocation was closed (experiment canceled or the
/// searcher no longer wants it).
struct trial_canceled {
  static constexpr const char* type_name = "trial_canceled";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string reason;
  int64_t at_us = 0;
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
};

/// A user deleted an ended experiment (det experiment delete): it and its
/// trials leave the state; their ids are never given again.
struct experiment_deleted {
  static constexpr const char* type_name = "experiment_deleted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string username;
  int64_t at_us = 0;
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
};

/// Checkpoints of an experiment are to be deleted from its checkpoint
/// storage (its GC policy when a trial ended or the policy changed, or a
/// user's `det checkpoint delete`); they stay in the list until
/// checkpoints_deleted. A master restarted in between deletes them again.
struct checkpoints_deletion_requested {
  static constexpr const char* type_name = "checkpoints_deletion_requested";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  /// "gc" (the policy) or "user".
  std::string reason;
  std::string username;
  int64_t at_us = 0;
};

/// Their files (shared_fs) or objects (s3) are gone: state DELETED.
struct checkpoints_deleted {
  static constexpr const char* type_name = "checkpoints_deleted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  int64_t at_us = 0;
};

using domain_event = std::variant<
    master_started, pool_configured, agent_connected, agent_disconnected,
    agent_lost, agent_enabled, agent_disabled, instance_launch_requested,
    instance_launch_failed, instance_pending, instance_running,
    instance_terminate_requested, instance_terminated, spot_request_opened,
    spot_request_fulfilled, spot_request_cancelled, experiment_submitted,
    experiment_state_changed, experiment_searcher_updated, trial_created,
    trial_placed, trial_running, trial_preemption_requested, trial_checkpointed,
    trial_metrics_reported, trial_exited, trial_restarted, trial_errored,
    trial_canceled, user_created, user_password_changed, session_started,
    session_ended, experiment_model_stored, experiment_edited,
    experiment_archived, user_edited, access_token_created,
    access_token_changed, cluster_message_set, experiment_resources_changed,
    slot_disabled, slot_enabled, experiment_deleted,
    checkpoints_deletion_requested, checkpoints_deleted,
    // messages/events_records.hpp
    workspace_saved, workspace_deleted, project_saved, project_deleted,
    experiment_moved, template_saved, template_deleted, pool_bindings_set,
    model_saved, model_deleted, model_version_saved, model_version_deleted,
    // messages/events_webhooks.hpp
    webhook_saved, webhook_deleted, webhook_delivery_due,
    webhook_delivery_ended,
    // messages/events_capacity.hpp
    agent_slots_changed,
    // messages/events_experiments.hpp
    experiment_gc_policy_changed, log_retention_set,
    // messages/events_checkpoint_files.hpp
    checkpoint_files_removal_requested, checkpoint_files_removed,
    // messages/events_continue.hpp
    experiment_continued,
    // messages/events_runs.hpp
    runs_archived, runs_deleted, trial_log_policy_matched,
    // messages/events_unmanaged.hpp
    unmanaged_trial_created, unmanaged_trial_state_set,
    // messages/events_records.hpp (later)
    workspace_namespace_bound, config_policies_set,
    // messages/events_checkpoint_files.hpp (later)
    checkpoint_metadata_set>;

/// The type name of the alternative `ev` holds.
const char* type_name_of(const domain_event& ev);

/// The stream an event belongs to ("trial/42").
std::string stream_of(const domain_event& ev);

/// The event as the log stores it, at its current schema version.
event_envelope to_envelope(const domain_event& ev);

/// Shorthand: to_envelope plus stream_of.
new_event to_new_event(const domain_event& ev);

/// Decodes a stored event: parses the payload, upgrades it from an older
/// schema version, and checks every field. Errors (invalid_event,
/// unknown_event_type) name the position, the type and the field.
caf::expected<domain_event> decode(const recorded_event& rec);

/// Decodes an envelope that is not (yet) in the log; `where` names it in
/// errors.
caf::expected<domain_event> decode(const event_envelope& env,
                                   const std::string& where);

/// Checks what decode() checks beyond field types (closed vocabularies,
/// ranges) on an event built in memory; errc::invalid_event names the
/// field. state::apply() calls it, so actors get the same checks as replay.
caf::error validate(const domain_event& ev);

/// The values of an event by kind, each named by its payload key: every
/// text field (each item of a list, and "assignments[].agent_id"), every
/// document (config, hparams, metrics, ...), every floating-point number.
/// Integers and booleans are not visited. Unset members are skipped.
struct event_field_visitor {
  std::function<void(const char* key, std::string&)> text;
  std::function<void(const char* key, nlohmann::json&)> document;
  std::function<void(const char* key, double&)> number;
};
void visit_fields(domain_event& ev, const event_field_visitor& v);

/// Makes the reasons and messages of `ev` keep storable()'s rules (text
/// that is not UTF-8, control characters other than tab and line breaks
/// become U+FFFD; cut at 4096 bytes). They are the master's words, which
/// may quote a client; they never make a command fail.
void fit_prose(domain_event& ev);

/// Checks that the log can hold `ev` as it is: every string UTF-8 without
/// NUL, names and ids without control characters and at most 255 bytes,
/// reasons and messages at most 4096, documents (config, hparams, metrics,
/// metadata) without NUL, non-finite numbers or nesting deeper than 64.
/// errc::invalid_argument names the type and field. The master runs it on
/// every event it decides, before applying it; replay does not.
caf::error storable(const domain_event& ev);

/// Upgrades `payload` of `type` from `from_version` to the current version.
/// Exposed for tests of the upcasters.
caf::expected<nlohmann::json>
upcast(const std::string& type, int32_t from_version, nlohmann::json payload);

/// Every known type name with its current version, for det-replay and docs.
std::vector<std::pair<std::string, int32_t>> known_event_types();

// -- closed vocabularies, checked when decoding -------------------------------

/// Experiment states in upstream spelling.
const std::vector<std::string>& experiment_states();
/// trial_exited reasons.
const std::vector<std::string>& trial_exit_reasons();
/// agent_lost reasons.
const std::vector<std::string>& agent_lost_reasons();
/// instance_launch_failed error kinds.
const std::vector<std::string>& launch_error_kinds();

} // namespace det
