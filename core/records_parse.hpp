#pragma once

// A request's JSON body (upstream's spelling: workspaceId, agentUserGroup,
// ...) turned into its record command (core/commands_records.hpp), at the
// boundary: the API calls these before it sends the command. Pure code,
// any thread.
//
// Each checks the shape of every field it reads and fails with
// errc::invalid_argument naming the field as the API spells it ("name: is
// required", "agentUserGroup.agentUid: expected a non-negative integer",
// "workspaceIds[]: expected an integer"); text is checked for UTF-8,
// control characters and length (util/text.hpp). A body that is not an
// object fails too. Nothing here reads the state: whether a record exists,
// a name is free or a pool is known the core decides.
//
// The username is left empty; the caller sets it.

#include "core/commands_records.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

namespace det {

using record_body = nlohmann::json;

/// {name, agentUserGroup, checkpointStorageConfig, defaultComputePool
/// (or defaultComputeResourcePool), defaultAuxPool (or
/// defaultAuxResourcePool), namespaces}.
caf::expected<workspace_create> parse_workspace_create(const record_body& b);
/// {id, ...workspace_create's, each optional}.
caf::expected<workspace_edit> parse_workspace_edit(const record_body& b);
/// {id, archived}.
caf::expected<workspace_archive> parse_workspace_archive(const record_body& b);
/// {id}.
caf::expected<workspace_delete> parse_workspace_delete(const record_body& b);
/// {id, pinned}.
caf::expected<workspace_pin> parse_workspace_pin(const record_body& b);
/// {id, set: {cluster: namespace}, delete: [cluster]}.
caf::expected<workspace_namespaces>
parse_workspace_namespaces(const record_body& b);

/// {workspaceId, name, description, key}.
caf::expected<project_create> parse_project_create(const record_body& b);
/// {id, name, description, key}.
caf::expected<project_edit> parse_project_edit(const record_body& b);
/// {id, add: {name, contents}} or {id, notes: [{name, contents}]}.
caf::expected<project_notes> parse_project_notes(const record_body& b);
/// {id, archived}.
caf::expected<project_archive> parse_project_archive(const record_body& b);
/// {id}.
caf::expected<project_delete> parse_project_delete(const record_body& b);
/// {projectId, destinationWorkspaceId}.
caf::expected<project_move> parse_project_move(const record_body& b);
/// {experimentId, destinationProjectId}.
caf::expected<experiment_move> parse_experiment_move(const record_body& b);

/// {name, workspaceId (default 1), config}.
caf::expected<template_create> parse_template_create(const record_body& b);
/// {name, config}.
caf::expected<template_set> parse_template_set(const record_body& b);
/// {name}.
caf::expected<template_delete> parse_template_delete(const record_body& b);
/// {pool, mode: add|remove|replace, workspaceIds, workspaceNames,
/// defaultPools}.
caf::expected<pool_bind> parse_pool_bind(const record_body& b);

/// {name, description, metadata, labels, notes, workspaceId or
/// workspaceName}.
caf::expected<model_create> parse_model_create(const record_body& b);
/// {model, ...model_create's, each optional}.
caf::expected<model_edit> parse_model_edit(const record_body& b);
/// {model, archived}.
caf::expected<model_archive> parse_model_archive(const record_body& b);
/// {model}.
caf::expected<model_delete> parse_model_delete(const record_body& b);
/// {model, checkpointUuid, name, comment, metadata, labels, notes}.
caf::expected<version_register> parse_version_register(const record_body& b);
/// {model, version, name, comment, metadata, labels, notes}.
caf::expected<version_edit> parse_version_edit(const record_body& b);
/// {model, version}.
caf::expected<version_delete> parse_version_delete(const record_body& b);

/// {workspaceId (0 or absent: global), workloadType, policies}.
caf::expected<set_config_policies>
parse_set_config_policies(const record_body& b);
/// {workspaceId, workloadType}.
caf::expected<delete_config_policies>
parse_delete_config_policies(const record_body& b);

} // namespace det
