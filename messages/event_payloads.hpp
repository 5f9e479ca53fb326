#pragma once

// The payload of each event type as JSON: one fields() per type lists its
// fields in order, and the same list drives writing and reading, so the two
// cannot disagree; validate() adds the checks beyond field types. Private
// to messages/events.cpp (which owns the catalogue, streams and
// upcasters); nothing else includes it.

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "messages/json_fields.hpp"
#include "messages/metric_group.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

#include <string>
#include <vector>

namespace det::payload {

using nlohmann::json;

// -- payload forms ------------------------------------------------------------
//
// One fields() per event type lists its payload fields in order; the same
// list drives writing (payload_writer) and reading (payload_reader), so the
// two cannot disagree. `req` fields must be present; `opt` fields keep the
// struct's default when absent or null. Every field is always written.

struct payload_writer {
  json& out;
  template <class T> void req(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> void opt(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> static json encode_value(const T& value) {
    return json(value);
  }
  static json encode_value(const std::vector<slot_assignment>& xs) {
    json out = json::array();
    for (const auto& a : xs)
      out.push_back({{"agent_id", a.agent_id}, {"slots", a.slots}});
    return out;
  }
};

struct payload_reader {
  const json& in;
  template <class T> void req(const char* key, T& value) {
    value = get_field<T>(in, key);
  }
  template <class T> void opt(const char* key, T& value) {
    value = get_field_or<T>(in, key, value);
  }
  void req(const char* key, std::vector<slot_assignment>& xs) {
    auto list = get_field<json>(in, key);
    if (!list.is_array())
      throw field_error(std::string{"field '"} + key + "': expected a list");
    for (const auto& a : list) {
      require_object(a, "field 'assignments[]'");
      xs.push_back({get_field<std::string>(a, "agent_id"),
                    get_field<std::vector<int64_t>>(a, "slots")});
    }
  }
};

template <class F> void fields(F& f, master_started& x) {
  f.req("cluster_id", x.cluster_id);
  f.opt("host", x.host);
  f.opt("pid", x.pid);
  f.opt("master_version", x.master_version);
  f.opt("at_us", x.at_us);
  f.opt("cluster_uuid", x.cluster_uuid);
  f.opt("master_uuid", x.master_uuid);
}

template <class F> void fields(F& f, pool_configured& x) {
  f.req("pool", x.pool);
  f.opt("scheduler", x.scheduler);
  f.opt("provider", x.provider);
  f.opt("slots_per_instance", x.slots_per_instance);
  f.opt("min_instances", x.min_instances);
  f.opt("max_instances", x.max_instances);
  f.opt("instance_type", x.instance_type);
  f.opt("spot", x.spot);
  f.opt("max_idle_agent_period_s", x.max_idle_agent_period_s);
  f.opt("max_agent_starting_period_s", x.max_agent_starting_period_s);
  f.opt("agent_reconnect_wait_s", x.agent_reconnect_wait_s);
}

template <class F> void fields(F& f, agent_connected& x) {
  f.req("agent_id", x.agent_id);
  f.req("pool", x.pool);
  f.req("slots", x.slots);
  f.req("slot_type", x.slot_type);
  f.opt("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_disconnected& x) {
  f.req("agent_id", x.agent_id);
  f.opt("reason", x.reason);
  f.opt("reconnect_deadline_us", x.reconnect_deadline_us);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_lost& x) {
  f.req("agent_id", x.agent_id);
  f.req("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_enabled& x) {
  f.req("agent_id", x.agent_id);
}

template <class F> void fields(F& f, agent_disabled& x) {
  f.req("agent_id", x.agent_id);
  f.opt("drain", x.drain);
}

template <class F> void fields(F& f, instance_launch_requested& x) {
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("client_token", x.client_token);
  f.req("count", x.count);
  f.opt("spot", x.spot);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_launch_failed& x) {
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("error_kind", x.error_kind);
  f.opt("message", x.message);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_pending& x) {
  f.req("instance_id", x.instance_id);
  f.req("pool", x.pool);
  f.opt("launch_seq", x.launch_seq);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_running& x) {
  f.req("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_terminate_requested& x) {
  f.req("instance_id", x.instance_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_terminated& x) {
  f.req("instance_id", x.instance_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_opened& x) {
  f.req("request_id", x.request_id);
  f.req("pool", x.pool);
  f.opt("launch_seq", x.launch_seq);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_fulfilled& x) {
  f.req("request_id", x.request_id);
  f.req("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_cancelled& x) {
  f.req("request_id", x.request_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_submitted& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("pool", x.pool);
  f.opt("owner", x.owner);
  f.opt("config", x.config);
  f.opt("priority", x.priority);
  f.opt("weight", x.weight);
  f.opt("max_restarts", x.max_restarts);
  f.opt("slots_per_trial", x.slots_per_trial);
  f.opt("at_us", x.at_us);
  f.opt("model_definition_pending", x.model_definition_pending);
  f.opt("project_id", x.project_id);
  f.opt("unmanaged", x.unmanaged);
  f.opt("external_id", x.external_id);
}

template <class F> void fields(F& f, experiment_model_stored& x) {
  f.req("experiment_id", x.experiment_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_state_changed& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("state", x.state);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_edited& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("name", x.name);
  f.opt("description", x.description);
  f.opt("notes", x.notes);
  f.opt("labels", x.labels);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_archived& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("archived", x.archived);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, checkpoints_deletion_requested& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuids", x.uuids);
  f.req("reason", x.reason);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, checkpoints_deleted& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuids", x.uuids);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_searcher_updated& x) {
  f.req("experiment_id", x.experiment_id);
  f.opt("searcher_state", x.searcher_state);
  f.opt("progress", x.progress);
  f.opt("inputs_through", x.inputs_through);
}

template <class F> void fields(F& f, trial_created& x) {
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.opt("hparams", x.hparams);
  f.opt("request_id", x.request_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_placed& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.req("assignments", x.assignments);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_running& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_preemption_requested& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_checkpointed& x) {
  f.req("trial_id", x.trial_id);
  f.req("uuid", x.uuid);
  f.req("steps_completed", x.steps_completed);
  f.opt("metadata", x.metadata);
  f.opt("allocation_id", x.allocation_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_metrics_reported& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.req("kind", x.kind);
  f.req("steps_completed", x.steps_completed);
  f.req("metrics", x.metrics);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_exited& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("exit_code", x.exit_code);
  f.req("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_restarted& x) {
  f.req("trial_id", x.trial_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_errored& x) {
  f.req("trial_id", x.trial_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_canceled& x) {
  f.req("trial_id", x.trial_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_deleted& x) {
  f.req("experiment_id", x.experiment_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, slot_disabled& x) {
  f.req("agent_id", x.agent_id);
  f.req("slot_id", x.slot_id);
  f.opt("drain", x.drain);
}

template <class F> void fields(F& f, slot_enabled& x) {
  f.req("agent_id", x.agent_id);
  f.req("slot_id", x.slot_id);
}

template <class F> void fields(F& f, experiment_resources_changed& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("priority", x.priority);
  f.req("weight", x.weight);
  f.req("max_slots", x.max_slots);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

// -- checks beyond field types ------------------------------------------------

inline void require_one_of(const char* key, const std::string& value,
                           const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return;
  std::string list;
  for (const auto& a : allowed)
    list += (list.empty() ? "" : ", ") + a;
  throw field_error(std::string{"field '"} + key + "': expected one of " + list
                    + ", got '" + value + "'");
}

inline void require_non_negative(const char* key, int64_t value) {
  if (value < 0)
    throw field_error(std::string{"field '"} + key + "': must not be negative");
}

inline void require_non_empty(const char* key, const std::string& value) {
  if (value.empty())
    throw field_error(std::string{"field '"} + key + "': must not be empty");
}

template <class T> void validate(const T&) {
  // Most payloads need no more than their field types.
}

inline void validate(const pool_configured& x) {
  require_non_empty("pool", x.pool);
  require_one_of("scheduler", x.scheduler, {"priority", "fair_share"});
  require_one_of("provider", x.provider, {"", "local", "aws"});
  require_non_negative("slots_per_instance", x.slots_per_instance);
  require_non_negative("min_instances", x.min_instances);
  require_non_negative("max_instances", x.max_instances);
  if (x.max_instances < x.min_instances)
    throw field_error("field 'max_instances': must not be below "
                      "min_instances");
  require_non_negative("max_idle_agent_period_s", x.max_idle_agent_period_s);
  require_non_negative("max_agent_starting_period_s",
                       x.max_agent_starting_period_s);
  require_non_negative("agent_reconnect_wait_s", x.agent_reconnect_wait_s);
}

inline void validate(const agent_connected& x) {
  require_non_empty("agent_id", x.agent_id);
  require_non_negative("slots", x.slots);
  // A bound so that a corrupt payload cannot make the state allocate
  // billions of slots; no machine has more devices than this.
  if (x.slots > 4096)
    throw field_error("field 'slots': more than 4096");
  require_one_of("slot_type", x.slot_type, {"cpu", "cuda", "rocm"});
}

inline void validate(const agent_lost& x) {
  require_one_of("reason", x.reason, agent_lost_reasons());
}

inline void validate(const instance_launch_requested& x) {
  require_non_empty("client_token", x.client_token);
  if (x.count < 1)
    throw field_error("field 'count': must be at least 1");
}

inline void validate(const instance_launch_failed& x) {
  require_one_of("error_kind", x.error_kind, launch_error_kinds());
}

inline void validate(const instance_pending& x) {
  require_non_empty("instance_id", x.instance_id);
}

inline void validate(const spot_request_fulfilled& x) {
  require_non_empty("instance_id", x.instance_id);
}

inline void validate(const experiment_submitted& x) {
  require_object(x.config, "field 'config'");
  if (x.slots_per_trial < 1)
    throw field_error("field 'slots_per_trial': must be at least 1");
  require_non_negative("max_restarts", x.max_restarts);
  if (!(x.weight > 0))
    throw field_error("field 'weight': must be positive");
  require_non_negative("project_id", x.project_id);
}

inline void validate(const experiment_model_stored&) {}

inline void validate(const experiment_state_changed& x) {
  require_one_of("state", x.state, experiment_states());
}

inline void validate(const experiment_edited& x) {
  if (x.name.empty())
    throw field_error("field 'name': must not be empty");
}

inline void validate(const experiment_archived&) {}

inline void validate(const checkpoints_deletion_requested& x) {
  if (x.uuids.empty())
    throw field_error("field 'uuids': must not be empty");
  for (const auto& u : x.uuids)
    require_non_empty("uuids[]", u);
  require_one_of("reason", x.reason, {"gc", "user", "delete"});
}

inline void validate(const checkpoints_deleted& x) {
  if (x.uuids.empty())
    throw field_error("field 'uuids': must not be empty");
  for (const auto& u : x.uuids)
    require_non_empty("uuids[]", u);
}

inline void validate(const experiment_searcher_updated& x) {
  if (!(x.progress >= 0.0 && x.progress <= 1.0))
    throw field_error("field 'progress': must be within [0, 1]");
  if (x.inputs_through < -1)
    throw field_error("field 'inputs_through': must be -1 or more");
}

inline void validate(const trial_created& x) {
  require_object(x.hparams, "field 'hparams'");
}

inline void validate(const trial_checkpointed& x) {
  require_non_empty("uuid", x.uuid);
  require_non_negative("steps_completed", x.steps_completed);
}

inline void validate(const trial_metrics_reported& x) {
  if (auto why = metric_group_problem(x.kind); !why.empty())
    throw field_error("field 'kind' " + why);
  require_non_negative("steps_completed", x.steps_completed);
  require_object(x.metrics, "field 'metrics'");
}

inline void validate(const trial_exited& x) {
  require_one_of("reason", x.reason, trial_exit_reasons());
}

/// A token hash is a hex SHA-256: 64 lower-case hex digits.
inline void require_token_hash(const std::string& h) {
  bool hex = h.size() == 64 && std::all_of(h.begin(), h.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
             });
  if (!hex)
    throw field_error("field 'token_hash': expected 64 hex digits");
}

inline void validate(const experiment_deleted&) {}

inline void validate(const slot_disabled& x) {
  require_non_empty("agent_id", x.agent_id);
  require_non_negative("slot_id", x.slot_id);
}

inline void validate(const slot_enabled& x) {
  require_non_empty("agent_id", x.agent_id);
  require_non_negative("slot_id", x.slot_id);
}

inline void validate(const experiment_resources_changed& x) {
  if (x.priority < 1 || x.priority > 99)
    throw field_error("field 'priority': must be within [1, 99]");
  if (!(x.weight > 0.0) || !std::isfinite(x.weight))
    throw field_error("field 'weight': must be a positive number");
  if (x.max_slots < 0)
    throw field_error("field 'max_slots': must be 0 or more");
}

} // namespace det::payload

// The records' payloads (workspaces, projects, templates, models) follow
// the same pattern in their own file.
#include "messages/event_payloads_accounts.hpp"         // IWYU pragma: keep
#include "messages/event_payloads_capacity.hpp"         // IWYU pragma: keep
#include "messages/event_payloads_checkpoint_files.hpp" // IWYU pragma: keep
#include "messages/event_payloads_continue.hpp"         // IWYU pragma: keep
#include "messages/event_payloads_experiments.hpp"      // IWYU pragma: keep
#include "messages/event_payloads_records.hpp"          // IWYU pragma: keep
#include "messages/event_payloads_runs.hpp"             // IWYU pragma: keep
#include "messages/event_payloads_unmanaged.hpp"        // IWYU pragma: keep
#include "messages/event_payloads_webhooks.hpp"         // IWYU pragma: keep

namespace det::payload {

// -- the values of an event, for visit_fields() ----------------------------

struct field_walker {
  const event_field_visitor& v;
  template <class T> void req(const char* key, T& value) { walk(key, value); }
  template <class T> void opt(const char* key, T& value) { walk(key, value); }
  void walk(const char* key, std::string& value) {
    if (v.text)
      v.text(key, value);
  }
  void walk(const char* key, json& value) {
    if (v.document)
      v.document(key, value);
  }
  void walk(const char* key, double& value) {
    if (v.number)
      v.number(key, value);
  }
  void walk(const char* key, std::vector<std::string>& xs) {
    for (auto& x : xs)
      walk(key, x);
  }
  void walk(const char*, std::vector<slot_assignment>& xs) {
    for (auto& a : xs)
      walk("assignments[].agent_id", a.agent_id);
  }
  template <class T> void walk(const char*, T&) {}
};

template <class T> json write(const T& x) {
  json out = json::object();
  payload_writer w{out};
  // The writer only reads the fields; fields() takes them mutable so one
  // list serves both directions.
  fields(w, const_cast<T&>(x));
  return out;
}

template <class T> void read(const json& j, T& x) {
  payload_reader r{j};
  fields(r, x);
  validate(x);
}

} // namespace det::payload
