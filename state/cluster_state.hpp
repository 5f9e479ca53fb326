#pragma once

// The cluster's event-sourced state as pure data: apply(state, event) is the
// only way it changes, and replay from the log is the only way it is built.
// The master, det-replay and det-inspect all use this one code path. No CAF
// actors, no I/O, no clock. Not thread-safe: one owner at a time (the
// master's event-applying actor, or a replay loop).
//
// The records are in state/model.hpp, read-only helpers for actors and
// det-inspect in state/queries.hpp.

#include "messages/event.hpp"
#include "messages/events.hpp"
#include "state/model.hpp"
#include "state/model_records.hpp"
#include "state/model_tasks.hpp"
#include "state/model_webhooks.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace det::state {

struct cluster_state {
  /// Position of the last event applied; 0 for the empty state.
  int64_t position = 0;
  /// Events applied, by type name (for det-replay's summary).
  std::map<std::string, int64_t> applied_by_type;
  /// From the first master_started; empty before it.
  std::string cluster_id;
  int64_t masters_started = 0;
  /// The cluster's UUID (from the first master_started that carried one)
  /// and the latest master process's.
  std::string cluster_uuid;
  std::string master_uuid;
  std::map<std::string, pool_info> pools;
  /// Connected and reconnect-pending agents; lost agents leave.
  std::map<std::string, agent_info> agents;
  /// Instances not yet terminated, by instance id.
  std::map<std::string, instance_info> instances;
  /// Open spot requests, by request id.
  std::map<std::string, spot_request_info> spot_requests;
  std::map<int64_t, experiment_info> experiments;
  std::map<int64_t, trial_info> trials;
  /// The highest experiment and trial ids ever given (deleted ones
  /// included): ids are never given twice.
  int64_t last_experiment_id = 0;
  int64_t last_trial_id = 0;
  /// Index: live allocation id -> trial id (derived; checked by
  /// check_invariants).
  std::map<std::string, int64_t> allocations;
  /// User accounts by name.
  std::map<std::string, user_info> users;
  /// Live user sessions: SHA-256 (hex) of the bearer token -> username.
  std::map<std::string, std::string> sessions;
  /// Long-lived access tokens (live and revoked), by id.
  std::map<int64_t, access_token_info> access_tokens;
  /// The cluster-wide message; empty message = none.
  cluster_message_info cluster_message;
  /// Workspaces and projects made or changed by events (ids 1, the
  /// defaults, only once changed), and the last id each gave out.
  std::map<int64_t, workspace_info> workspaces;
  std::map<int64_t, project_info> projects;
  int64_t last_workspace_id = 1;
  int64_t last_project_id = 1;
  /// Config templates by name.
  std::map<std::string, template_info> templates;
  /// The global config policies by workload type (a workspace's own are
  /// in its workspace_info).
  std::map<std::string, config_policy_info> global_config_policies;
  /// Resource pools bound to workspaces, by pool.
  std::map<std::string, pool_binding_info> pool_bindings;
  /// Registered models by id, and the last id given out.
  std::map<int64_t, model_info> models;
  int64_t last_model_id = 0;
  /// Webhooks by id, deliveries not yet ended by id, and the last ids
  /// given out (webhooks, their triggers, deliveries).
  std::map<int64_t, webhook_info> webhooks;
  std::map<int64_t, webhook_delivery_info> webhook_deliveries;
  int64_t last_webhook_id = 0;
  int64_t last_webhook_trigger_id = 0;
  int64_t last_webhook_delivery_id = 0;
  /// Deleted experiments' checkpoints still being deleted, by experiment.
  std::map<int64_t, orphan_checkpoints_info> orphan_checkpoints;
  /// Every allocation since this record was added, live and ended, by id
  /// (resource accounting; see allocation_record).
  std::map<std::string, allocation_record> allocation_history;
  /// Tasks (commands, notebooks, shells, TensorBoards, generic tasks) by
  /// id, until task_forgotten.
  std::map<std::string, task_info> tasks;
};

bool operator==(const cluster_state& a, const cluster_state& b);

inline bool operator!=(const cluster_state& a, const cluster_state& b) {
  return !(a == b);
}

/// Applies one decoded event recorded at `meta.position`. Pure and total:
/// an event that cannot follow the state fails with errc::invalid_event
/// naming the position, the type and why, and leaves `s` unchanged. Refuses
/// a position other than s.position + 1, and (when `meta.stream` is set) a
/// stream other than stream_of(ev).
[[nodiscard]] caf::error apply(cluster_state& s, const recorded_event& meta,
                               const domain_event& ev);
/// The same, free to keep the event's documents (a metric report's
/// metrics) instead of copying them; `ev` is left valid but unspecified.
[[nodiscard]] caf::error apply(cluster_state& s, const recorded_event& meta,
                               domain_event&& ev);

/// Applies an account event (user_created, user_password_changed,
/// user_edited, session_started, session_ended, access_token_created,
/// access_token_changed) to `s` as apply() does, without a position: for
/// read copies that keep only accounts (the API's auth directory). Other
/// events change nothing. Returns why it was refused, "" when applied.
std::string apply_account(cluster_state& s, const domain_event& ev);

/// Decodes and applies a stored event.
[[nodiscard]] caf::error apply(cluster_state& s, const recorded_event& rec);

/// Broken invariants, one sentence each; empty when the state is sound.
std::vector<std::string> check_invariants(const cluster_state& s);

/// The snapshot form of the state: {"snapshot_version", "state": {...}}.
nlohmann::json to_snapshot(const cluster_state& s);

/// Reads a snapshot and checks its invariants; errc::corrupt_snapshot names
/// what is wrong (the field's path, or the broken invariant).
caf::expected<cluster_state> from_snapshot(const nlohmann::json& j);

/// The schema version of to_snapshot's output.
constexpr int32_t snapshot_version = 1;

} // namespace det::state
