#pragma once

// The commands the master decides: plain structs, one per kind of request,
// sent to the master actor as one `command` and decided in one place,
// master_core::decide (core/master_core_commands.cpp), by the decider of
// the aggregate the command belongs to. A command carries what its sender
// knows (ids, names, what it observed and when), never events: the core
// turns it into events against its own state, so the one writer checks
// everything written.
//
// The answer is the decision's reply (a JSON object, {} when the command
// answers nothing) once its events are durable, or the refusal.
//
// Senders: the API's routes (experiments and trials, runs, unmanaged
// trials, agents and slots, users and sessions, checkpoints, log
// retention, tasks, webhooks, and the user's records: workspaces,
// projects, templates, pool bindings, models, config policies), the agent
// actors (their agents' reports), the trial actors (their steps), the spot
// notices, the checkpoint collector (actors/checkpoint_gc_actor.cpp), the
// pools' provisioners (actors/provisioner_actor.cpp) and experiment
// creation (actors/experiment_creation_actor.cpp).

#include "core/commands_agents.hpp"
#include "core/commands_experiment_creation.hpp"
#include "core/commands_experiments.hpp"
#include "core/commands_records.hpp"
#include "core/commands_tasks.hpp"
#include "core/commands_trials.hpp"
#include "core/commands_users.hpp"
#include "core/commands_webhooks.hpp"
#include "core/provisioning.hpp"
#include "core/trial_lifecycle.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace det {

// -- checkpoints: the user's requests (core/checkpoint_gc.hpp,
//    core/checkpoint_files.hpp) -----------------------------------------

/// `det checkpoint delete`.
struct delete_checkpoints {
  std::vector<std::string> uuids;
  std::string username;
};

/// `det checkpoint rm`: the files matching `globs` (none: only list them).
struct remove_checkpoint_files {
  std::vector<std::string> uuids;
  std::vector<std::string> globs;
  std::string username;
};

/// The SDK's add_metadata/remove_metadata: the whole of the new metadata.
struct set_checkpoint_metadata {
  std::string uuid;
  nlohmann::json metadata;
  std::string username;
};

// -- checkpoints: the collector's reports ---------------------------------

/// The collector's tick: the experiments' GC policies decide which
/// checkpoints go. Reply {"requested": [{"experimentId", "uuids"}]}.
struct collect_checkpoints {};

/// The collector deleted `uuids` of `experiment_id` from their storage;
/// `finishes_deletion`: the experiment was DELETING and now is deleted.
struct checkpoints_removed {
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  bool finishes_deletion = false;
};

/// The collector removed files of checkpoint `uuid`; `left` are the files
/// still there ({path: size}).
struct checkpoint_files_cleared {
  int64_t experiment_id = 0;
  std::string uuid;
  nlohmann::json left = nlohmann::json::object();
};

// -- logs (core/log_retention.hpp) ----------------------------------------

/// `det experiment set log-retention` (no trial_id), `det trial set
/// log-retention`: `days` (-1 = for ever).
struct retain_logs {
  int64_t experiment_id = 0;
  std::optional<int64_t> trial_id;
  int64_t days = 0;
  std::string username;
};

/// A line of trial `trial_id`'s logs matched its experiment's log policy
/// `policy` (its name, or its pattern when unnamed): api/log_policy_runtime.
/// The line and node are the trial's words, fitted, never refused.
struct log_policy_match {
  int64_t trial_id = 0;
  std::string policy;
  std::string line;
  std::string node;
};

// -- provisioning (core/provisioning.hpp) --------------------------------

/// A provisioner is about to launch: its launch `launch_seq` (the plan's
/// next_seq) of `count` instances under `client_token`.
struct begin_launch {
  std::string pool;
  int64_t launch_seq = 0;
  std::string client_token;
  int32_t count = 0;
  bool spot = false;
  int64_t at_us = 0;
};

/// What the cloud answered to launch `launch_seq`: the instances and spot
/// requests it made (fewer than `count` closes the launch as partial), or
/// the error (`error_kind` non-empty: the launch failed).
struct launch_answered {
  std::string pool;
  int64_t launch_seq = 0;
  int32_t count = 0;
  std::vector<std::string> instance_ids;
  std::vector<std::string> spot_request_ids;
  std::string error_kind;
  std::string error;
  int64_t at_us = 0;
};

/// A provisioner's cycle: what the cloud said of the pool's instances and
/// what the plan does about it. First the exits that gone instances left
/// in their tags (plan.tagged_exits, checked by the plan against the
/// allocations on each instance's agent), as their agents' reports. Each
/// fact that still follows from the
/// state is recorded; one that no longer does (the state moved on since
/// the plan was made) is left out. Reply {"terminate": [instance ids],
/// "cancel": [spot request ids]}: the ones recorded, which the provisioner
/// then terminates or cancels.
struct provisioning_cycle {
  std::string pool;
  provisioning_plan plan;
  int64_t at_us = 0;
};

/// Every command, grouped by the aggregate that decides it.
using command = std::variant<
    // experiments and trials (core/commands_experiments.hpp)
    experiment_submit, experiment_pause, experiment_activate, experiment_kill,
    experiment_cancel, trial_kill, experiment_delete, experiment_edit,
    experiment_archive, experiment_continue,
    // agents: connections, operators and the cloud
    // (core/commands_agents.hpp)
    agent_connect, agent_disconnect, agent_enable, slot_enable, agent_resize,
    spot_interruption_notice,
    // allocations: what agents and trial processes report (the same)
    allocation_running_report, allocation_exit_report, checkpoint_report,
    metrics_report,
    // users, sessions, access tokens (core/commands_users.hpp)
    user_change,
    // a trial actor's lifecycle step for an exited trial
    // (core/trial_lifecycle.hpp: master_core::apply_trial_step)
    trial_step,
    // checkpoints
    delete_checkpoints, remove_checkpoint_files, set_checkpoint_metadata,
    collect_checkpoints, checkpoints_removed, checkpoint_files_cleared,
    // logs
    retain_logs, log_policy_match,
    // webhooks (core/commands_webhooks.hpp)
    webhook_create, webhook_patch, webhook_delete, webhook_alert,
    webhook_log_match, webhook_delivery_report,
    // provisioning
    begin_launch, launch_answered, provisioning_cycle,
    // experiment creation (core/commands_experiment_creation.hpp)
    experiment_create, model_definition_stored, model_definition_lost,
    // tasks (core/commands_tasks.hpp)
    task_launch, task_kill, task_pause, task_unpause, task_ready_report,
    task_priority_change,
    // runs and trials (core/commands_trials.hpp)
    runs_act, user_metrics_report, unmanaged_experiment_open,
    unmanaged_trial_open, unmanaged_trial_start, unmanaged_trial_patch,
    unmanaged_checkpoint,
    // the user's records (core/commands_records.hpp)
    workspace_create, workspace_edit, workspace_archive, workspace_delete,
    workspace_pin, workspace_namespaces, project_create, project_edit,
    project_notes, project_archive, project_delete, project_move,
    experiment_move, template_create, template_set, template_delete, pool_bind,
    model_create, model_edit, model_archive, model_delete, version_register,
    version_edit, version_delete, set_config_policies, delete_config_policies>;

} // namespace det
