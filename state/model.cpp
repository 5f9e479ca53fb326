#include "state/model.hpp"

#include "state/model_fields.hpp"

namespace det::state {

namespace {

// One table per enum drives both to_string and from_string.
template <class E, size_t N>
const char* name_of(E x, const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [e, name] : table)
    if (e == x)
      return name;
  return "?";
}

template <class E, size_t N>
bool parse(const std::string& name, E& out,
           const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [e, n] : table)
    if (name == n) {
      out = e;
      return true;
    }
  return false;
}

const std::pair<agent_status, const char*> agent_names[] = {
    {agent_status::connected, "connected"},
    {agent_status::disconnected, "disconnected"},
};

const std::pair<instance_status, const char*> instance_names[] = {
    {instance_status::pending, "pending"},
    {instance_status::running, "running"},
    {instance_status::terminating, "terminating"},
};

const std::pair<experiment_status, const char*> experiment_names[] = {
    {experiment_status::active, "ACTIVE"},
    {experiment_status::paused, "PAUSED"},
    {experiment_status::stopping_completed, "STOPPING_COMPLETED"},
    {experiment_status::stopping_canceled, "STOPPING_CANCELED"},
    {experiment_status::stopping_killed, "STOPPING_KILLED"},
    {experiment_status::stopping_error, "STOPPING_ERROR"},
    {experiment_status::completed, "COMPLETED"},
    {experiment_status::canceled, "CANCELED"},
    {experiment_status::error, "ERROR"},
};

const std::pair<trial_status, const char*> trial_names[] = {
    {trial_status::pending, "pending"},
    {trial_status::assigned, "assigned"},
    {trial_status::running, "running"},
    {trial_status::checkpointing, "checkpointing"},
    {trial_status::exited, "exited"},
    {trial_status::completed, "completed"},
    {trial_status::errored, "errored"},
    {trial_status::canceled, "canceled"},
};

const std::pair<task_state, const char*> task_state_names[] = {
    {task_state::queued, "STATE_QUEUED"},
    {task_state::starting, "STATE_STARTING"},
    {task_state::running, "STATE_RUNNING"},
    {task_state::terminating, "STATE_TERMINATING"},
    {task_state::terminated, "STATE_TERMINATED"},
};

} // namespace

const char* to_string(agent_status x) {
  return name_of(x, agent_names);
}
const char* to_string(instance_status x) {
  return name_of(x, instance_names);
}
const char* to_string(experiment_status x) {
  return name_of(x, experiment_names);
}
const char* to_string(trial_status x) {
  return name_of(x, trial_names);
}

bool from_string(const std::string& name, agent_status& out) {
  return parse(name, out, agent_names);
}
bool from_string(const std::string& name, instance_status& out) {
  return parse(name, out, instance_names);
}
bool from_string(const std::string& name, experiment_status& out) {
  return parse(name, out, experiment_names);
}
bool from_string(const std::string& name, trial_status& out) {
  return parse(name, out, trial_names);
}
const char* to_string(task_state x) {
  return name_of(x, task_state_names);
}
bool from_string(const std::string& name, task_state& out) {
  return parse(name, out, task_state_names);
}

bool is_terminal(experiment_status x) {
  return x == experiment_status::completed || x == experiment_status::canceled
         || x == experiment_status::error;
}

bool is_stopping(experiment_status x) {
  return x == experiment_status::stopping_completed
         || x == experiment_status::stopping_canceled
         || x == experiment_status::stopping_killed
         || x == experiment_status::stopping_error;
}

bool is_terminal(trial_status x) {
  return x == trial_status::completed || x == trial_status::errored
         || x == trial_status::canceled;
}

bool holds_allocation(trial_status x) {
  return x == trial_status::assigned || x == trial_status::running
         || x == trial_status::checkpointing;
}

// -- equality: every member fields() names ---------------------------------

bool operator==(const launch_info& a, const launch_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const pool_info& a, const pool_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const agent_info& a, const agent_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const instance_info& a, const instance_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const spot_request_info& a, const spot_request_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const searcher_input& a, const searcher_input& b) {
  return record_equal::equal(a, b);
}
bool operator==(const experiment_info& a, const experiment_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const allocation_info& a, const allocation_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const checkpoint_info& a, const checkpoint_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const metrics_summary& a, const metrics_summary& b) {
  return record_equal::equal(a, b);
}
bool operator==(const trial_info& a, const trial_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const user_info& a, const user_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const access_token_info& a, const access_token_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const cluster_message_info& a, const cluster_message_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const config_policy_info& a, const config_policy_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const workspace_info& a, const workspace_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const project_info& a, const project_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const template_info& a, const template_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const pool_binding_info& a, const pool_binding_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const model_version_info& a, const model_version_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const model_info& a, const model_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const webhook_info& a, const webhook_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const webhook_delivery_info& a,
                const webhook_delivery_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const orphan_checkpoints_info& a,
                const orphan_checkpoints_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const allocation_record& a, const allocation_record& b) {
  return record_equal::equal(a, b);
}
bool operator==(const task_info& a, const task_info& b) {
  return record_equal::equal(a, b);
}
bool operator==(const cluster_state& a, const cluster_state& b) {
  return record_equal::equal(a, b);
}

} // namespace det::state
