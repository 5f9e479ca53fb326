// The deciders of master_core::decide (core/master_core_commands.cpp), one
// overload of master_core::on per `command` alternative (core/commands.hpp),
// grouped by aggregate. Included inside master_core's class body (private),
// not on its own: it has no #pragma once and no namespace.

// Experiments and trials (core/commands_experiments.hpp), in
// master_core_on_experiments.cpp.
decision on(const experiment_submit& c, int64_t now_us);
decision on(const experiment_pause& c, int64_t now_us);
decision on(const experiment_activate& c, int64_t now_us);
decision on(const experiment_kill& c, int64_t now_us);
decision on(const experiment_cancel& c, int64_t now_us);
decision on(const trial_kill& c, int64_t now_us);
decision on(const experiment_delete& c, int64_t now_us);
decision on(const experiment_edit& c, int64_t now_us); // _changes.cpp
decision on(const experiment_archive& c, int64_t now_us);
decision on(const experiment_continue& c, int64_t now_us);
decision on(const trial_step& c, int64_t now_us);
// Agents and their allocations' reports (core/commands_agents.hpp), in
// master_core_on_agents.cpp.
decision on(const agent_connect& c, int64_t now_us);
decision on(const agent_disconnect& c, int64_t now_us);
decision on(const agent_enable& c, int64_t now_us);
decision on(const slot_enable& c, int64_t now_us);
decision on(const agent_resize& c, int64_t now_us);
decision on(const spot_interruption_notice& c, int64_t now_us);
decision on(const allocation_running_report& c, int64_t now_us);
decision on(const allocation_exit_report& c, int64_t now_us);
decision on(const checkpoint_report& c, int64_t now_us);
decision on(const metrics_report& c, int64_t now_us);
// Users (core/commands_users.hpp), in master_core_on_users.cpp.
decision on(const user_change& c, int64_t now_us);
// Checkpoints, logs, webhooks and provisioning, in
// master_core_commands.cpp.
decision on(const delete_checkpoints& c, int64_t now_us);
decision on(const remove_checkpoint_files& c, int64_t now_us);
decision on(const set_checkpoint_metadata& c, int64_t now_us);
decision on(const collect_checkpoints& c, int64_t now_us);
decision on(const checkpoints_removed& c, int64_t now_us);
decision on(const checkpoint_files_cleared& c, int64_t now_us);
decision on(const retain_logs& c, int64_t now_us);
decision on(const log_policy_match& c, int64_t now_us);
decision on(const webhook_log_match& c, int64_t now_us);
decision on(const webhook_delivery_report& c, int64_t now_us);
decision on(const begin_launch& c, int64_t now_us);
decision on(const launch_answered& c, int64_t now_us);
decision on(const provisioning_cycle& c, int64_t now_us);
// Experiment creation (core/commands_experiment_creation.hpp), in
// master_core_experiment_creation.cpp (det::: the commands share their
// names with the deciders they call).
decision on(const experiment_create& c, int64_t now_us);
decision on(const det::model_definition_stored& c, int64_t now_us);
decision on(const det::model_definition_lost& c, int64_t now_us);
// Tasks, in master_core_tasks.cpp.
decision on(const task_launch& c, int64_t now_us);
decision on(const task_kill& c, int64_t now_us);
decision on(const task_pause& c, int64_t now_us);
decision on(const task_unpause& c, int64_t now_us);
decision on(const task_ready_report& c, int64_t now_us);
decision on(const task_priority_change& c, int64_t now_us);
// The user's records (core/commands_records.hpp) and webhooks
// (core/commands_webhooks.hpp) whose decision is decide_record's alone
// (core/records.hpp, core/webhooks.hpp): one body for them all, the
// events applied all or nothing. A command with an on() of its own is not
// decided here. Every decide_record it may call is declared by
// master_core.hpp's includes, so that any file that sends a command finds
// them.
template <class C> decision on(const C& c, int64_t now_us) {
  return recorded(decide_record(st_, c, now_us));
}
// master_core_records.cpp: a deleted workspace's tasks are killed too.
decision on(const workspace_delete& c, int64_t now_us);
// Runs and trials (core/commands_trials.hpp), in master_core_runs.cpp: a
// Runs API action, each run qualified here; a user's metrics.
decision on(const runs_act& c, int64_t now_us);
decision on(const user_metrics_report& c, int64_t now_us);
// Unmanaged experiments and trials, in master_core_unmanaged.cpp. A trial
// of a managed experiment is refused (failed_precondition).
decision on(const unmanaged_experiment_open& c, int64_t now_us);
decision on(const unmanaged_trial_open& c, int64_t now_us);
decision on(const unmanaged_trial_start& c, int64_t now_us);
decision on(const unmanaged_trial_patch& c, int64_t now_us);
decision on(const unmanaged_checkpoint& c, int64_t now_us);
