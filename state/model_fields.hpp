#pragma once

// The one field list of each state record (state/model.hpp) and of
// cluster_state: fields(f, x) names every member once, in declaration order,
// under its snapshot key. The same list drives operator== (state/model.cpp)
// and the snapshot codec, write and read (state/snapshot_codec.hpp), so a
// member added here is compared and stored everywhere; a member left out
// here is caught by tests/state/record_fields_test.cpp (which counts the
// record's members).
//
// A visitor F provides:
//   f.req(key, member)   present in every snapshot;
//   f.opt(key, member)   absent in older snapshots: keeps the default;
//   f.pairs(key, map, key_name, value_name)
//                        a string map stored as a list of two-field objects;
//   f.derived(member)    not stored (rebuilt on read), but compared.
// fields() takes the record mutable so that one list serves reading too;
// visitors that only read cast const away (see record_equal).

#include "state/cluster_state.hpp"
#include "state/model.hpp"

#include <cstddef>
#include <vector>

namespace det::state {

template <class F> void fields(F& f, slot_assignment& x) {
  f.req("agent_id", x.agent_id);
  f.req("slots", x.slots);
}

template <class F> void fields(F& f, launch_info& x) {
  f.req("seq", x.seq);
  f.req("client_token", x.client_token);
  f.req("count", x.count);
  f.req("spot", x.spot);
  f.req("seen", x.seen);
  f.req("requested_at_us", x.requested_at_us);
}

template <class F> void fields(F& f, pool_info& x) {
  f.req("config", x.config);
  f.req("launches_requested", x.launches_requested);
  f.req("consecutive_launch_failures", x.consecutive_launch_failures);
  f.req("last_launch_error_kind", x.last_launch_error_kind);
  f.req("last_launch_error", x.last_launch_error);
  f.req("last_launch_error_at_us", x.last_launch_error_at_us);
  f.req("launches", x.launches);
}

template <class F> void fields(F& f, agent_info& x) {
  f.req("id", x.id);
  f.req("pool", x.pool);
  f.req("slot_type", x.slot_type);
  f.req("instance_id", x.instance_id);
  f.req("status", x.status);
  f.req("enabled", x.enabled);
  f.req("draining", x.draining);
  f.req("slots", x.slots);
  f.req("connected_at_us", x.connected_at_us);
  f.opt("idle_since_us", x.idle_since_us);
  f.req("disconnected_at_us", x.disconnected_at_us);
  f.req("reconnect_deadline_us", x.reconnect_deadline_us);
  f.opt("disabled_slots", x.disabled_slots);
  f.opt("slot_limit", x.slot_limit);
  f.opt("retiring", x.retiring);
}

template <class F> void fields(F& f, instance_info& x) {
  f.req("id", x.id);
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("spot_request_id", x.spot_request_id);
  f.req("status", x.status);
  f.req("agent_id", x.agent_id);
  f.req("launched_at_us", x.launched_at_us);
  f.req("running_at_us", x.running_at_us);
  f.opt("agent_gone_since_us", x.agent_gone_since_us);
  f.req("terminate_reason", x.terminate_reason);
  f.req("terminate_requested_at_us", x.terminate_requested_at_us);
}

template <class F> void fields(F& f, spot_request_info& x) {
  f.req("id", x.id);
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("opened_at_us", x.opened_at_us);
}

template <class F> void fields(F& f, searcher_input& x) {
  f.req("seq", x.seq);
  f.req("trial_id", x.trial_id);
  f.req("request_id", x.request_id);
  f.req("kind", x.kind);
  f.req("steps", x.steps);
  f.req("metrics", x.metrics);
  f.req("trial_status", x.trial_status);
}

template <class F> void fields(F& f, experiment_info& x) {
  f.req("id", x.id);
  f.req("pool", x.pool);
  f.req("owner", x.owner);
  f.req("config", x.config);
  f.req("priority", x.priority);
  f.req("weight", x.weight);
  f.req("max_restarts", x.max_restarts);
  f.req("slots_per_trial", x.slots_per_trial);
  f.req("status", x.status);
  f.req("status_reason", x.status_reason);
  f.req("searcher_state", x.searcher_state);
  f.req("progress", x.progress);
  f.req("trial_ids", x.trial_ids);
  f.req("submitted_at_us", x.submitted_at_us);
  f.req("state_changed_at_us", x.state_changed_at_us);
  // Absent in snapshots of masters that fed their searchers inline.
  f.opt("searcher_inbox", x.searcher_inbox);
  f.opt("searcher_inputs_queued", x.searcher_inputs_queued);
  // Absent in snapshots of older masters.
  f.opt("model_definition_pending", x.model_definition_pending);
  f.opt("notes", x.notes);
  f.opt("archived", x.archived);
  f.opt("max_slots", x.max_slots);
  f.opt("project_id", x.project_id);
  f.opt("unmanaged", x.unmanaged);
  f.opt("external_id", x.external_id);
  f.opt("deleting", x.deleting);
}

template <class F> void fields(F& f, allocation_info& x) {
  f.req("id", x.id);
  f.req("assignments", x.assignments);
  f.req("placed_at_us", x.placed_at_us);
  f.req("running_at_us", x.running_at_us);
  f.req("preemption_requested", x.preemption_requested);
  f.req("preemption_reason", x.preemption_reason);
  f.opt("preemption_requested_at_us", x.preemption_requested_at_us);
}

template <class F> void fields(F& f, orphan_checkpoints_info& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuids", x.uuids);
  f.req("storage", x.storage);
}

template <class F> void fields(F& f, allocation_record& x) {
  f.req("id", x.id);
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.req("owner", x.owner);
  f.req("workspace_name", x.workspace_name);
  f.req("pool", x.pool);
  f.req("labels", x.labels);
  f.req("slots", x.slots);
  f.req("started_at_us", x.started_at_us);
  f.req("ended_at_us", x.ended_at_us);
}

template <class F> void fields(F& f, checkpoint_info& x) {
  f.req("uuid", x.uuid);
  f.req("steps_completed", x.steps_completed);
  f.req("metadata", x.metadata);
  f.req("at_us", x.at_us);
  f.opt("state", x.state);
  f.opt("searcher_metric", x.searcher_metric);
  f.opt("validation_metrics", x.validation_metrics);
  f.opt("removing_files", x.removing_files);
  f.opt("removing_globs", x.removing_globs);
}

template <class F> void fields(F& f, metrics_summary& x) {
  f.req("steps_completed", x.steps_completed);
  f.req("training_reports", x.training_reports);
  f.req("validation_reports", x.validation_reports);
  f.req("latest_training", x.latest_training);
  f.req("latest_validation", x.latest_validation);
  f.opt("summaries", x.summaries);
  f.req("best_validation", x.best_validation);
  f.req("best_validation_steps", x.best_validation_steps);
}

template <class F> void fields(F& f, trial_info& x) {
  f.req("id", x.id);
  f.req("experiment_id", x.experiment_id);
  f.req("request_id", x.request_id);
  f.req("hparams", x.hparams);
  f.req("status", x.status);
  f.req("restarts", x.restarts);
  f.req("runs", x.runs);
  f.req("allocation", x.allocation);
  f.req("last_exit_reason", x.last_exit_reason);
  f.req("last_exit_code", x.last_exit_code);
  f.req("end_reason", x.end_reason);
  f.req("latest_checkpoint", x.latest_checkpoint);
  // Older snapshots kept only the latest checkpoint (see upgrade()).
  f.opt("checkpoints", x.checkpoints);
  f.req("metrics", x.metrics);
  f.req("created_at_us", x.created_at_us);
  f.opt("ended_at_us", x.ended_at_us);
  f.opt("log_retention_days", x.log_retention_days);
  f.opt("archived", x.archived);
  f.opt("deleted", x.deleted);
  f.opt("log_policy_matched", x.log_policy_matched);
  f.opt("log_policies_fired", x.log_policies_fired);
  f.opt("retries_canceled_by", x.retries_canceled_by);
  f.opt("excluded_agents", x.excluded_agents);
  f.opt("external_id", x.external_id);
  f.opt("last_activity_us", x.last_activity_us);
  f.opt("continued_at_us", x.continued_at_us);
  f.opt("ended_before_continue_us", x.ended_before_continue_us);
}

template <class F> void fields(F& f, user_info& x) {
  f.req("id", x.id);
  f.req("username", x.username);
  f.req("admin", x.admin);
  f.req("active", x.active);
  f.req("password_hash", x.password_hash);
  f.req("created_at_us", x.created_at_us);
  f.req("modified_at_us", x.modified_at_us);
  f.opt("display_name", x.display_name);
  f.opt("agent_uid", x.agent_uid);
  f.opt("agent_gid", x.agent_gid);
  f.opt("agent_user", x.agent_user);
  f.opt("agent_group", x.agent_group);
}

template <class F> void fields(F& f, access_token_info& x) {
  f.req("id", x.id);
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.req("description", x.description);
  f.req("created_at_us", x.created_at_us);
  f.req("expires_at_us", x.expires_at_us);
  f.req("revoked", x.revoked);
  f.req("revoked_at_us", x.revoked_at_us);
}

template <class F> void fields(F& f, cluster_message_info& x) {
  f.req("message", x.message);
  f.req("start_us", x.start_us);
  f.req("end_us", x.end_us);
  f.req("username", x.username);
  f.req("set_at_us", x.set_at_us);
}

template <class F> void fields(F& f, cluster_state& x) {
  f.req("position", x.position);
  f.req("applied_by_type", x.applied_by_type);
  f.req("cluster_id", x.cluster_id);
  f.req("masters_started", x.masters_started);
  f.req("pools", x.pools);
  f.req("agents", x.agents);
  f.req("instances", x.instances);
  f.req("spot_requests", x.spot_requests);
  f.req("experiments", x.experiments);
  f.req("trials", x.trials);
  f.derived(x.allocations);
  // Snapshots older than the user events have neither key.
  f.opt("users", x.users);
  f.pairs("sessions", x.sessions, "token_hash", "username");
  // Absent in snapshots of older masters.
  f.opt("cluster_uuid", x.cluster_uuid);
  f.opt("last_experiment_id", x.last_experiment_id);
  f.opt("last_trial_id", x.last_trial_id);
  f.opt("master_uuid", x.master_uuid);
  f.opt("access_tokens", x.access_tokens);
  f.opt("cluster_message", x.cluster_message);
  // Snapshots older than the records (workspaces ...) have none of these.
  f.opt("workspaces", x.workspaces);
  f.opt("projects", x.projects);
  f.opt("last_workspace_id", x.last_workspace_id);
  f.opt("last_project_id", x.last_project_id);
  f.opt("templates", x.templates);
  f.opt("pool_bindings", x.pool_bindings);
  f.opt("models", x.models);
  f.opt("last_model_id", x.last_model_id);
  // Snapshots older than webhooks have none of these.
  f.opt("webhooks", x.webhooks);
  f.opt("webhook_deliveries", x.webhook_deliveries);
  f.opt("last_webhook_id", x.last_webhook_id);
  f.opt("last_webhook_trigger_id", x.last_webhook_trigger_id);
  f.opt("last_webhook_delivery_id", x.last_webhook_delivery_id);
  f.opt("orphan_checkpoints", x.orphan_checkpoints);
  // Snapshots older than resource accounting have no allocation history.
  f.opt("allocation_history", x.allocation_history);
  // Snapshots older than config policies have none.
  f.opt("global_config_policies", x.global_config_policies);
  // Snapshots older than tasks have none.
  f.opt("tasks", x.tasks);
}

template <class F> void fields(F& f, task_info& x) {
  f.req("id", x.id);
  f.req("task_type", x.task_type);
  f.req("owner", x.owner);
  f.req("description", x.description);
  f.req("config", x.config);
  f.req("pool", x.pool);
  f.req("slots", x.slots);
  f.req("priority", x.priority);
  f.req("weight", x.weight);
  f.req("workspace_id", x.workspace_id);
  f.req("state", x.state);
  f.req("allocation_id", x.allocation_id);
  f.req("agent_id", x.agent_id);
  f.req("agent_slots", x.agent_slots);
  f.req("ready", x.ready);
  f.req("kill_requested_by", x.kill_requested_by);
  f.req("kill_reason", x.kill_reason);
  f.req("launched_at_us", x.launched_at_us);
  f.req("placed_at_us", x.placed_at_us);
  f.req("running_at_us", x.running_at_us);
  f.req("ended_at_us", x.ended_at_us);
  f.req("exit_reason", x.exit_reason);
  f.req("exit_code", x.exit_code);
  f.req("exit_message", x.exit_message);
  f.opt("proxy_host", x.proxy_host);
  f.opt("proxy_port", x.proxy_port);
  f.opt("allocations", x.allocations);
  f.opt("pausing", x.pausing);
  f.opt("forked_from", x.forked_from);
  f.opt("parent_id", x.parent_id);
  f.opt("no_pause", x.no_pause);
  f.opt("pauses_with_parent", x.pauses_with_parent);
  f.opt("tensorboard", x.tensorboard);
}

template <class F> void fields(F& f, webhook_info& x) {
  f.req("id", x.id);
  f.req("name", x.name);
  f.req("url", x.url);
  f.req("webhook_type", x.webhook_type);
  f.req("mode", x.mode);
  f.req("workspace_id", x.workspace_id);
  f.req("triggers", x.triggers);
  f.req("username", x.username);
  f.req("created_at_us", x.created_at_us);
  f.req("log_fired", x.log_fired);
}

template <class F> void fields(F& f, webhook_delivery_info& x) {
  f.req("id", x.id);
  f.req("webhook_id", x.webhook_id);
  f.req("trigger_id", x.trigger_id);
  f.req("trigger_type", x.trigger_type);
  f.req("experiment_id", x.experiment_id);
  f.req("trial_id", x.trial_id);
  f.req("payload", x.payload);
  f.req("due_at_us", x.due_at_us);
}

template <class F> void fields(F& f, workspace_info& x) {
  f.req("id", x.id);
  f.req("name", x.name);
  f.req("archived", x.archived);
  f.req("agent_user_group", x.agent_user_group);
  f.req("checkpoint_storage", x.checkpoint_storage);
  f.req("default_compute_pool", x.default_compute_pool);
  f.req("default_aux_pool", x.default_aux_pool);
  f.req("username", x.username);
  f.req("created_at_us", x.created_at_us);
  f.pairs("namespaces", x.namespaces, "cluster_name", "namespace");
  f.opt("config_policies", x.config_policies);
  f.opt("pinned_by", x.pinned_by);
}

template <class F> void fields(F& f, config_policy_info& x) {
  f.req("workload_type", x.workload_type);
  f.req("invariant_config", x.invariant_config);
  f.req("constraints", x.constraints);
  f.req("username", x.username);
  f.req("updated_at_us", x.updated_at_us);
}

template <class F> void fields(F& f, project_info& x) {
  f.req("id", x.id);
  f.req("workspace_id", x.workspace_id);
  f.req("name", x.name);
  f.req("description", x.description);
  f.req("key", x.key);
  f.req("archived", x.archived);
  f.req("username", x.username);
  f.req("created_at_us", x.created_at_us);
  f.opt("notes", x.notes);
}

template <class F> void fields(F& f, template_info& x) {
  f.req("name", x.name);
  f.req("workspace_id", x.workspace_id);
  f.req("config", x.config);
}

template <class F> void fields(F& f, pool_binding_info& x) {
  f.req("pool", x.pool);
  f.req("workspace_ids", x.workspace_ids);
}

template <class F> void fields(F& f, model_version_info& x) {
  f.req("version", x.version);
  f.req("checkpoint_uuid", x.checkpoint_uuid);
  f.req("name", x.name);
  f.req("comment", x.comment);
  f.req("notes", x.notes);
  f.req("metadata", x.metadata);
  f.req("labels", x.labels);
  f.req("username", x.username);
  f.req("created_at_us", x.created_at_us);
  f.req("updated_at_us", x.updated_at_us);
}

template <class F> void fields(F& f, model_info& x) {
  f.req("id", x.id);
  f.req("name", x.name);
  f.req("description", x.description);
  f.req("workspace_id", x.workspace_id);
  f.req("archived", x.archived);
  f.req("metadata", x.metadata);
  f.req("labels", x.labels);
  f.req("notes", x.notes);
  f.req("username", x.username);
  f.req("created_at_us", x.created_at_us);
  f.req("updated_at_us", x.updated_at_us);
  f.req("versions", x.versions);
  f.req("last_version", x.last_version);
}

/// The key a record is filed under in its cluster_state map.
inline const std::string& key_of(const pool_info& x) {
  return x.config.pool;
}
inline int64_t key_of(const launch_info& x) {
  return x.seq;
}
inline const std::string& key_of(const agent_info& x) {
  return x.id;
}
inline const std::string& key_of(const instance_info& x) {
  return x.id;
}
inline const std::string& key_of(const spot_request_info& x) {
  return x.id;
}
inline int64_t key_of(const experiment_info& x) {
  return x.id;
}
inline int64_t key_of(const trial_info& x) {
  return x.id;
}
inline const std::string& key_of(const user_info& x) {
  return x.username;
}
inline int64_t key_of(const access_token_info& x) {
  return x.id;
}
inline int64_t key_of(const workspace_info& x) {
  return x.id;
}
inline int64_t key_of(const project_info& x) {
  return x.id;
}
inline const std::string& key_of(const template_info& x) {
  return x.name;
}
inline const std::string& key_of(const config_policy_info& x) {
  return x.workload_type;
}
inline const std::string& key_of(const pool_binding_info& x) {
  return x.pool;
}
inline int64_t key_of(const model_info& x) {
  return x.id;
}
inline int64_t key_of(const webhook_info& x) {
  return x.id;
}
inline int64_t key_of(const webhook_delivery_info& x) {
  return x.id;
}
inline int64_t key_of(const orphan_checkpoints_info& x) {
  return x.experiment_id;
}
inline const std::string& key_of(const allocation_record& x) {
  return x.id;
}
inline const std::string& key_of(const task_info& x) {
  return x.id;
}

// -- equality -----------------------------------------------------------------

/// Equality of the members fields() names: the first pass collects b's
/// members, the second compares a's with them in the same order (the two
/// passes see the same types in the same order, so each static_cast gives
/// back the member's own type).
class record_equal {
public:
  template <class T> static bool equal(const T& a, const T& b) {
    record_equal collect;
    fields(collect, const_cast<T&>(b));
    record_equal compare;
    compare.others_ = &collect.members_;
    fields(compare, const_cast<T&>(a));
    return compare.equal_;
  }

  template <class V> void req(const char*, V& x) { visit(x); }
  template <class V> void opt(const char*, V& x) { visit(x); }
  template <class M> void pairs(const char*, M& x, const char*, const char*) {
    visit(x);
  }
  template <class V> void derived(V& x) { visit(x); }

private:
  template <class V> void visit(const V& x) {
    if (others_ == nullptr) {
      members_.push_back(&x);
      return;
    }
    if (equal_)
      equal_ = x == *static_cast<const V*>((*others_)[next_]);
    ++next_;
  }

  std::vector<const void*> members_;
  const std::vector<const void*>* others_ = nullptr;
  size_t next_ = 0;
  bool equal_ = true;
};

} // namespace det::state
