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
decision on(const experiment_edit& c, int64_t now_us);
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
// Tasks, in master_core_tasks.cpp.
decision on(const task_launch& c, int64_t now_us);
decision on(const task_kill& c, int64_t now_us);
decision on(const task_pause& c, int64_t now_us);
decision on(const task_unpause& c, int64_t now_us);
decision on(const task_ready_report& c, int64_t now_us);
decision on(const task_priority_change& c, int64_t now_us);
// The user's records (core/commands_records.hpp) in
// master_core_records.cpp: each decided by its decide_record overload
// (core/records.hpp), its events applied all or nothing.
decision on(const workspace_create& c, int64_t now_us);
decision on(const workspace_edit& c, int64_t now_us);
decision on(const workspace_archive& c, int64_t now_us);
decision on(const workspace_delete& c, int64_t now_us);
decision on(const workspace_pin& c, int64_t now_us);
decision on(const workspace_namespaces& c, int64_t now_us);
decision on(const project_create& c, int64_t now_us);
decision on(const project_edit& c, int64_t now_us);
decision on(const project_notes& c, int64_t now_us);
decision on(const project_archive& c, int64_t now_us);
decision on(const project_delete& c, int64_t now_us);
decision on(const project_move& c, int64_t now_us);
decision on(const experiment_move& c, int64_t now_us);
decision on(const template_create& c, int64_t now_us);
decision on(const template_set& c, int64_t now_us);
decision on(const template_delete& c, int64_t now_us);
decision on(const pool_bind& c, int64_t now_us);
decision on(const model_create& c, int64_t now_us);
decision on(const model_edit& c, int64_t now_us);
decision on(const model_archive& c, int64_t now_us);
decision on(const model_delete& c, int64_t now_us);
decision on(const version_register& c, int64_t now_us);
decision on(const version_edit& c, int64_t now_us);
decision on(const version_delete& c, int64_t now_us);
decision on(const set_config_policies& c, int64_t now_us);
decision on(const delete_config_policies& c, int64_t now_us);
