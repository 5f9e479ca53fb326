#include "core/records.hpp"

#include "core/experiment_deletion.hpp"
#include "core/record_args.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

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

/// Record `r` (a workspace or project) archived or not as `c` asks;
/// nothing written when it already is.
template <class Record, class C>
void archive_as(Record r, const C& c, int64_t now, record_outcome& o) {
  if (r.archived == c.archived)
    return;
  r.archived = c.archived;
  o.events.push_back(stamped(to_event(r), c, now));
}

void refuse_default(int64_t id, const char* what, const char* verb) {
  if (id == 1)
    refuse(errc::invalid_argument, std::string{"the default "} + what
                                       + " (Uncategorized) cannot be " + verb);
}

// -- workspaces ---------------------------------------------------------------

/// `f` over `w`; a pool it names must exist, unless it is the one `w` has.
void apply_fields(const cluster_state& s, const workspace_fields& f,
                  state::workspace_info& w) {
  set_if(w.name, f.name);
  set_if(w.agent_user_group, f.agent_user_group);
  set_if(w.checkpoint_storage, f.checkpoint_storage);
  for (auto [pool, member] :
       {std::pair{&f.default_compute_pool, &w.default_compute_pool},
        std::pair{&f.default_aux_pool, &w.default_aux_pool}}) {
    if (!*pool)
      continue;
    const auto& name = (*pool)->name;
    if (name != *member && !name.empty() && s.pools.count(name) == 0)
      refuse(errc::invalid_argument,
             (*pool)->field + ": resource pool '" + name + "' not found");
    *member = name;
  }
}

/// The events that make `w`'s bindings those of `m` (each cluster named).
template <class C>
void bind_namespaces(const state::workspace_info& w,
                     const std::map<std::string, std::string>& m, const C& c,
                     int64_t now, record_outcome& o) {
  for (const auto& [cluster, ns] : m) {
    auto i = w.namespaces.find(cluster);
    if ((i == w.namespaces.end() ? std::string{} : i->second) != ns)
      o.events.push_back(
          stamped(workspace_namespace_bound{w.id, cluster, ns, {}, 0}, c, now));
  }
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

void apply_fields(const project_fields& f, state::project_info& p) {
  set_if(p.name, f.name);
  set_if(p.description, f.description);
  set_if(p.key, f.key);
}

json notes_json(const std::vector<project_note>& notes) {
  json out = json::array();
  for (const auto& n : notes)
    out.push_back({{"name", n.name}, {"contents", n.contents}});
  return out;
}

} // namespace

record_outcome decide_record(const cluster_state& s,
                             const workspace_namespaces& c, int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.id);
    auto m = c.set;
    for (const auto& cluster : c.unbind) {
      if (w.namespaces.count(cluster) == 0)
        refuse(errc::invalid_argument,
               "workspace '" + w.name
                   + "' has no namespace binding for cluster '" + cluster
                   + "': it uses the default namespace, which cannot be "
                     "unbound");
      m[cluster] = "";
    }
    bind_namespaces(w, m, c, now, o);
    o.reply = {{"id", w.id}};
  });
}

record_outcome decide_record(const cluster_state& s, const workspace_create& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    state::workspace_info w;
    apply_fields(s, c.fields, w);
    unique_workspace_name(s, w.name, 0);
    w.id = s.last_workspace_id + 1;
    o.events.push_back(stamped(to_event(w), c, now));
    // Pinned for its creator, as upstream's.
    if (!c.username.empty())
      o.events.push_back(
          stamped(workspace_pinned{w.id, true, c.username, 0}, c, now));
    bind_namespaces(w, c.fields.namespaces, c, now, o);
    o.reply = {{"id", w.id}};
  });
}

record_outcome decide_record(const cluster_state& s, const workspace_pin& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.id);
    const auto& by = w.pinned_by;
    if (std::binary_search(by.begin(), by.end(), c.username) == c.pinned)
      return;
    o.events.push_back(
        stamped(workspace_pinned{w.id, c.pinned, c.username, 0}, c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const workspace_edit& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.id);
    if (w.archived)
      refuse(errc::invalid_argument,
             "workspace '" + w.name + "' is archived: unarchive it first");
    auto before = w;
    apply_fields(s, c.fields, w);
    if (w.name != before.name) {
      refuse_default(w.id, "workspace", "renamed");
      unique_workspace_name(s, w.name, w.id);
    }
    o.reply = {{"id", w.id}};
    if (!(w == before))
      o.events.push_back(stamped(to_event(w), c, now));
    bind_namespaces(before, c.fields.namespaces, c, now, o);
  });
}

record_outcome decide_record(const cluster_state& s, const workspace_archive& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.id);
    refuse_default(w.id, "workspace", "archived");
    archive_as(w, c, now, o);
  });
}

record_outcome decide_record(const cluster_state& s, const workspace_delete& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.id);
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
  });
}

// -- projects and experiments ---------------------------------------------

record_outcome decide_record(const cluster_state& s, const project_create& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.workspace_id);
    if (w.archived)
      refuse(errc::invalid_argument,
             "workspaceId: workspace '" + w.name + "' is archived");
    if (w.id == state::default_workspace_id)
      refuse(errc::invalid_argument,
             "workspaceId: no project can be created in the default "
             "workspace (Uncategorized)");
    state::project_info p;
    apply_fields(c.fields, p);
    p.workspace_id = w.id;
    unique_project_name(s, w.id, p.name, 0);
    p.id = s.last_project_id + 1;
    o.events.push_back(stamped(to_event(p), c, now));
    o.reply = {{"id", p.id}};
  });
}

record_outcome decide_record(const cluster_state& s, const project_edit& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto p = project_or_refuse(s, c.id);
    refuse_archived_project(s, p, "edited");
    auto before = p;
    apply_fields(c.fields, p);
    if (p.name != before.name) {
      refuse_default(p.id, "project", "renamed");
      unique_project_name(s, p.workspace_id, p.name, p.id);
    }
    o.reply = {{"id", p.id}};
    if (!(p == before))
      o.events.push_back(stamped(to_event(p), c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const project_notes& c,
                             int64_t now) {
  constexpr size_t max_notes = 100;
  return decided([&](record_outcome& o) {
    auto p = project_or_refuse(s, c.id);
    json notes = notes_json(c.notes);
    if (c.add) {
      notes = p.notes;
      notes.push_back(notes_json({*c.add}).front());
    }
    if (notes.size() > max_notes)
      refuse(errc::invalid_argument,
             "notes: at most " + std::to_string(max_notes) + " per project");
    o.reply = {{"notes", notes}};
    if (notes != p.notes)
      o.events.push_back(
          stamped(project_notes_set{p.id, notes, {}, 0}, c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const project_archive& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto p = project_or_refuse(s, c.id);
    refuse_default(p.id, "project", c.archived ? "archived" : "unarchived");
    if (workspace_or_refuse(s, p.workspace_id).archived)
      refuse(errc::invalid_argument,
             "project " + std::to_string(p.id) + ": its workspace is archived");
    archive_as(p, c, now, o);
  });
}

record_outcome decide_record(const cluster_state& s, const project_move& c,
                             int64_t now) {
  // The project and its experiments go to another workspace (upstream's
  // MoveProject).
  return decided([&](record_outcome& o) {
    auto p = project_or_refuse(s, c.project_id);
    refuse_default(p.id, "project", "moved");
    refuse_archived_project(s, p, "moved");
    auto w = workspace_or_refuse(s, c.destination_workspace_id);
    if (w.id == state::default_workspace_id)
      refuse(errc::invalid_argument,
             "destinationWorkspaceId: no project can be moved into the "
             "default workspace (Uncategorized)");
    if (w.archived)
      refuse(errc::invalid_argument,
             "destinationWorkspaceId: workspace '" + w.name + "' is archived");
    if (w.id == p.workspace_id)
      return;
    unique_project_name(s, w.id, p.name, p.id);
    p.workspace_id = w.id;
    o.events.push_back(stamped(to_event(p), c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const project_delete& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto p = project_or_refuse(s, c.id);
    refuse_default(p.id, "project", "deleted");
    if (auto n = state::experiments_in_project(s, p.id); n != 0)
      refuse(errc::invalid_argument,
             "project '" + p.name + "' still has " + std::to_string(n)
                 + " experiment(s): move or delete them first");
    o.events.push_back(stamped(project_deleted{p.id, {}, 0}, c, now));
    o.reply = {{"completed", true}};
  });
}

record_outcome decide_record(const cluster_state& s, const experiment_move& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto id = c.experiment_id;
    auto e = state::find_experiment(s, id);
    if (e == nullptr)
      refuse(errc::not_found,
             "experiment " + std::to_string(id) + " not found");
    auto p = project_or_refuse(s, c.destination_project_id);
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
  });
}

// -- templates and pool bindings --------------------------------------------

record_outcome decide_record(const cluster_state& s, const template_create& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto w = workspace_or_refuse(s, c.workspace_id);
    if (w.archived)
      refuse(errc::invalid_argument,
             "workspaceId: workspace '" + w.name + "' is archived");
    if (s.templates.count(c.name) != 0)
      refuse(errc::conflict, "template '" + c.name + "' already exists");
    o.events.push_back(stamped(
        template_saved{c.name, c.workspace_id, c.config, {}, 0}, c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const template_set& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto i = s.templates.find(c.name);
    if (i == s.templates.end())
      refuse(errc::not_found, "template '" + c.name + "' not found");
    if (i->second.config == c.config)
      return;
    o.events.push_back(
        stamped(template_saved{c.name, i->second.workspace_id, c.config, {}, 0},
                c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const template_delete& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    if (s.templates.count(c.name) == 0)
      refuse(errc::not_found, "template '" + c.name + "' not found");
    o.events.push_back(stamped(template_deleted{c.name, {}, 0}, c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const pool_bind& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    if (s.pools.count(c.pool) == 0)
      refuse(errc::not_found, "resource pool '" + c.pool + "' not found");
    std::set<int64_t> named;
    for (auto id : c.workspace_ids)
      named.insert(workspace_or_refuse(s, id).id);
    for (const auto& n : c.workspace_names) {
      auto w = state::workspace_named(s, n);
      if (!w)
        refuse(errc::not_found, "workspace '" + n + "' not found");
      named.insert(w->id);
    }
    std::set<int64_t> bound;
    if (auto i = s.pool_bindings.find(c.pool); i != s.pool_bindings.end())
      bound.insert(i->second.workspace_ids.begin(),
                   i->second.workspace_ids.end());
    auto next = bound;
    if (c.mode != binding_mode::remove && !named.empty())
      for (const auto& d : c.default_pools)
        if (d == c.pool)
          refuse(errc::invalid_argument, "default resource pool " + c.pool
                                             + " cannot be bound to any "
                                               "workspace");
    if (c.mode == binding_mode::add)
      next.insert(named.begin(), named.end());
    else if (c.mode == binding_mode::remove)
      for (auto id : named)
        next.erase(id);
    else
      next = named;
    if (next == bound)
      return;
    o.events.push_back(stamped(
        pool_bindings_set{c.pool, {next.begin(), next.end()}, {}, 0}, c, now));
  });
}

} // namespace det
