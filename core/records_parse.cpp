// The record commands parsed from their JSON bodies (core/records_parse.hpp).

#include "core/records_parse.hpp"

#include "core/config_policies.hpp"
#include "core/record_args.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "util/text.hpp"

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;

/// Text `key` when present and not null.
std::optional<std::string> maybe_text(const json& a, const char* key,
                                      const util::text_rules& rules) {
  if (!has(a, key))
    return std::nullopt;
  return text(a, key, "", rules);
}

std::optional<json> maybe_object(const json& a, const char* key) {
  if (!has(a, key))
    return std::nullopt;
  return object(a, key, json::object());
}

std::optional<std::vector<std::string>> maybe_labels(const json& a,
                                                     const char* key) {
  if (!has(a, key))
    return std::nullopt;
  return labels(a, key, {});
}

/// {agentUid, agentGid, agentUser, agentGroup}: ids non-negative integers,
/// names one short line.
std::optional<json> agent_user_group(const json& a) {
  auto g = maybe_object(a, "agentUserGroup");
  if (!g)
    return std::nullopt;
  json out = json::object();
  for (const auto& [k, v] : g->items()) {
    auto field = "agentUserGroup." + k;
    if (v.is_null())
      continue;
    if (k == "agentUid" || k == "agentGid") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0)
        refuse(errc::invalid_argument,
               field + ": expected a non-negative integer");
    } else if (k == "agentUser" || k == "agentGroup") {
      if (!v.is_string()
          || !util::text_problem(v.get<std::string>(), name_rules).empty())
        refuse(errc::invalid_argument, field + ": expected a name");
    } else {
      refuse(errc::invalid_argument, field + ": not a field");
    }
    out[k] = v;
  }
  return out;
}

/// The pool of `keys` named last (a later spelling wins, as before).
std::optional<named_pool> pool_field(const json& a,
                                     std::initializer_list<const char*> keys) {
  std::optional<named_pool> out;
  for (const char* key : keys)
    if (auto pool = maybe_text(a, key, {255, false, true}))
      out = named_pool{key, *pool};
  return out;
}

/// `key` of the arguments: {cluster name: namespace}, a namespace ""
/// meaning the cluster's default one. The API checked that the cluster is
/// this master's and the namespace exists; this checks what the log keeps.
std::map<std::string, std::string> namespace_map(const json& a,
                                                 const char* key) {
  std::map<std::string, std::string> out;
  if (!has(a, key))
    return out;
  const auto& m = a[key];
  if (!m.is_object() || m.size() > 64)
    refuse(errc::invalid_argument,
           std::string{key} + ": expected {cluster name: namespace}");
  for (const auto& [cluster, ns] : m.items()) {
    if (auto why = util::text_problem(cluster, {255, false, true});
        !why.empty())
      refuse(errc::invalid_argument,
             std::string{key} + ": a cluster name " + why);
    auto field = std::string{key} + "." + cluster;
    if (!ns.is_string())
      refuse(errc::invalid_argument, field + ": expected a namespace");
    auto n = ns.get<std::string>();
    if (auto why = util::dns_label_problem(n); !n.empty() && !why.empty())
      refuse(errc::invalid_argument,
             field + ": '" + util::fit_text(n, {64, false, true}) + "' " + why);
    out[cluster] = n;
  }
  return out;
}

workspace_fields workspace_fields_of(const json& a) {
  workspace_fields f;
  f.name = maybe_text(a, "name", name_rules);
  f.agent_user_group = agent_user_group(a);
  f.checkpoint_storage = maybe_object(a, "checkpointStorageConfig");
  f.default_compute_pool =
      pool_field(a, {"defaultComputePool", "defaultComputeResourcePool"});
  f.default_aux_pool =
      pool_field(a, {"defaultAuxPool", "defaultAuxResourcePool"});
  f.namespaces = namespace_map(a, "namespaces");
  return f;
}

void require(const json& a, const char* key) {
  if (!has(a, key))
    refuse(errc::invalid_argument, std::string{key} + ": is required");
}

project_fields project_fields_of(const json& a) {
  return {maybe_text(a, "name", name_rules),
          maybe_text(a, "description", prose_rules),
          maybe_text(a, "key", {255, false, true})};
}

project_note note_of(const json& n, const std::string& at) {
  if (!n.is_object())
    refuse(errc::invalid_argument, at + ": expected an object");
  project_note out{text(n, "name", "", name_rules),
                   text(n, "contents", "", notes_rules)};
  if (out.name.empty())
    refuse(errc::invalid_argument, at + ".name: is required");
  return out;
}

std::string template_name(const json& a) {
  auto name = text(a, "name", "", name_rules);
  if (name.empty())
    refuse(errc::invalid_argument, "name: is required");
  return name;
}

json template_config(const json& a) {
  require(a, "config");
  return object(a, "config", json::object());
}

model_fields model_fields_of(const json& a) {
  model_fields f;
  f.name = maybe_text(a, "name", name_rules);
  f.description = maybe_text(a, "description", prose_rules);
  f.metadata = maybe_object(a, "metadata");
  f.labels = maybe_labels(a, "labels");
  f.notes = maybe_text(a, "notes", notes_rules);
  if (has(a, "workspaceName"))
    f.workspace_name = text(a, "workspaceName", "", name_rules);
  else if (has(a, "workspaceId"))
    f.workspace_id = id_arg(a, "workspaceId");
  return f;
}

std::string model_of(const json& a) {
  return text(a, "model", "", name_rules);
}

version_fields version_fields_of(const json& a) {
  version_fields f;
  f.name = maybe_text(a, "name", name_rules);
  f.comment = maybe_text(a, "comment", prose_rules);
  f.notes = maybe_text(a, "notes", notes_rules);
  f.metadata = maybe_object(a, "metadata");
  f.labels = maybe_labels(a, "labels");
  return f;
}

std::string workload_type_of(const json& a) {
  auto type = text(a, "workloadType", "", name_rules);
  if (type.empty())
    refuse(errc::invalid_argument, "workloadType: no workload type specified");
  if (!valid_workload_type(type))
    refuse(errc::invalid_argument, "workloadType: invalid workload type '"
                                       + type + "' (EXPERIMENT or NTSC)");
  return type;
}

/// 0 (the global scope) when absent, null or 0.
int64_t policy_scope_of(const json& a) {
  if (has(a, "workspaceId") && a["workspaceId"] != 0)
    return id_arg(a, "workspaceId");
  return 0;
}

} // namespace

// -- workspaces ---------------------------------------------------------------

caf::expected<workspace_create> parse_workspace_create(const record_body& b) {
  return parsed<workspace_create>(b, [](const json& a) {
    require(a, "name");
    return workspace_create{workspace_fields_of(a), {}};
  });
}

caf::expected<workspace_edit> parse_workspace_edit(const record_body& b) {
  return parsed<workspace_edit>(b, [](const json& a) {
    auto id = id_arg(a, "id");
    return workspace_edit{id, workspace_fields_of(a), {}};
  });
}

caf::expected<workspace_archive> parse_workspace_archive(const record_body& b) {
  return parsed<workspace_archive>(b, [](const json& a) {
    auto id = id_arg(a, "id");
    return workspace_archive{id, flag(a, "archived"), {}};
  });
}

caf::expected<workspace_delete> parse_workspace_delete(const record_body& b) {
  return parsed<workspace_delete>(b, [](const json& a) {
    return workspace_delete{id_arg(a, "id"), {}};
  });
}

caf::expected<workspace_pin> parse_workspace_pin(const record_body& b) {
  return parsed<workspace_pin>(b, [](const json& a) {
    auto id = id_arg(a, "id");
    return workspace_pin{id, flag(a, "pinned"), {}};
  });
}

caf::expected<workspace_namespaces>
parse_workspace_namespaces(const record_body& b) {
  return parsed<workspace_namespaces>(b, [](const json& a) {
    workspace_namespaces c;
    c.id = id_arg(a, "id");
    c.set = namespace_map(a, "set");
    c.unbind = labels(a, "delete", {}, {255, false, true});
    return c;
  });
}

// -- projects and experiments ---------------------------------------------

caf::expected<project_create> parse_project_create(const record_body& b) {
  return parsed<project_create>(b, [](const json& a) {
    auto workspace = id_arg(a, "workspaceId");
    require(a, "name");
    return project_create{workspace, project_fields_of(a), {}};
  });
}

caf::expected<project_edit> parse_project_edit(const record_body& b) {
  return parsed<project_edit>(b, [](const json& a) {
    auto id = id_arg(a, "id");
    return project_edit{id, project_fields_of(a), {}};
  });
}

caf::expected<project_notes> parse_project_notes(const record_body& b) {
  return parsed<project_notes>(b, [](const json& a) {
    project_notes c;
    c.id = id_arg(a, "id");
    if (auto add = a.find("add"); add != a.end()) {
      c.add = note_of(*add, "note");
      return c;
    }
    auto list = a.find("notes");
    if (list == a.end() || !list->is_array())
      refuse(errc::invalid_argument, "notes: expected an array");
    for (size_t i = 0; i < list->size(); ++i)
      c.notes.push_back(
          note_of((*list)[i], "notes[" + std::to_string(i) + "]"));
    return c;
  });
}

caf::expected<project_archive> parse_project_archive(const record_body& b) {
  return parsed<project_archive>(b, [](const json& a) {
    auto id = id_arg(a, "id");
    return project_archive{id, flag(a, "archived"), {}};
  });
}

caf::expected<project_delete> parse_project_delete(const record_body& b) {
  return parsed<project_delete>(b, [](const json& a) {
    return project_delete{id_arg(a, "id"), {}};
  });
}

caf::expected<project_move> parse_project_move(const record_body& b) {
  return parsed<project_move>(b, [](const json& a) {
    auto project = id_arg(a, "projectId");
    return project_move{project, id_arg(a, "destinationWorkspaceId"), {}};
  });
}

caf::expected<experiment_move> parse_experiment_move(const record_body& b) {
  return parsed<experiment_move>(b, [](const json& a) {
    auto experiment = id_arg(a, "experimentId");
    return experiment_move{experiment, id_arg(a, "destinationProjectId"), {}};
  });
}

// -- templates and pool bindings --------------------------------------------

caf::expected<template_create> parse_template_create(const record_body& b) {
  return parsed<template_create>(b, [](const json& a) {
    auto name = template_name(a);
    auto config = template_config(a);
    return template_create{name, id_arg(a, "workspaceId", 1), config, {}};
  });
}

caf::expected<template_set> parse_template_set(const record_body& b) {
  return parsed<template_set>(b, [](const json& a) {
    auto name = template_name(a);
    return template_set{name, template_config(a), {}};
  });
}

caf::expected<template_delete> parse_template_delete(const record_body& b) {
  return parsed<template_delete>(b, [](const json& a) {
    return template_delete{template_name(a), {}};
  });
}

caf::expected<pool_bind> parse_pool_bind(const record_body& b) {
  return parsed<pool_bind>(b, [](const json& a) {
    pool_bind c;
    c.pool = text(a, "pool", "", name_rules);
    auto mode = text(a, "mode", "", name_rules);
    if (mode == "add")
      c.mode = binding_mode::add;
    else if (mode == "remove")
      c.mode = binding_mode::remove;
    else if (mode == "replace")
      c.mode = binding_mode::replace;
    else
      refuse(errc::invalid_argument, "mode: expected add, remove or replace");
    if (has(a, "workspaceIds")) {
      const auto& ids = a["workspaceIds"];
      if (!ids.is_array() || ids.size() > 10000)
        refuse(errc::invalid_argument, "workspaceIds: expected a list of ids");
      for (const auto& x : ids) {
        if (!x.is_number_integer())
          refuse(errc::invalid_argument, "workspaceIds[]: expected an integer");
        c.workspace_ids.push_back(x.get<int64_t>());
      }
    }
    c.workspace_names = labels(a, "workspaceNames", {});
    c.default_pools = labels(a, "defaultPools", {});
    return c;
  });
}

// -- the model registry -----------------------------------------------------

caf::expected<model_create> parse_model_create(const record_body& b) {
  return parsed<model_create>(b, [](const json& a) {
    require(a, "name");
    auto f = model_fields_of(a);
    if (f.name->empty())
      refuse(errc::invalid_argument, "name: must not be empty");
    return model_create{std::move(f), {}};
  });
}

caf::expected<model_edit> parse_model_edit(const record_body& b) {
  return parsed<model_edit>(b, [](const json& a) {
    auto model = model_of(a);
    return model_edit{model, model_fields_of(a), {}};
  });
}

caf::expected<model_archive> parse_model_archive(const record_body& b) {
  return parsed<model_archive>(b, [](const json& a) {
    auto model = model_of(a);
    return model_archive{model, flag(a, "archived"), {}};
  });
}

caf::expected<model_delete> parse_model_delete(const record_body& b) {
  return parsed<model_delete>(b, [](const json& a) {
    return model_delete{model_of(a), {}};
  });
}

caf::expected<version_register> parse_version_register(const record_body& b) {
  return parsed<version_register>(b, [](const json& a) {
    auto model = model_of(a);
    auto uuid = text(a, "checkpointUuid", "", name_rules);
    if (uuid.empty())
      refuse(errc::invalid_argument, "checkpointUuid: is required");
    return version_register{model, uuid, version_fields_of(a), {}};
  });
}

caf::expected<version_edit> parse_version_edit(const record_body& b) {
  return parsed<version_edit>(b, [](const json& a) {
    auto model = model_of(a);
    auto version = id_arg(a, "version");
    return version_edit{model, version, version_fields_of(a), {}};
  });
}

caf::expected<version_delete> parse_version_delete(const record_body& b) {
  return parsed<version_delete>(b, [](const json& a) {
    auto model = model_of(a);
    return version_delete{model, id_arg(a, "version"), {}};
  });
}

// -- config policies --------------------------------------------------------

caf::expected<set_config_policies>
parse_set_config_policies(const record_body& b) {
  return parsed<set_config_policies>(b, [](const json& a) {
    auto type = workload_type_of(a);
    auto scope = policy_scope_of(a);
    return set_config_policies{scope, type, a.value("policies", json()), {}};
  });
}

caf::expected<delete_config_policies>
parse_delete_config_policies(const record_body& b) {
  return parsed<delete_config_policies>(b, [](const json& a) {
    auto type = workload_type_of(a);
    return delete_config_policies{policy_scope_of(a), type, {}};
  });
}

} // namespace det
