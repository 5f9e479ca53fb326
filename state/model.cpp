#include "state/model.hpp"

#include <tuple>

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

// -- equality: every field, in declaration order ------------------------------

namespace {

auto fields_of(const pool_configured& x) {
  return std::tie(x.pool, x.scheduler, x.provider, x.slots_per_instance,
                  x.min_instances, x.max_instances, x.instance_type, x.spot,
                  x.max_idle_agent_period_s, x.max_agent_starting_period_s,
                  x.agent_reconnect_wait_s);
}

} // namespace

bool operator==(const user_info& a, const user_info& b) {
  auto f = [](const user_info& x) {
    return std::tie(x.id, x.username, x.admin, x.active, x.password_hash,
                    x.created_at_us, x.modified_at_us);
  };
  return f(a) == f(b);
}

bool operator==(const launch_info& a, const launch_info& b) {
  auto f = [](const launch_info& x) {
    return std::tie(x.seq, x.client_token, x.count, x.spot, x.seen,
                    x.requested_at_us);
  };
  return f(a) == f(b);
}

bool operator==(const pool_info& a, const pool_info& b) {
  auto f = [](const pool_info& x) {
    return std::tie(x.launches_requested, x.consecutive_launch_failures,
                    x.last_launch_error_kind, x.last_launch_error,
                    x.last_launch_error_at_us, x.launches);
  };
  return fields_of(a.config) == fields_of(b.config) && f(a) == f(b);
}

bool operator==(const agent_info& a, const agent_info& b) {
  auto f = [](const agent_info& x) {
    return std::tie(x.id, x.pool, x.slot_type, x.instance_id, x.status,
                    x.enabled, x.draining, x.slots, x.connected_at_us,
                    x.idle_since_us, x.disconnected_at_us,
                    x.reconnect_deadline_us);
  };
  return f(a) == f(b);
}

bool operator==(const instance_info& a, const instance_info& b) {
  auto f = [](const instance_info& x) {
    return std::tie(x.id, x.pool, x.launch_seq, x.spot_request_id, x.status,
                    x.agent_id, x.launched_at_us, x.running_at_us,
                    x.agent_gone_since_us, x.terminate_reason,
                    x.terminate_requested_at_us);
  };
  return f(a) == f(b);
}

bool operator==(const spot_request_info& a, const spot_request_info& b) {
  auto f = [](const spot_request_info& x) {
    return std::tie(x.id, x.pool, x.launch_seq, x.opened_at_us);
  };
  return f(a) == f(b);
}

bool operator==(const experiment_info& a, const experiment_info& b) {
  auto f = [](const experiment_info& x) {
    return std::tie(x.id, x.pool, x.owner, x.config, x.priority, x.weight,
                    x.max_restarts, x.slots_per_trial, x.status,
                    x.status_reason, x.searcher_state, x.progress, x.trial_ids,
                    x.submitted_at_us, x.state_changed_at_us, x.searcher_inbox,
                    x.searcher_inputs_queued, x.model_definition_pending);
  };
  return f(a) == f(b);
}

bool operator==(const searcher_input& a, const searcher_input& b) {
  auto f = [](const searcher_input& x) {
    return std::tie(x.seq, x.trial_id, x.request_id, x.kind, x.steps, x.metrics,
                    x.trial_status);
  };
  return f(a) == f(b);
}

bool operator==(const allocation_info& a, const allocation_info& b) {
  auto f = [](const allocation_info& x) {
    return std::tie(x.id, x.assignments, x.placed_at_us, x.running_at_us,
                    x.preemption_requested, x.preemption_reason,
                    x.preemption_requested_at_us);
  };
  return f(a) == f(b);
}

bool operator==(const checkpoint_info& a, const checkpoint_info& b) {
  auto f = [](const checkpoint_info& x) {
    return std::tie(x.uuid, x.steps_completed, x.metadata, x.at_us);
  };
  return f(a) == f(b);
}

bool operator==(const metrics_summary& a, const metrics_summary& b) {
  auto f = [](const metrics_summary& x) {
    return std::tie(x.steps_completed, x.training_reports, x.validation_reports,
                    x.latest_training, x.latest_validation, x.best_validation,
                    x.best_validation_steps);
  };
  return f(a) == f(b);
}

bool operator==(const trial_info& a, const trial_info& b) {
  auto f = [](const trial_info& x) {
    return std::tie(x.id, x.experiment_id, x.request_id, x.hparams, x.status,
                    x.restarts, x.runs, x.allocation, x.last_exit_reason,
                    x.last_exit_code, x.end_reason, x.latest_checkpoint,
                    x.metrics, x.created_at_us, x.checkpoints);
  };
  return f(a) == f(b);
}

} // namespace det::state
