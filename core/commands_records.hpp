#pragma once

// The commands on the user's records (core/records.hpp): workspaces,
// projects, moving an experiment, config templates, resource-pool bindings,
// the model registry and config policies. Plain structs, members of
// `command` (core/commands.hpp); the API builds each with its parse
// function (core/records_parse.hpp), which checked every field's shape, so
// a struct holds what the request said in typed form. What depends on the
// state (a record not found, a name taken, an archived parent, the values
// an edit keeps) the core's decider checks (master_core::on).
//
// An edit's std::optional member left empty keeps the record's value.
// `username` is the caller, set by the API after parsing.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det {

// -- workspaces -------------------------------------------------------------

/// A default pool a request named, with the field it named it in
/// (defaultComputePool or its alias defaultComputeResourcePool), for the
/// refusal when no such pool exists ("" = the cluster's default).
struct named_pool {
  std::string field;
  std::string name;
};

/// What a create or an edit may set; empty members keep what is there.
struct workspace_fields {
  std::optional<std::string> name;
  /// {agentUid, agentGid, agentUser, agentGroup}, checked, nulls dropped.
  std::optional<nlohmann::json> agent_user_group;
  /// The user's checkpoint storage document (an object).
  std::optional<nlohmann::json> checkpoint_storage;
  std::optional<named_pool> default_compute_pool;
  std::optional<named_pool> default_aux_pool;
  /// {cluster: namespace ("" = the cluster's default)}, which the API
  /// checked against the clusters it knows.
  std::map<std::string, std::string> namespaces;
};

/// POST /workspaces. Reply {id}.
struct workspace_create {
  workspace_fields fields; // name always set
  std::string username;
};

/// PATCH /workspaces/{id}. Reply {id}.
struct workspace_edit {
  int64_t id = 0;
  workspace_fields fields;
  std::string username;
};

/// POST /workspaces/{id}/archive and unarchive.
struct workspace_archive {
  int64_t id = 0;
  bool archived = false;
  std::string username;
};

/// DELETE /workspaces/{id}: its projects and ended experiments go with it,
/// its live tasks are killed. Reply {completed: true}.
struct workspace_delete {
  int64_t id = 0;
  std::string username;
};

/// POST /workspaces/{id}/pin and unpin, for `username` alone.
struct workspace_pin {
  int64_t id = 0;
  bool pinned = false;
  std::string username;
};

/// The workspace's namespace bindings: `set` bound, `unbind` back to the
/// default namespace (each must be bound). Reply {id}.
struct workspace_namespaces {
  int64_t id = 0;
  std::map<std::string, std::string> set;
  std::vector<std::string> unbind;
  std::string username;
};

// -- projects and experiments ---------------------------------------------

struct project_fields {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<std::string> key;
};

/// POST /workspaces/{workspace_id}/projects. Reply {id}.
struct project_create {
  int64_t workspace_id = 0;
  project_fields fields; // name always set
  std::string username;
};

/// PATCH /projects/{id}. Reply {id}.
struct project_edit {
  int64_t id = 0;
  project_fields fields;
  std::string username;
};

struct project_note {
  std::string name;
  std::string contents;
};

/// A project's notes: `add` appended, or (no `add`) replaced by `notes`.
/// Reply {notes}.
struct project_notes {
  int64_t id = 0;
  std::optional<project_note> add;
  std::vector<project_note> notes;
  std::string username;
};

/// POST /projects/{id}/archive and unarchive.
struct project_archive {
  int64_t id = 0;
  bool archived = false;
  std::string username;
};

/// DELETE /projects/{id} (refused while it has experiments). Reply
/// {completed: true}.
struct project_delete {
  int64_t id = 0;
  std::string username;
};

/// POST /projects/{project_id}/move: with its experiments.
struct project_move {
  int64_t project_id = 0;
  int64_t destination_workspace_id = 0;
  std::string username;
};

/// POST /experiments/{experiment_id}/move, and moving runs.
struct experiment_move {
  int64_t experiment_id = 0;
  int64_t destination_project_id = 0;
  std::string username;
};

// -- templates and pool bindings --------------------------------------------

/// POST /templates (conflict if the name is taken).
struct template_create {
  std::string name;
  int64_t workspace_id = 1;
  nlohmann::json config; // the user's template document (an object)
  std::string username;
};

/// PUT/PATCH /templates/{name} (not_found if there is none).
struct template_set {
  std::string name;
  nlohmann::json config;
  std::string username;
};

/// DELETE /templates/{name}.
struct template_delete {
  std::string name;
  std::string username;
};

enum class binding_mode { add, remove, replace };

/// A pool's workspace bindings changed; `default_pools` are the cluster's
/// default pools (from the master's config), which no workspace may be
/// bound to.
struct pool_bind {
  std::string pool;
  binding_mode mode = binding_mode::add;
  std::vector<int64_t> workspace_ids;
  std::vector<std::string> workspace_names;
  std::vector<std::string> default_pools;
  std::string username;
};

// -- the model registry -----------------------------------------------------

/// A model's workspace, by name or by id (the name wins).
struct model_fields {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<nlohmann::json> metadata; // the user's document (an object)
  std::optional<std::vector<std::string>> labels;
  std::optional<std::string> notes;
  std::optional<std::string> workspace_name;
  std::optional<int64_t> workspace_id;
};

/// POST /models. Reply {id}.
struct model_create {
  model_fields fields; // name always set, non-empty
  std::string username;
};

/// `model`: the model's name, or its id in decimal (as the SDK names it).
struct model_edit {
  std::string model;
  model_fields fields;
  std::string username;
};

struct model_archive {
  std::string model;
  bool archived = false;
  std::string username;
};

struct model_delete {
  std::string model;
  std::string username;
};

struct version_fields {
  std::optional<std::string> name;
  std::optional<std::string> comment;
  std::optional<std::string> notes;
  std::optional<nlohmann::json> metadata;
  std::optional<std::vector<std::string>> labels;
};

/// Reply {id, version}.
struct version_register {
  std::string model;
  std::string checkpoint_uuid;
  version_fields fields;
  std::string username;
};

/// Reply {id, version}.
struct version_edit {
  std::string model;
  int64_t version = 0;
  version_fields fields;
  std::string username;
};

struct version_delete {
  std::string model;
  int64_t version = 0;
  std::string username;
};

// -- config policies (core/config_policies.hpp) -----------------------------

/// `workspace_id` 0: the global scope. `policies`: the user's document
/// {invariant_config, constraints} (any JSON: the decider checks it
/// against the global scope's). Reply {configPolicies}.
struct set_config_policies {
  int64_t workspace_id = 0;
  std::string workload_type; // EXPERIMENT or NTSC
  nlohmann::json policies;
  std::string username;
};

struct delete_config_policies {
  int64_t workspace_id = 0;
  std::string workload_type;
  std::string username;
};

} // namespace det
