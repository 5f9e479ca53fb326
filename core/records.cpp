#include "core/records.hpp"

#include "core/config_policies.hpp"
#include "core/experiment_deletion.hpp"
#include "core/record_args.hpp"
#include "core/record_models.hpp"
#include "core/runs.hpp"
#include "core/webhooks.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

/// {agentUid, agentGid, agentUser, agentGroup}: ids non-negative integers,
/// names one short line.
json agent_user_group(const json& a, const json& fallback) {
  auto g = object(a, "agentUserGroup", fallback);
  json out = json::object();
  for (const auto& [k, v] : g.items()) {
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

state::workspace_info workspace_or_refuse(const cluster_state& s, int64_t id) {
  auto w = state::find_workspace(s, id);
  if (!w)
    refuse(errc::not_found, "workspace " + std::to_string(id) + " not found");
  return *w;
}

state::project_info project_or_refuse(const cluster_state& s, int64_t id) {
  auto p = state::find_project(s, id);
  if (!p)
    refuse(errc::not_found, "project " + std::to_string(id) + " not found");
  return *p;
}

void unique_workspace_name(const cluster_state& s, const std::string& name,
                           int64_t self) {
  auto w = state::workspace_named(s, name);
  if (w && w->id != self)
    refuse(errc::conflict, "workspace '" + name + "' already exists");
}

workspace_saved to_event(const state::workspace_info& w) {
  return workspace_saved{w.id,
                         w.name,
                         w.archived,
                         w.agent_user_group,
                         w.checkpoint_storage,
                         w.default_compute_pool,
                         w.default_aux_pool,
                         {},
                         0};
}

project_saved to_event(const state::project_info& p) {
  return project_saved{p.id,  p.workspace_id, p.name, p.description,
                       p.key, p.archived,     {},     0};
}

void refuse_default(int64_t id, const char* what, const char* verb) {
  if (id == 1)
    refuse(errc::invalid_argument, std::string{"the default "} + what
                                       + " (Uncategorized) cannot be " + verb);
}

using handler = std::function<void(const cluster_state&, const record_command&,
                                   int64_t, record_outcome&)>;

// -- workspaces and projects
// ---------------------------------------------------

void workspace_fields(const cluster_state& s, const json& a,
                      state::workspace_info& w) {
  w.name = text(a, "name", w.name, name_rules);
  w.agent_user_group = agent_user_group(a, w.agent_user_group);
  w.checkpoint_storage =
      object(a, "checkpointStorageConfig", w.checkpoint_storage);
  for (auto [key, member] :
       {std::pair{"defaultComputePool", &w.default_compute_pool},
        std::pair{"defaultComputeResourcePool", &w.default_compute_pool},
        std::pair{"defaultAuxPool", &w.default_aux_pool},
        std::pair{"defaultAuxResourcePool", &w.default_aux_pool}}) {
    auto pool = text(a, key, *member, {255, false, true});
    if (pool != *member && !pool.empty() && s.pools.count(pool) == 0)
      refuse(errc::invalid_argument,
             std::string{key} + ": resource pool '" + pool + "' not found");
    *member = pool;
  }
}

// -- workspace-namespace bindings ---------------------------------------------

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

/// The events that make `w`'s bindings those of `m` (each cluster named).
void bind_namespaces(const state::workspace_info& w,
                     const std::map<std::string, std::string>& m,
                     const record_command& c, int64_t now, record_outcome& o) {
  for (const auto& [cluster, ns] : m) {
    auto i = w.namespaces.find(cluster);
    if ((i == w.namespaces.end() ? std::string{} : i->second) != ns)
      o.events.push_back(
          stamped(workspace_namespace_bound{w.id, cluster, ns, {}, 0}, c, now));
  }
}

/// {id, set: {cluster: namespace}} or {id, delete: [cluster, ...]}: a
/// cluster to delete must have a binding (the default one is no binding).
void workspace_namespaces(const cluster_state& s, const record_command& c,
                          int64_t now, record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "id"));
  auto m = namespace_map(c.args, "set");
  for (const auto& cluster : labels(c.args, "delete", {}, {255, false, true})) {
    if (w.namespaces.count(cluster) == 0)
      refuse(errc::invalid_argument,
             "workspace '" + w.name + "' has no namespace binding for cluster '"
                 + cluster
                 + "': it uses the default namespace, which cannot be "
                   "unbound");
    m[cluster] = "";
  }
  bind_namespaces(w, m, c, now, o);
  o.reply = {{"id", w.id}};
}

void workspace_create(const cluster_state& s, const record_command& c,
                      int64_t now, record_outcome& o) {
  state::workspace_info w;
  if (!has(c.args, "name"))
    refuse(errc::invalid_argument, "name: is required");
  workspace_fields(s, c.args, w);
  unique_workspace_name(s, w.name, 0);
  w.id = s.last_workspace_id + 1;
  auto namespaces = namespace_map(c.args, "namespaces");
  o.events.push_back(stamped(to_event(w), c, now));
  // Pinned for its creator, as upstream's.
  if (!c.username.empty())
    o.events.push_back(
        stamped(workspace_pinned{w.id, true, c.username, 0}, c, now));
  bind_namespaces(w, namespaces, c, now, o);
  o.reply = {{"id", w.id}};
}

void workspace_pin(const cluster_state& s, const record_command& c, int64_t now,
                   record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "id"));
  auto pinned = flag(c.args, "pinned");
  const auto& by = w.pinned_by;
  if (std::binary_search(by.begin(), by.end(), c.username) == pinned)
    return;
  o.events.push_back(
      stamped(workspace_pinned{w.id, pinned, c.username, 0}, c, now));
}

void workspace_edit(const cluster_state& s, const record_command& c,
                    int64_t now, record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "id"));
  if (w.archived)
    refuse(errc::invalid_argument,
           "workspace '" + w.name + "' is archived: unarchive it first");
  auto before = w;
  workspace_fields(s, c.args, w);
  if (w.name != before.name) {
    refuse_default(w.id, "workspace", "renamed");
    unique_workspace_name(s, w.name, w.id);
  }
  auto namespaces = namespace_map(c.args, "namespaces");
  o.reply = {{"id", w.id}};
  if (!(w == before))
    o.events.push_back(stamped(to_event(w), c, now));
  bind_namespaces(before, namespaces, c, now, o);
}

void workspace_archive(const cluster_state& s, const record_command& c,
                       int64_t now, record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "id"));
  auto archived = flag(c.args, "archived");
  refuse_default(w.id, "workspace", "archived");
  if (w.archived == archived)
    return;
  w.archived = archived;
  o.events.push_back(stamped(to_event(w), c, now));
}

void workspace_delete(const cluster_state& s, const record_command& c,
                      int64_t now, record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "id"));
  refuse_default(w.id, "workspace", "deleted");
  // As upstream: its projects go with it, and their experiments (each as
  // `det experiment delete` would, its checkpoints to the collector); all
  // of them must have ended.
  for (const auto& p : state::projects_of(s, w.id)) {
    for (const auto& [id, e] : s.experiments) {
      if (e.project_id != p.id)
        continue;
      auto del = delete_experiment_events(s, id, c.username, now,
                                          deletion_mode::at_once);
      if (del.code != errc::none)
        refuse(del.code, "workspace '" + w.name + "', project '" + p.name
                             + "': " + del.why);
      for (auto& ev : del.events)
        o.events.push_back(std::move(ev));
    }
    o.events.push_back(stamped(project_deleted{p.id, {}, 0}, c, now));
  }
  o.events.push_back(stamped(workspace_deleted{w.id, {}, 0}, c, now));
  o.reply = {{"completed", true}};
}

void unique_project_name(const cluster_state& s, int64_t workspace,
                         const std::string& name, int64_t self) {
  auto p = state::project_named(s, workspace, name);
  if (p && p->id != self)
    refuse(errc::conflict, "project '" + name + "' already exists in workspace "
                               + std::to_string(workspace));
}

/// Refuses to change project `p` when it or its workspace is archived.
void refuse_archived_project(const cluster_state& s,
                             const state::project_info& p, const char* verb) {
  if (p.archived)
    refuse(errc::invalid_argument,
           "project '" + p.name + "' is archived: it cannot be " + verb);
  if (workspace_or_refuse(s, p.workspace_id).archived)
    refuse(errc::invalid_argument, "project '" + p.name
                                       + "': its workspace is archived: it "
                                         "cannot be "
                                       + verb);
}

void project_fields(const json& a, state::project_info& p) {
  p.name = text(a, "name", p.name, name_rules);
  p.description = text(a, "description", p.description, prose_rules);
  p.key = text(a, "key", p.key, {255, false, true});
}

void project_create(const cluster_state& s, const record_command& c,
                    int64_t now, record_outcome& o) {
  auto w = workspace_or_refuse(s, id_arg(c.args, "workspaceId"));
  if (w.archived)
    refuse(errc::invalid_argument,
           "workspaceId: workspace '" + w.name + "' is archived");
  if (w.id == state::default_workspace_id)
    refuse(errc::invalid_argument,
           "workspaceId: no project can be created in the default workspace "
           "(Uncategorized)");
  if (!has(c.args, "name"))
    refuse(errc::invalid_argument, "name: is required");
  state::project_info p;
  project_fields(c.args, p);
  p.workspace_id = w.id;
  unique_project_name(s, w.id, p.name, 0);
  p.id = s.last_project_id + 1;
  o.events.push_back(stamped(to_event(p), c, now));
  o.reply = {{"id", p.id}};
}

void project_edit(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  auto p = project_or_refuse(s, id_arg(c.args, "id"));
  refuse_archived_project(s, p, "edited");
  auto before = p;
  project_fields(c.args, p);
  if (p.name != before.name) {
    refuse_default(p.id, "project", "renamed");
    unique_project_name(s, p.workspace_id, p.name, p.id);
  }
  o.reply = {{"id", p.id}};
  if (!(p == before))
    o.events.push_back(stamped(to_event(p), c, now));
}

/// {id, notes: [{name, contents}]} replaces the notes; {id, add: {name,
/// contents}} appends one. Replies {notes}.
void project_notes(const cluster_state& s, const record_command& c, int64_t now,
                   record_outcome& o) {
  constexpr size_t max_notes = 100;
  auto p = project_or_refuse(s, id_arg(c.args, "id"));
  auto checked = [](const json& n, const std::string& at) {
    if (!n.is_object())
      refuse(errc::invalid_argument, at + ": expected an object");
    json out{{"name", text(n, "name", "", name_rules)},
             {"contents", text(n, "contents", "", notes_rules)}};
    if (out["name"].get_ref<const std::string&>().empty())
      refuse(errc::invalid_argument, at + ".name: is required");
    return out;
  };
  json notes = json::array();
  if (auto add = c.args.find("add"); add != c.args.end()) {
    notes = p.notes;
    notes.push_back(checked(*add, "note"));
  } else {
    auto list = c.args.find("notes");
    if (list == c.args.end() || !list->is_array())
      refuse(errc::invalid_argument, "notes: expected an array");
    for (size_t i = 0; i < list->size(); ++i)
      notes.push_back(checked((*list)[i], "notes[" + std::to_string(i) + "]"));
  }
  if (notes.size() > max_notes)
    refuse(errc::invalid_argument,
           "notes: at most " + std::to_string(max_notes) + " per project");
  o.reply = {{"notes", notes}};
  if (notes != p.notes)
    o.events.push_back(stamped(project_notes_set{p.id, notes, {}, 0}, c, now));
}

void project_archive(const cluster_state& s, const record_command& c,
                     int64_t now, record_outcome& o) {
  auto p = project_or_refuse(s, id_arg(c.args, "id"));
  auto archived = flag(c.args, "archived");
  refuse_default(p.id, "project", archived ? "archived" : "unarchived");
  if (workspace_or_refuse(s, p.workspace_id).archived)
    refuse(errc::invalid_argument,
           "project " + std::to_string(p.id) + ": its workspace is archived");
  if (p.archived == archived)
    return;
  p.archived = archived;
  o.events.push_back(stamped(to_event(p), c, now));
}

/// {projectId, destinationWorkspaceId}: the project and its experiments
/// go to another workspace (upstream's MoveProject).
void project_move(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  auto p = project_or_refuse(s, id_arg(c.args, "projectId"));
  refuse_default(p.id, "project", "moved");
  refuse_archived_project(s, p, "moved");
  auto w = workspace_or_refuse(s, id_arg(c.args, "destinationWorkspaceId"));
  if (w.id == state::default_workspace_id)
    refuse(errc::invalid_argument,
           "destinationWorkspaceId: no project can be moved into the default "
           "workspace (Uncategorized)");
  if (w.archived)
    refuse(errc::invalid_argument,
           "destinationWorkspaceId: workspace '" + w.name + "' is archived");
  if (w.id == p.workspace_id)
    return;
  unique_project_name(s, w.id, p.name, p.id);
  p.workspace_id = w.id;
  o.events.push_back(stamped(to_event(p), c, now));
}

void project_delete(const cluster_state& s, const record_command& c,
                    int64_t now, record_outcome& o) {
  auto p = project_or_refuse(s, id_arg(c.args, "id"));
  refuse_default(p.id, "project", "deleted");
  if (auto n = state::experiments_in_project(s, p.id); n != 0)
    refuse(errc::invalid_argument,
           "project '" + p.name + "' still has " + std::to_string(n)
               + " experiment(s): move or delete them first");
  o.events.push_back(stamped(project_deleted{p.id, {}, 0}, c, now));
  o.reply = {{"completed", true}};
}

void experiment_move(const cluster_state& s, const record_command& c,
                     int64_t now, record_outcome& o) {
  auto id = id_arg(c.args, "experimentId");
  auto e = state::find_experiment(s, id);
  if (e == nullptr)
    refuse(errc::not_found, "experiment " + std::to_string(id) + " not found");
  auto p = project_or_refuse(s, id_arg(c.args, "destinationProjectId"));
  if (p.archived || workspace_or_refuse(s, p.workspace_id).archived)
    refuse(errc::invalid_argument,
           "destinationProjectId: project '" + p.name + "' is archived");
  if (e->project_id == p.id)
    return;
  // Nor out of an archived project (or one in an archived workspace), as
  // upstream.
  if (auto from = state::find_project(s, e->project_id); from) {
    auto w = state::find_workspace(s, from->workspace_id);
    if (from->archived || (w && w->archived))
      refuse(errc::invalid_argument,
             "experimentId: its project '" + from->name + "' is archived");
  }
  o.events.push_back(stamped(experiment_moved{id, p.id, {}, 0}, c, now));
}

// -- templates and pool bindings
// -------------------------------------------------

std::string template_name(const json& a) {
  auto name = text(a, "name", "", name_rules);
  if (name.empty())
    refuse(errc::invalid_argument, "name: is required");
  return name;
}

json template_config(const json& a) {
  if (!has(a, "config"))
    refuse(errc::invalid_argument, "config: is required");
  return object(a, "config", json::object());
}

void template_create(const cluster_state& s, const record_command& c,
                     int64_t now, record_outcome& o) {
  auto name = template_name(c.args);
  auto config = template_config(c.args);
  auto wid = id_arg(c.args, "workspaceId", 1);
  auto w = workspace_or_refuse(s, wid);
  if (w.archived)
    refuse(errc::invalid_argument,
           "workspaceId: workspace '" + w.name + "' is archived");
  if (s.templates.count(name) != 0)
    refuse(errc::conflict, "template '" + name + "' already exists");
  o.events.push_back(
      stamped(template_saved{name, wid, std::move(config), {}, 0}, c, now));
}

void template_set(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  auto name = template_name(c.args);
  auto config = template_config(c.args);
  auto i = s.templates.find(name);
  if (i == s.templates.end())
    refuse(errc::not_found, "template '" + name + "' not found");
  if (i->second.config == config)
    return;
  o.events.push_back(stamped(
      template_saved{name, i->second.workspace_id, std::move(config), {}, 0}, c,
      now));
}

void template_delete(const cluster_state& s, const record_command& c,
                     int64_t now, record_outcome& o) {
  auto name = template_name(c.args);
  if (s.templates.count(name) == 0)
    refuse(errc::not_found, "template '" + name + "' not found");
  o.events.push_back(stamped(template_deleted{name, {}, 0}, c, now));
}

void pool_bind(const cluster_state& s, const record_command& c, int64_t now,
               record_outcome& o) {
  auto pool = text(c.args, "pool", "", name_rules);
  if (s.pools.count(pool) == 0)
    refuse(errc::not_found, "resource pool '" + pool + "' not found");
  auto mode = text(c.args, "mode", "", name_rules);
  std::set<int64_t> named;
  if (has(c.args, "workspaceIds")) {
    const auto& ids = c.args["workspaceIds"];
    if (!ids.is_array() || ids.size() > 10000)
      refuse(errc::invalid_argument, "workspaceIds: expected a list of ids");
    for (const auto& x : ids) {
      if (!x.is_number_integer())
        refuse(errc::invalid_argument, "workspaceIds[]: expected an integer");
      named.insert(workspace_or_refuse(s, x.get<int64_t>()).id);
    }
  }
  for (const auto& n : labels(c.args, "workspaceNames", {})) {
    auto w = state::workspace_named(s, n);
    if (!w)
      refuse(errc::not_found, "workspace '" + n + "' not found");
    named.insert(w->id);
  }
  std::set<int64_t> now_bound;
  if (auto i = s.pool_bindings.find(pool); i != s.pool_bindings.end())
    now_bound.insert(i->second.workspace_ids.begin(),
                     i->second.workspace_ids.end());
  auto next = now_bound;
  if ((mode == "add" || mode == "replace") && !named.empty())
    for (const auto& d : labels(c.args, "defaultPools", {}))
      if (d == pool)
        refuse(errc::invalid_argument, "default resource pool " + pool
                                           + " cannot be bound to any "
                                             "workspace");
  if (mode == "add")
    next.insert(named.begin(), named.end());
  else if (mode == "remove")
    for (auto id : named)
      next.erase(id);
  else if (mode == "replace")
    next = named;
  else
    refuse(errc::invalid_argument, "mode: expected add, remove or replace");
  if (next == now_bound)
    return;
  o.events.push_back(stamped(
      pool_bindings_set{pool, {next.begin(), next.end()}, {}, 0}, c, now));
}

const std::map<std::string, handler>& handlers() {
  static const std::map<std::string, handler> table{
      {"workspace.create", workspace_create},
      {"workspace.edit", workspace_edit},
      {"workspace.archive", workspace_archive},
      {"workspace.delete", workspace_delete},
      {"workspace.pin", workspace_pin},
      {"workspace.namespaces", workspace_namespaces},
      {"project.create", project_create},
      {"project.notes", project_notes},
      {"project.edit", project_edit},
      {"project.archive", project_archive},
      {"project.delete", project_delete},
      {"project.move", project_move},
      {"experiment.move", experiment_move},
      {"template.create", template_create},
      {"template.set", template_set},
      {"template.delete", template_delete},
      {"pool.bind", pool_bind},
  };
  return table;
}

} // namespace

record_outcome decide_record(const cluster_state& s, const record_command& c,
                             int64_t now_us) {
  if (c.op.rfind("webhook.", 0) == 0)
    return decide_webhook(s, c, now_us);
  if (c.op.rfind("config_policies.", 0) == 0)
    return decide_config_policies(s, c, now_us);
  if (c.op.rfind("runs.", 0) == 0 || c.op.rfind("trial.", 0) == 0)
    return decide_runs(s, c, now_us);
  if (c.op.rfind("model.", 0) == 0 || c.op.rfind("version.", 0) == 0)
    return decide_models(s, c, now_us);
  return run_command(handlers(), s, c, now_us);
}

} // namespace det
