#pragma once

// The catalogue of persisted domain events (past tense, never renamed once
// released). Each struct names its type and current schema version; its
// payload form is in events.cpp and documented in docs/events.md. Streams:
// "cluster", "pool/<name>", "agent/<id>", "experiment/<id>", "trial/<id>",
// "instance/<id>".
//
// To add an event: a struct here, its entry in domain_event, its encode and
// decode in events.cpp, a line in docs/events.md, and a round-trip case in
// tests/messages. To change a payload: bump `version`, add an upcaster from
// the old version in events.cpp, keep a golden file of the old form in
// tests/data/events/.

#include "messages/event.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace det {

/// A master process took the writer lock and started.
struct master_started {
  static constexpr const char* type_name = "master_started";
  static constexpr int32_t version = 1;
  std::string cluster_id;
  std::string host;
  int64_t pid = 0;
  std::string master_version;
};

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
};

/// An agent connected and reported its slots. Version 1 called the pool
/// "resource_pool" and had no slot type.
struct agent_connected {
  static constexpr const char* type_name = "agent_connected";
  static constexpr int32_t version = 2;
  std::string agent_id;
  std::string pool;
  int32_t slots = 0;
  /// "cpu" or "cuda".
  std::string slot_type = "cpu";
  /// The provisioner's instance id, empty for static agents.
  std::string instance_id;
};

/// An agent's connection closed; it has until the reconnect deadline.
struct agent_disconnected {
  static constexpr const char* type_name = "agent_disconnected";
  static constexpr int32_t version = 1;
  std::string agent_id;
  std::string reason;
};

/// A user submitted an experiment. `config` is the validated experiment
/// configuration as the user gave it (with defaults filled in).
struct experiment_submitted {
  static constexpr const char* type_name = "experiment_submitted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string pool;
  std::string owner;
  nlohmann::json config = nlohmann::json::object();
  int32_t priority = 42;
  double weight = 1.0;
  int32_t max_restarts = 5;
  int32_t slots_per_trial = 1;
};

/// An experiment moved to `state` (ACTIVE, PAUSED, COMPLETED, CANCELED,
/// ERROR).
struct experiment_state_changed {
  static constexpr const char* type_name = "experiment_state_changed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string state;
  std::string reason;
};

/// The experiment's searcher created a trial with these hyperparameters.
struct trial_created {
  static constexpr const char* type_name = "trial_created";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  nlohmann::json hparams = nlohmann::json::object();
};

/// Slots of one agent given to an allocation.
struct slot_assignment {
  std::string agent_id;
  std::vector<int64_t> slots;
};

/// The scheduler gave a trial its slots; `allocation_id` identifies this
/// run of the trial (the agent's start order carries it).
struct trial_placed {
  static constexpr const char* type_name = "trial_placed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  std::vector<slot_assignment> assignments;
};

/// A trial saved a checkpoint.
struct trial_checkpointed {
  static constexpr const char* type_name = "trial_checkpointed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string uuid;
  int64_t steps_completed = 0;
  nlohmann::json metadata = nlohmann::json::object();
};

/// A trial's allocation ended; its slots are free. `reason` is one of
/// completed, failed, killed, preempted, agent_lost.
struct trial_exited {
  static constexpr const char* type_name = "trial_exited";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  int32_t exit_code = 0;
  std::string reason;
};

using domain_event
  = std::variant<master_started, pool_configured, agent_connected,
                 agent_disconnected, experiment_submitted,
                 experiment_state_changed, trial_created, trial_placed,
                 trial_checkpointed, trial_exited>;

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

/// Upgrades `payload` of `type` from `from_version` to the current version.
/// Exposed for tests of the upcasters.
caf::expected<nlohmann::json> upcast(const std::string& type,
                                     int32_t from_version,
                                     nlohmann::json payload);

/// Every known type name with its current version, for det-replay and docs.
std::vector<std::pair<std::string, int32_t>> known_event_types();

} // namespace det
