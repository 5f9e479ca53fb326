// apply() for the user's records: workspaces, projects, experiments moving
// between projects, config templates, pool bindings, registered models and
// their versions. A *_saved of a new id must take the next one; names are
// unique (workspaces and models cluster-wide, projects per workspace).
// Workspace 1 and project 1 are never deleted.

#include "state/apply_detail.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace det::state::detail {

namespace {

std::string id_name(const char* what, int64_t id) {
  return std::string{what} + " " + std::to_string(id);
}

} // namespace

verdict apply_one(cluster_state& s, const workspace_saved& ev) {
  auto named = workspace_named(s, ev.name);
  if (named && named->id != ev.workspace_id)
    return "a workspace named " + quote(ev.name) + " exists";
  auto old = find_workspace(s, ev.workspace_id);
  if (!old && ev.workspace_id <= s.last_workspace_id)
    return id_name("workspace", ev.workspace_id) + " was given out before";
  workspace_info w = old ? *old : workspace_info{};
  if (!old) {
    w.id = ev.workspace_id;
    w.username = ev.username;
    w.created_at_us = ev.at_us;
    s.last_workspace_id = ev.workspace_id;
  }
  w.name = ev.name;
  w.archived = ev.archived;
  w.agent_user_group = ev.agent_user_group;
  w.checkpoint_storage = ev.checkpoint_storage;
  w.default_compute_pool = ev.default_compute_pool;
  w.default_aux_pool = ev.default_aux_pool;
  s.workspaces[w.id] = std::move(w);
  return {};
}

verdict apply_one(cluster_state& s, const workspace_deleted& ev) {
  if (ev.workspace_id == default_workspace_id)
    return "the default workspace cannot be deleted";
  if (s.workspaces.count(ev.workspace_id) == 0)
    return "unknown " + id_name("workspace", ev.workspace_id);
  if (!projects_of(s, ev.workspace_id).empty())
    return id_name("workspace", ev.workspace_id) + " still has projects";
  s.workspaces.erase(ev.workspace_id);
  for (auto i = s.templates.begin(); i != s.templates.end();)
    i = i->second.workspace_id == ev.workspace_id ? s.templates.erase(i)
                                                  : std::next(i);
  for (auto i = s.pool_bindings.begin(); i != s.pool_bindings.end();) {
    auto& ids = i->second.workspace_ids;
    ids.erase(std::remove(ids.begin(), ids.end(), ev.workspace_id), ids.end());
    i = ids.empty() ? s.pool_bindings.erase(i) : std::next(i);
  }
  for (auto& [id, m] : s.models)
    if (m.workspace_id == ev.workspace_id)
      m.workspace_id = default_workspace_id;
  return {};
}

verdict apply_one(cluster_state& s, const workspace_pinned& ev) {
  auto w = s.workspaces.find(ev.workspace_id);
  if (w == s.workspaces.end()) {
    // The default workspace exists before anyone saved it.
    auto d = find_workspace(s, ev.workspace_id);
    if (!d)
      return "unknown " + id_name("workspace", ev.workspace_id);
    s.last_workspace_id = std::max(s.last_workspace_id, d->id);
    w = s.workspaces.emplace(d->id, *d).first;
  }
  auto& by = w->second.pinned_by;
  auto at = std::lower_bound(by.begin(), by.end(), ev.username);
  bool there = at != by.end() && *at == ev.username;
  if (ev.pinned && !there)
    by.insert(at, ev.username);
  else if (!ev.pinned && there)
    by.erase(at);
  return {};
}

verdict apply_one(cluster_state& s, const project_notes_set& ev) {
  auto p = s.projects.find(ev.project_id);
  if (p == s.projects.end()) {
    // The default project exists before anyone saved it.
    auto d = find_project(s, ev.project_id);
    if (!d)
      return "unknown " + id_name("project", ev.project_id);
    s.last_project_id = std::max(s.last_project_id, d->id);
    p = s.projects.emplace(d->id, *d).first;
  }
  p->second.notes = ev.notes;
  return {};
}

verdict apply_one(cluster_state& s, const project_saved& ev) {
  if (!find_workspace(s, ev.workspace_id))
    return "unknown " + id_name("workspace", ev.workspace_id);
  auto named = project_named(s, ev.workspace_id, ev.name);
  if (named && named->id != ev.project_id)
    return "a project named " + quote(ev.name) + " exists in "
           + id_name("workspace", ev.workspace_id);
  auto old = find_project(s, ev.project_id);
  if (!old && ev.project_id <= s.last_project_id)
    return id_name("project", ev.project_id) + " was given out before";
  project_info p = old ? *old : project_info{};
  if (!old) {
    p.id = ev.project_id;
    p.username = ev.username;
    p.created_at_us = ev.at_us;
    s.last_project_id = ev.project_id;
  }
  p.workspace_id = ev.workspace_id;
  p.name = ev.name;
  p.description = ev.description;
  p.key = ev.key;
  p.archived = ev.archived;
  s.projects[p.id] = std::move(p);
  return {};
}

verdict apply_one(cluster_state& s, const project_deleted& ev) {
  if (ev.project_id == default_project_id)
    return "the default project cannot be deleted";
  if (s.projects.count(ev.project_id) == 0)
    return "unknown " + id_name("project", ev.project_id);
  if (experiments_in_project(s, ev.project_id) != 0)
    return id_name("project", ev.project_id) + " still has experiments";
  s.projects.erase(ev.project_id);
  return {};
}

verdict apply_one(cluster_state& s, const experiment_moved& ev) {
  auto e = s.experiments.find(ev.experiment_id);
  if (e == s.experiments.end())
    return "unknown " + id_name("experiment", ev.experiment_id);
  if (!find_project(s, ev.project_id))
    return "unknown " + id_name("project", ev.project_id);
  e->second.project_id = ev.project_id;
  return {};
}

verdict apply_one(cluster_state& s, const template_saved& ev) {
  if (!find_workspace(s, ev.workspace_id))
    return "unknown " + id_name("workspace", ev.workspace_id);
  s.templates[ev.name] = template_info{ev.name, ev.workspace_id, ev.config};
  return {};
}

verdict apply_one(cluster_state& s, const template_deleted& ev) {
  if (s.templates.erase(ev.name) == 0)
    return "unknown template " + quote(ev.name);
  return {};
}

verdict apply_one(cluster_state& s, const workspace_namespace_bound& ev) {
  if (!ev.ns.empty())
    if (auto problem = util::dns_label_problem(ev.ns); !problem.empty())
      return "namespace " + quote(ev.ns) + " " + problem;
  auto known = find_workspace(s, ev.workspace_id);
  if (!known)
    return "unknown " + id_name("workspace", ev.workspace_id);
  // The default workspace exists without an event: it is kept from now on.
  auto w = s.workspaces.emplace(ev.workspace_id, *known).first;
  if (ev.ns.empty()) {
    w->second.namespaces.erase(ev.cluster_name);
    return {};
  }
  w->second.namespaces[ev.cluster_name] = ev.ns;
  return {};
}

verdict apply_one(cluster_state& s, const config_policies_set& ev) {
  auto* scope = &s.global_config_policies;
  if (ev.workspace_id != 0) {
    auto known = find_workspace(s, ev.workspace_id);
    if (!known)
      return "unknown " + id_name("workspace", ev.workspace_id);
    // The default workspace exists without an event: it is kept from now on.
    scope = &s.workspaces.emplace(ev.workspace_id, *known)
                 .first->second.config_policies;
  }
  if (ev.invariant_config.is_null() && ev.constraints.is_null()) {
    scope->erase(ev.workload_type);
    return {};
  }
  (*scope)[ev.workload_type] =
      config_policy_info{ev.workload_type, ev.invariant_config, ev.constraints,
                         ev.username, ev.at_us};
  return {};
}

verdict apply_one(cluster_state& s, const pool_bindings_set& ev) {
  if (s.pools.count(ev.pool) == 0)
    return "unknown pool " + quote(ev.pool);
  for (auto id : ev.workspace_ids)
    if (!find_workspace(s, id))
      return "unknown " + id_name("workspace", id);
  if (ev.workspace_ids.empty())
    s.pool_bindings.erase(ev.pool);
  else
    s.pool_bindings[ev.pool] = pool_binding_info{ev.pool, ev.workspace_ids};
  return {};
}

verdict apply_one(cluster_state& s, const model_saved& ev) {
  auto named = model_named(s, ev.name);
  if (named != nullptr && named->id != ev.model_id)
    return "a model named " + quote(ev.name) + " exists";
  if (!find_workspace(s, ev.workspace_id))
    return "unknown " + id_name("workspace", ev.workspace_id);
  auto i = s.models.find(ev.model_id);
  if (i == s.models.end()) {
    if (ev.model_id <= s.last_model_id)
      return id_name("model", ev.model_id) + " was given out before";
    model_info m;
    m.id = ev.model_id;
    m.username = ev.username;
    m.created_at_us = ev.at_us;
    s.last_model_id = ev.model_id;
    i = s.models.emplace(m.id, std::move(m)).first;
  }
  auto& m = i->second;
  m.name = ev.name;
  m.description = ev.description;
  m.workspace_id = ev.workspace_id;
  m.archived = ev.archived;
  m.metadata = ev.metadata;
  m.labels = ev.labels;
  m.notes = ev.notes;
  m.updated_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const model_deleted& ev) {
  if (s.models.erase(ev.model_id) == 0)
    return "unknown " + id_name("model", ev.model_id);
  return {};
}

verdict apply_one(cluster_state& s, const model_version_saved& ev) {
  auto i = s.models.find(ev.model_id);
  if (i == s.models.end())
    return "unknown " + id_name("model", ev.model_id);
  auto& m = i->second;
  auto known = std::find_if(m.versions.begin(), m.versions.end(),
                            [&ev](const model_version_info& v) {
                              return v.version == ev.model_version;
                            });
  if (known == m.versions.end()) {
    if (ev.model_version != m.last_version + 1)
      return "version " + std::to_string(ev.model_version) + " of "
             + id_name("model", ev.model_id) + " is not its next";
    if (!checkpoint_exists(s, ev.checkpoint_uuid))
      return "unknown checkpoint " + quote(ev.checkpoint_uuid);
    model_version_info v;
    v.version = ev.model_version;
    v.checkpoint_uuid = ev.checkpoint_uuid;
    v.username = ev.username;
    v.created_at_us = ev.at_us;
    m.versions.push_back(std::move(v));
    m.last_version = ev.model_version;
    known = std::prev(m.versions.end());
  } else if (known->checkpoint_uuid != ev.checkpoint_uuid) {
    return "a model version's checkpoint does not change";
  }
  known->name = ev.name;
  known->comment = ev.comment;
  known->notes = ev.notes;
  known->metadata = ev.metadata;
  known->labels = ev.labels;
  known->updated_at_us = ev.at_us;
  m.updated_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const model_version_deleted& ev) {
  auto i = s.models.find(ev.model_id);
  if (i == s.models.end())
    return "unknown " + id_name("model", ev.model_id);
  auto& vs = i->second.versions;
  auto n = vs.size();
  vs.erase(std::remove_if(vs.begin(), vs.end(),
                          [&ev](const model_version_info& v) {
                            return v.version == ev.model_version;
                          }),
           vs.end());
  if (vs.size() == n)
    return "unknown version " + std::to_string(ev.model_version) + " of "
           + id_name("model", ev.model_id);
  return {};
}

} // namespace det::state::detail
