#pragma once

// Persisted events of the user's records beside experiments: workspaces,
// projects, config templates, resource-pool bindings and the model
// registry. Included by messages/events.hpp (the catalogue); the rules
// there apply (past tense, never renamed, new fields at the end).
//
// A `*_saved` event holds the whole record as it is after the change (its
// creation when the id is new), so an edit never has to be merged with what
// an older event said. Workspace 1 and project 1 ("Uncategorized") exist
// without an event; a `*_saved` of id 1 changes them.

#include "messages/event_definition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// A workspace was created (a new id) or changed. `agent_user_group`:
/// {agentUid, agentGid, agentUser, agentGroup} or {}; `checkpoint_storage`:
/// the workspace's storage config, {} for none.
struct workspace_saved {
  static constexpr const char* type_name = "workspace_saved";
  static constexpr int32_t version = 1;
  int64_t workspace_id = 0;
  std::string name;
  bool archived = false;
  nlohmann::json agent_user_group = nlohmann::json::object();
  nlohmann::json checkpoint_storage = nlohmann::json::object();
  std::string default_compute_pool;
  std::string default_aux_pool;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("workspace_id", workspace_id);
    f.req("name", name);
    f.opt("archived", archived);
    f.opt("agent_user_group", agent_user_group);
    f.opt("checkpoint_storage", checkpoint_storage);
    f.opt("default_compute_pool", default_compute_pool);
    f.opt("default_aux_pool", default_aux_pool);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("workspace_id", workspace_id);
    require_non_empty("name", name);
    require_object(agent_user_group, "field 'agent_user_group'");
    require_object(checkpoint_storage, "field 'checkpoint_storage'");
  }
  std::string stream() const {
    return "workspace/" + std::to_string(workspace_id);
  }
};

/// A workspace (holding no project) was deleted, with its templates.
struct workspace_deleted {
  static constexpr const char* type_name = "workspace_deleted";
  static constexpr int32_t version = 1;
  int64_t workspace_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("workspace_id", workspace_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("workspace_id", workspace_id); }
  std::string stream() const {
    return "workspace/" + std::to_string(workspace_id);
  }
};

/// A user pinned a workspace (`pinned`) or unpinned it, for themself
/// only: the WebUI's sidebar and GET /api/v1/workspaces?pinned=true. A
/// workspace is pinned for the user who creates it.
struct workspace_pinned {
  static constexpr const char* type_name = "workspace_pinned";
  static constexpr int32_t version = 1;
  int64_t workspace_id = 0;
  bool pinned = true;
  std::string username; ///< whose pin
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("workspace_id", workspace_id);
    f.opt("pinned", pinned);
    f.req("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("workspace_id", workspace_id);
    require_non_empty("username", username);
  }
  std::string stream() const {
    return "workspace/" + std::to_string(workspace_id);
  }
};

/// A project was created (a new id) or changed.
struct project_saved {
  static constexpr const char* type_name = "project_saved";
  static constexpr int32_t version = 1;
  int64_t project_id = 0;
  int64_t workspace_id = 0;
  std::string name;
  std::string description;
  std::string key;
  bool archived = false;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("project_id", project_id);
    f.req("workspace_id", workspace_id);
    f.req("name", name);
    f.opt("description", description);
    f.opt("key", key);
    f.opt("archived", archived);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("project_id", project_id);
    require_positive("workspace_id", workspace_id);
    require_non_empty("name", name);
  }
  std::string stream() const { return "project/" + std::to_string(project_id); }
};

/// A project's notes (the WebUI's notes tab) became `notes`: an array of
/// {"name", "contents"} strings, in order.
struct project_notes_set {
  static constexpr const char* type_name = "project_notes_set";
  static constexpr int32_t version = 1;
  int64_t project_id = 0;
  nlohmann::json notes = nlohmann::json::array();
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("project_id", project_id);
    f.req("notes", notes);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("project_id", project_id);
    if (!notes.is_array())
      throw field_error("field 'notes' must be an array");
    for (const auto& n : notes) {
      require_object(n, "each of field 'notes'");
      for (const char* key : {"name", "contents"})
        if (!n.contains(key) || !n[key].is_string())
          throw field_error(std::string{"field 'notes[]."} + key
                            + "' must be a string");
    }
  }
  std::string stream() const { return "project/" + std::to_string(project_id); }
};

/// A project holding no experiment was deleted.
struct project_deleted {
  static constexpr const char* type_name = "project_deleted";
  static constexpr int32_t version = 1;
  int64_t project_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("project_id", project_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("project_id", project_id); }
  std::string stream() const { return "project/" + std::to_string(project_id); }
};

/// An experiment now belongs to project `project_id`.
struct experiment_moved {
  static constexpr const char* type_name = "experiment_moved";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int64_t project_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("project_id", project_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("project_id", project_id); }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A config template was created or its config replaced.
struct template_saved {
  static constexpr const char* type_name = "template_saved";
  static constexpr int32_t version = 1;
  std::string name;
  int64_t workspace_id = 1;
  nlohmann::json config = nlohmann::json::object();
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("name", name);
    f.opt("workspace_id", workspace_id);
    f.req("config", config);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("name", name);
    require_positive("workspace_id", workspace_id);
    require_object(config, "field 'config'");
  }
  std::string stream() const { return "template/" + name; }
};

/// A config template was removed.
struct template_deleted {
  static constexpr const char* type_name = "template_deleted";
  static constexpr int32_t version = 1;
  std::string name;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("name", name);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_non_empty("name", name); }
  std::string stream() const { return "template/" + name; }
};

/// The workspaces a resource pool is bound to, as they are now (an empty
/// list: bound to none, open to every workspace).
struct pool_bindings_set {
  static constexpr const char* type_name = "pool_bindings_set";
  static constexpr int32_t version = 1;
  std::string pool;
  std::vector<int64_t> workspace_ids;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("pool", pool);
    f.req("workspace_ids", workspace_ids);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("pool", pool);
    for (auto id : workspace_ids)
      require_positive("workspace_ids[]", id);
  }
  std::string stream() const { return "pool/" + pool; }
};

/// Workspace `workspace_id` runs its trials, on the Kubernetes cluster
/// `cluster_name`, in namespace `ns` ("namespace" in the log); an empty
/// `ns` ends the binding (its trials use the resource manager's default
/// namespace again).
struct workspace_namespace_bound {
  static constexpr const char* type_name = "workspace_namespace_bound";
  static constexpr int32_t version = 1;
  int64_t workspace_id = 0;
  std::string cluster_name;
  std::string ns;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("workspace_id", workspace_id);
    f.opt("cluster_name", cluster_name);
    f.req("namespace", ns);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("workspace_id", workspace_id); }
  std::string stream() const {
    return "workspace/" + std::to_string(workspace_id);
  }
};

/// The config policies of one scope and workload type, as they are now
/// (`det config-policies set|delete`): `workspace_id` 0 is the global
/// scope; `workload_type` "EXPERIMENT" or "NTSC". `invariant_config` (an
/// object merged over submitted configs) and `constraints` ({priority_limit,
/// resources: {max_slots}}, refusing submissions past them) are null when
/// not set; both null: the scope has none for that type.
struct config_policies_set {
  static constexpr const char* type_name = "config_policies_set";
  static constexpr int32_t version = 1;
  int64_t workspace_id = 0;
  std::string workload_type;
  nlohmann::json invariant_config;
  nlohmann::json constraints;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("workspace_id", workspace_id);
    f.req("workload_type", workload_type);
    f.opt("invariant_config", invariant_config);
    f.opt("constraints", constraints);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (workspace_id < 0)
      throw field_error("field 'workspace_id': must be 0 (global) or a "
                        "workspace id");
    if (workload_type != "EXPERIMENT" && workload_type != "NTSC")
      throw field_error("field 'workload_type': must be EXPERIMENT or NTSC");
    if (!invariant_config.is_null())
      require_object(invariant_config, "field 'invariant_config'");
    if (!constraints.is_null())
      require_object(constraints, "field 'constraints'");
  }
  std::string stream() const {
    return workspace_id == 0 ? std::string{"config_policies/global"}
                             : "workspace/" + std::to_string(workspace_id);
  }
};

/// A registered model was created (a new id) or changed.
struct model_saved {
  static constexpr const char* type_name = "model_saved";
  static constexpr int32_t version = 1;
  int64_t model_id = 0;
  std::string name;
  std::string description;
  int64_t workspace_id = 1;
  bool archived = false;
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<std::string> labels;
  std::string notes;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("model_id", model_id);
    f.req("name", name);
    f.opt("description", description);
    f.opt("workspace_id", workspace_id);
    f.opt("archived", archived);
    f.opt("metadata", metadata);
    f.opt("labels", labels);
    f.opt("notes", notes);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("model_id", model_id);
    require_non_empty("name", name);
    require_positive("workspace_id", workspace_id);
    require_object(metadata, "field 'metadata'");
  }
  std::string stream() const { return "model/" + std::to_string(model_id); }
};

/// A registered model and its versions were deleted.
struct model_deleted {
  static constexpr const char* type_name = "model_deleted";
  static constexpr int32_t version = 1;
  int64_t model_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("model_id", model_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("model_id", model_id); }
  std::string stream() const { return "model/" + std::to_string(model_id); }
};

/// Version `version` of a model was registered (a new number: the model's
/// last plus one) or changed; it names a checkpoint the state holds.
struct model_version_saved {
  static constexpr const char* type_name = "model_version_saved";
  static constexpr int32_t version = 1;
  int64_t model_id = 0;
  int64_t model_version = 0;
  std::string checkpoint_uuid;
  std::string name;
  std::string comment;
  std::string notes;
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<std::string> labels;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("model_id", model_id);
    f.req("model_version", model_version);
    f.req("checkpoint_uuid", checkpoint_uuid);
    f.opt("name", name);
    f.opt("comment", comment);
    f.opt("notes", notes);
    f.opt("metadata", metadata);
    f.opt("labels", labels);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("model_id", model_id);
    require_positive("model_version", model_version);
    require_non_empty("checkpoint_uuid", checkpoint_uuid);
    require_object(metadata, "field 'metadata'");
  }
  std::string stream() const { return "model/" + std::to_string(model_id); }
};

/// A model version was deleted (its number is not given again).
struct model_version_deleted {
  static constexpr const char* type_name = "model_version_deleted";
  static constexpr int32_t version = 1;
  int64_t model_id = 0;
  int64_t model_version = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("model_id", model_id);
    f.req("model_version", model_version);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("model_id", model_id);
    require_positive("model_version", model_version);
  }
  std::string stream() const { return "model/" + std::to_string(model_id); }
};

using record_event_family =
    event_family<workspace_saved, workspace_deleted, workspace_pinned,
                 project_saved, project_notes_set, project_deleted,
                 experiment_moved, template_saved, template_deleted,
                 pool_bindings_set, workspace_namespace_bound,
                 config_policies_set, model_saved, model_deleted,
                 model_version_saved, model_version_deleted>;

} // namespace det
