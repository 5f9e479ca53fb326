#pragma once

// The user's records beside experiments: workspaces, projects, config
// templates, resource-pool bindings and registered models with their
// versions. Plain data like state/model.hpp; only apply_records.cpp
// changes them. Workspace 1 and project 1 ("Uncategorized") exist in every
// state without an event (state/records_queries.hpp serves them); the maps
// hold what events made or changed.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace det::state {

/// The config policies of one scope for one workload type
/// (config_policies_set): null members are not set.
struct config_policy_info {
  std::string workload_type;
  nlohmann::json invariant_config;
  nlohmann::json constraints;
  std::string username;
  int64_t updated_at_us = 0;
};

struct workspace_info {
  int64_t id = 0;
  std::string name;
  bool archived = false;
  nlohmann::json agent_user_group = nlohmann::json::object();
  nlohmann::json checkpoint_storage = nlohmann::json::object();
  std::string default_compute_pool;
  std::string default_aux_pool;
  /// Who created it.
  std::string username;
  int64_t created_at_us = 0;
  /// Kubernetes cluster name -> the namespace its trials run in there
  /// (`det workspace bindings`); absent: the default namespace.
  std::map<std::string, std::string> namespaces;
  /// Workload type ("EXPERIMENT", "NTSC") -> the workspace's config
  /// policies for it; absent: none.
  std::map<std::string, config_policy_info> config_policies;
  /// The users who pinned it (workspace_pinned), sorted, each once.
  std::vector<std::string> pinned_by;
};

struct project_info {
  int64_t id = 0;
  int64_t workspace_id = 0;
  std::string name;
  std::string description;
  std::string key;
  bool archived = false;
  std::string username;
  int64_t created_at_us = 0;
  /// [{"name", "contents"}] (project_notes_set).
  nlohmann::json notes = nlohmann::json::array();
};

struct template_info {
  std::string name;
  int64_t workspace_id = 1;
  nlohmann::json config = nlohmann::json::object();
};

/// The workspaces a pool is bound to (none: open to all).
struct pool_binding_info {
  std::string pool;
  std::vector<int64_t> workspace_ids;
};

struct model_version_info {
  int64_t version = 0;
  std::string checkpoint_uuid;
  std::string name;
  std::string comment;
  std::string notes;
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<std::string> labels;
  std::string username;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
};

struct model_info {
  int64_t id = 0;
  std::string name;
  std::string description;
  int64_t workspace_id = 1;
  bool archived = false;
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<std::string> labels;
  std::string notes;
  std::string username;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  /// Versions by number, oldest first; numbers are never given again.
  std::vector<model_version_info> versions;
  int64_t last_version = 0;
};

bool operator==(const config_policy_info& a, const config_policy_info& b);
bool operator==(const workspace_info& a, const workspace_info& b);
bool operator==(const project_info& a, const project_info& b);
bool operator==(const template_info& a, const template_info& b);
bool operator==(const pool_binding_info& a, const pool_binding_info& b);
bool operator==(const model_version_info& a, const model_version_info& b);
bool operator==(const model_info& a, const model_info& b);

} // namespace det::state
