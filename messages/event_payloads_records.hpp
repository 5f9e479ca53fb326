#pragma once

// The payload forms of messages/events_records.hpp (workspaces, projects,
// templates, pool bindings, models), as messages/event_payloads.hpp does
// for the rest; included from there, after its field checks. Private to
// messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, workspace_saved& x) {
  f.req("workspace_id", x.workspace_id);
  f.req("name", x.name);
  f.opt("archived", x.archived);
  f.opt("agent_user_group", x.agent_user_group);
  f.opt("checkpoint_storage", x.checkpoint_storage);
  f.opt("default_compute_pool", x.default_compute_pool);
  f.opt("default_aux_pool", x.default_aux_pool);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, workspace_deleted& x) {
  f.req("workspace_id", x.workspace_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, project_saved& x) {
  f.req("project_id", x.project_id);
  f.req("workspace_id", x.workspace_id);
  f.req("name", x.name);
  f.opt("description", x.description);
  f.opt("key", x.key);
  f.opt("archived", x.archived);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, project_deleted& x) {
  f.req("project_id", x.project_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_moved& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("project_id", x.project_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, template_saved& x) {
  f.req("name", x.name);
  f.opt("workspace_id", x.workspace_id);
  f.req("config", x.config);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, template_deleted& x) {
  f.req("name", x.name);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, pool_bindings_set& x) {
  f.req("pool", x.pool);
  f.req("workspace_ids", x.workspace_ids);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, workspace_namespace_bound& x) {
  f.req("workspace_id", x.workspace_id);
  f.opt("cluster_name", x.cluster_name);
  f.req("namespace", x.ns);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, config_policies_set& x) {
  f.req("workspace_id", x.workspace_id);
  f.req("workload_type", x.workload_type);
  f.opt("invariant_config", x.invariant_config);
  f.opt("constraints", x.constraints);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, model_saved& x) {
  f.req("model_id", x.model_id);
  f.req("name", x.name);
  f.opt("description", x.description);
  f.opt("workspace_id", x.workspace_id);
  f.opt("archived", x.archived);
  f.opt("metadata", x.metadata);
  f.opt("labels", x.labels);
  f.opt("notes", x.notes);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, model_deleted& x) {
  f.req("model_id", x.model_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, model_version_saved& x) {
  f.req("model_id", x.model_id);
  f.req("model_version", x.model_version);
  f.req("checkpoint_uuid", x.checkpoint_uuid);
  f.opt("name", x.name);
  f.opt("comment", x.comment);
  f.opt("notes", x.notes);
  f.opt("metadata", x.metadata);
  f.opt("labels", x.labels);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, model_version_deleted& x) {
  f.req("model_id", x.model_id);
  f.req("model_version", x.model_version);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void require_positive(const char* key, int64_t value) {
  if (value < 1)
    throw field_error(std::string{"field '"} + key + "': must be at least 1");
}

inline void validate(const workspace_saved& x) {
  require_positive("workspace_id", x.workspace_id);
  require_non_empty("name", x.name);
  require_object(x.agent_user_group, "field 'agent_user_group'");
  require_object(x.checkpoint_storage, "field 'checkpoint_storage'");
}

inline void validate(const workspace_deleted& x) {
  require_positive("workspace_id", x.workspace_id);
}

inline void validate(const project_saved& x) {
  require_positive("project_id", x.project_id);
  require_positive("workspace_id", x.workspace_id);
  require_non_empty("name", x.name);
}

inline void validate(const project_deleted& x) {
  require_positive("project_id", x.project_id);
}

inline void validate(const experiment_moved& x) {
  require_positive("project_id", x.project_id);
}

inline void validate(const template_saved& x) {
  require_non_empty("name", x.name);
  require_positive("workspace_id", x.workspace_id);
  require_object(x.config, "field 'config'");
}

inline void validate(const template_deleted& x) {
  require_non_empty("name", x.name);
}

inline void validate(const pool_bindings_set& x) {
  require_non_empty("pool", x.pool);
  for (auto id : x.workspace_ids)
    require_positive("workspace_ids[]", id);
}

inline void validate(const workspace_namespace_bound& x) {
  require_positive("workspace_id", x.workspace_id);
}

inline void validate(const config_policies_set& x) {
  if (x.workspace_id < 0)
    throw field_error("field 'workspace_id': must be 0 (global) or a "
                      "workspace id");
  if (x.workload_type != "EXPERIMENT" && x.workload_type != "NTSC")
    throw field_error("field 'workload_type': must be EXPERIMENT or NTSC");
  if (!x.invariant_config.is_null())
    require_object(x.invariant_config, "field 'invariant_config'");
  if (!x.constraints.is_null())
    require_object(x.constraints, "field 'constraints'");
}

inline void validate(const model_saved& x) {
  require_positive("model_id", x.model_id);
  require_non_empty("name", x.name);
  require_positive("workspace_id", x.workspace_id);
  require_object(x.metadata, "field 'metadata'");
}

inline void validate(const model_deleted& x) {
  require_positive("model_id", x.model_id);
}

inline void validate(const model_version_saved& x) {
  require_positive("model_id", x.model_id);
  require_positive("model_version", x.model_version);
  require_non_empty("checkpoint_uuid", x.checkpoint_uuid);
  require_object(x.metadata, "field 'metadata'");
}

inline void validate(const model_version_deleted& x) {
  require_positive("model_id", x.model_id);
  require_positive("model_version", x.model_version);
}

} // namespace det::payload
