#pragma once

// Internal to state/: one apply_one() overload per event type, spread over
// apply_agents.cpp, apply_instances.cpp, apply_experiments.cpp and
// apply_trials.cpp. Each checks everything first and changes `s` only once
// the event is known to follow; a refusal returns the reason, which
// cluster_state.cpp turns into errc::invalid_event naming the position.
// An empty string means success.

#include "state/cluster_state.hpp"

#include <string>

namespace det::state::detail {

/// A refusal reason; empty for success.
using verdict = std::string;

verdict apply_one(cluster_state& s, const master_started& ev);
verdict apply_one(cluster_state& s, const pool_configured& ev);
verdict apply_one(cluster_state& s, const agent_connected& ev);
verdict apply_one(cluster_state& s, const agent_disconnected& ev);
verdict apply_one(cluster_state& s, const agent_lost& ev);
verdict apply_one(cluster_state& s, const agent_enabled& ev);
verdict apply_one(cluster_state& s, const agent_disabled& ev);
verdict apply_one(cluster_state& s, const instance_launch_requested& ev);
verdict apply_one(cluster_state& s, const instance_launch_failed& ev);
verdict apply_one(cluster_state& s, const instance_pending& ev);
verdict apply_one(cluster_state& s, const instance_running& ev);
verdict apply_one(cluster_state& s, const instance_terminate_requested& ev);
verdict apply_one(cluster_state& s, const instance_terminated& ev);
verdict apply_one(cluster_state& s, const spot_request_opened& ev);
verdict apply_one(cluster_state& s, const spot_request_fulfilled& ev);
verdict apply_one(cluster_state& s, const spot_request_cancelled& ev);
verdict apply_one(cluster_state& s, const experiment_submitted& ev);
verdict apply_one(cluster_state& s, const experiment_model_stored& ev);
verdict apply_one(cluster_state& s, const experiment_state_changed& ev);
verdict apply_one(cluster_state& s, const experiment_edited& ev);
verdict apply_one(cluster_state& s, const experiment_archived& ev);
verdict apply_one(cluster_state& s, const experiment_searcher_updated& ev);
verdict apply_one(cluster_state& s, const trial_created& ev);
verdict apply_one(cluster_state& s, const trial_placed& ev);
verdict apply_one(cluster_state& s, const trial_running& ev);
verdict apply_one(cluster_state& s, const trial_preemption_requested& ev);
verdict apply_one(cluster_state& s, const trial_checkpointed& ev);
verdict apply_one(cluster_state& s, const trial_metrics_reported& ev);
/// The same, keeping the report's metrics instead of copying them.
verdict apply_one(cluster_state& s, trial_metrics_reported&& ev);
verdict apply_one(cluster_state& s, const trial_exited& ev);
verdict apply_one(cluster_state& s, const trial_restarted& ev);
verdict apply_one(cluster_state& s, const trial_errored& ev);
verdict apply_one(cluster_state& s, const trial_canceled& ev);
verdict apply_one(cluster_state& s, const user_created& ev);
verdict apply_one(cluster_state& s, const user_password_changed& ev);
verdict apply_one(cluster_state& s, const user_edited& ev);
verdict apply_one(cluster_state& s, const slot_disabled& ev);
verdict apply_one(cluster_state& s, const experiment_deleted& ev);
verdict apply_one(cluster_state& s, const experiment_deletion_started& ev);
verdict apply_one(cluster_state& s, const slot_enabled& ev);
verdict apply_one(cluster_state& s, const access_token_created& ev);
verdict apply_one(cluster_state& s, const access_token_changed& ev);
verdict apply_one(cluster_state& s, const cluster_message_set& ev);
verdict apply_one(cluster_state& s, const experiment_resources_changed& ev);
verdict apply_one(cluster_state& s, const session_started& ev);
verdict apply_one(cluster_state& s, const session_ended& ev);
verdict apply_one(cluster_state& s, const checkpoints_deletion_requested& ev);
verdict apply_one(cluster_state& s, const checkpoints_deleted& ev);
// apply_records.cpp
verdict apply_one(cluster_state& s, const workspace_saved& ev);
verdict apply_one(cluster_state& s, const workspace_deleted& ev);
verdict apply_one(cluster_state& s, const workspace_pinned& ev);
verdict apply_one(cluster_state& s, const project_saved& ev);
verdict apply_one(cluster_state& s, const project_notes_set& ev);
verdict apply_one(cluster_state& s, const project_deleted& ev);
verdict apply_one(cluster_state& s, const experiment_moved& ev);
verdict apply_one(cluster_state& s, const template_saved& ev);
verdict apply_one(cluster_state& s, const template_deleted& ev);
verdict apply_one(cluster_state& s, const pool_bindings_set& ev);
verdict apply_one(cluster_state& s, const workspace_namespace_bound& ev);
verdict apply_one(cluster_state& s, const config_policies_set& ev);
verdict apply_one(cluster_state& s, const model_saved& ev);
verdict apply_one(cluster_state& s, const model_deleted& ev);
verdict apply_one(cluster_state& s, const model_version_saved& ev);
verdict apply_one(cluster_state& s, const model_version_deleted& ev);
// apply_webhooks.cpp
verdict apply_one(cluster_state& s, const webhook_saved& ev);
verdict apply_one(cluster_state& s, const webhook_deleted& ev);
verdict apply_one(cluster_state& s, const webhook_delivery_due& ev);
verdict apply_one(cluster_state& s, const webhook_delivery_ended& ev);
// apply_capacity.cpp
verdict apply_one(cluster_state& s, const agent_slots_changed& ev);
/// Drops the free slots at the end of `a.slots` past its slot_limit (and
/// the limit once no slot is past it): after a slot is freed.
void trim_retired_slots(agent_info& a);
// apply_experiments.cpp (gc policy, log retention)
verdict apply_one(cluster_state& s, const experiment_gc_policy_changed& ev);
verdict apply_one(cluster_state& s, const log_retention_set& ev);
/// Every copy of checkpoint `uuid` in experiment `exp` (the trial's list
/// and its latest_checkpoint), or empty (apply_checkpoints.cpp).
std::vector<checkpoint_info*> copies_of(cluster_state& s, int64_t exp,
                                        const std::string& uuid);
// apply_checkpoint_files.cpp
verdict apply_one(cluster_state& s,
                  const checkpoint_files_removal_requested& ev);
verdict apply_one(cluster_state& s, const checkpoint_files_removed& ev);
verdict apply_one(cluster_state& s, const checkpoint_metadata_set& ev);
// apply_experiments.cpp (continue)
verdict apply_one(cluster_state& s, const experiment_continued& ev);
// apply_runs.cpp
verdict apply_one(cluster_state& s, const runs_archived& ev);
verdict apply_one(cluster_state& s, const runs_deleted& ev);
verdict apply_one(cluster_state& s, const trial_log_policy_matched& ev);
// apply_unmanaged.cpp
verdict apply_one(cluster_state& s, const unmanaged_trial_created& ev);
verdict apply_one(cluster_state& s, const unmanaged_trial_state_set& ev);
// apply_tasks.cpp
verdict apply_one(cluster_state& s, const task_launched& ev);
verdict apply_one(cluster_state& s, const task_placed& ev);
verdict apply_one(cluster_state& s, const task_running& ev);
verdict apply_one(cluster_state& s, const task_ready& ev);
verdict apply_one(cluster_state& s, const task_kill_requested& ev);
verdict apply_one(cluster_state& s, const task_exited& ev);
verdict apply_one(cluster_state& s, const task_priority_set& ev);
verdict apply_one(cluster_state& s, const task_forgotten& ev);
verdict apply_one(cluster_state& s, const task_unpaused& ev);
/// Ends task `t`: frees the agent slots its allocation holds (an agent left
/// with none used becomes idle at `at_us`) and makes it terminated with
/// `reason`, `exit_code` and `message`.
void end_task_allocation(cluster_state& s, task_info& t,
                         const std::string& reason, int32_t exit_code,
                         const std::string& message, int64_t at_us);

/// Ends trial `t`'s allocation: frees its slots (agents left with no used
/// slot become idle at `at_us`), drops it from the index, and moves the trial
/// to the status `reason` implies (completed, canceled, or exited; a
/// "failed" exit counts a restart). Requires holds_allocation(t.status).
void end_allocation(cluster_state& s, trial_info& t, const std::string& reason,
                    int32_t exit_code, int64_t at_us);

/// Queues `in` (kind and payload set; seq, trial and request filled in
/// here) on the inbox of trial `t`'s experiment, unless it has ended.
void queue_searcher_input(cluster_state& s, const trial_info& t,
                          searcher_input in);

/// "agent 'a1'", "trial 7", ... for refusal messages.
std::string quote(const std::string& x);

} // namespace det::state::detail
