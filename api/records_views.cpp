#include "api/records_views.hpp"

#include "api/route_util.hpp"
#include "api/views.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace det::api {

using json = nlohmann::json;

namespace {

int64_t user_id(const state::cluster_state& s, const std::string& name) {
  auto u = s.users.find(name);
  return u == s.users.end() ? 1 : u->second.id;
}

/// Names in the order upstream's database sorts them: without regard to
/// case ("_TestWS" before "Uncategorized"), then byte by byte.
bool name_before(const std::string& a, const std::string& b) {
  auto la = util::to_lower(a);
  auto lb = util::to_lower(b);
  return la != lb ? la < lb : a < b;
}

bool equal_nocase(const std::string& a, const std::string& b) {
  return util::to_lower(a) == util::to_lower(b);
}

bool contains_nocase(const std::string& hay, const std::string& needle) {
  return util::to_lower(hay).find(util::to_lower(needle)) != std::string::npos;
}

} // namespace

bool pinned_by(const state::workspace_info& w, const std::string& user) {
  return std::binary_search(w.pinned_by.begin(), w.pinned_by.end(), user);
}

json workspace_json(const state::cluster_state& s,
                    const state::workspace_info& w, const std::string& viewer) {
  auto projects = state::projects_of(s, w.id);
  int64_t experiments = 0;
  for (const auto& p : projects)
    experiments += state::experiments_in_project(s, p.id);
  json j{{"id", w.id},
         {"name", w.name},
         {"archived", w.archived},
         {"errorMessage", ""},
         {"immutable", w.id == state::default_workspace_id},
         {"numExperiments", experiments},
         {"numProjects", projects.size()},
         {"pinned", pinned_by(w, viewer)},
         {"state", "WORKSPACE_STATE_UNSPECIFIED"},
         {"userId", user_id(s, w.username)},
         {"username", w.username}};
  if (!w.agent_user_group.empty())
    j["agentUserGroup"] = w.agent_user_group;
  if (!w.checkpoint_storage.empty())
    j["checkpointStorageConfig"] = w.checkpoint_storage;
  if (!w.default_compute_pool.empty())
    j["defaultComputePool"] = w.default_compute_pool;
  if (!w.default_aux_pool.empty())
    j["defaultAuxPool"] = w.default_aux_pool;
  return j;
}

json project_json(const state::cluster_state& s, const state::project_info& p) {
  auto w = state::find_workspace(s, p.workspace_id);
  int64_t runs = 0;
  int64_t last_start = 0;
  for (const auto& [id, e] : s.experiments)
    if (e.project_id == p.id) {
      runs += static_cast<int64_t>(state::listed_trial_ids(s, e).size());
      last_start = std::max(last_start, e.submitted_at_us);
    }
  json j{
      {"id", p.id},
      {"name", p.name},
      {"description", p.description},
      {"key", p.key},
      // As upstream: a project of an archived workspace shows archived.
      {"archived", p.archived || (w && w->archived)},
      {"errorMessage", ""},
      {"immutable", p.id == state::default_project_id},
      {"notes", p.notes},
      {"numActiveExperiments", state::active_experiments_in_project(s, p.id)},
      {"numExperiments", state::experiments_in_project(s, p.id)},
      {"numRuns", runs},
      {"state", "WORKSPACE_STATE_UNSPECIFIED"},
      {"userId", user_id(s, p.username)},
      {"username", p.username},
      {"workspaceId", p.workspace_id},
      {"workspaceName", w ? w->name : std::string{}}};
  if (last_start > 0)
    j["lastExperimentStartedAt"] = rfc3339(last_start);
  return j;
}

json template_json(const state::template_info& t) {
  return {
      {"name", t.name}, {"workspaceId", t.workspace_id}, {"config", t.config}};
}

json model_json(const state::cluster_state& s, const state::model_info& m) {
  return {{"id", m.id},
          {"name", m.name},
          {"description", m.description},
          {"archived", m.archived},
          {"creationTime", rfc3339(m.created_at_us)},
          {"lastUpdatedTime", rfc3339(m.updated_at_us)},
          {"metadata", m.metadata},
          {"labels", m.labels},
          {"notes", m.notes},
          {"numVersions", m.versions.size()},
          {"userId", user_id(s, m.username)},
          {"username", m.username},
          {"workspaceId", m.workspace_id}};
}

json model_version_json(const state::cluster_state& s,
                        const state::model_info& m,
                        const state::model_version_info& v) {
  auto c = checkpoint_response(s, v.checkpoint_uuid);
  // A version's id is unique across models: the model's id and number.
  return {{"id", m.id * 1000000 + v.version},
          {"version", v.version},
          {"model", model_json(s, m)},
          {"checkpoint", c.is_null() ? json(nullptr) : c["checkpoint"]},
          {"creationTime", rfc3339(v.created_at_us)},
          {"lastUpdatedTime", rfc3339(v.updated_at_us)},
          {"name", v.name},
          {"comment", v.comment},
          {"notes", v.notes},
          {"metadata", v.metadata},
          {"labels", v.labels},
          {"userId", user_id(s, v.username)},
          {"username", v.username}};
}

json workspaces_response(const state::cluster_state& s,
                         const workspace_filter& f, page p) {
  auto all = state::all_workspaces(s);
  if (f.by_name)
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return name_before(a.name, b.name);
    });
  if (f.descending)
    std::reverse(all.begin(), all.end());
  json list = json::array();
  for (const auto& w : all) {
    if (f.name_exact && w.name != *f.name_exact)
      continue;
    if (f.name_nocase && !equal_nocase(w.name, *f.name_nocase))
      continue;
    if (f.archived && *f.archived != w.archived)
      continue;
    if (f.pinned && *f.pinned != pinned_by(w, f.viewer))
      continue;
    list.push_back(workspace_json(s, w, f.viewer));
  }
  return paginate("workspaces", std::move(list), p);
}

json workspace_response(const state::cluster_state& s, int64_t id,
                        const std::string& viewer) {
  auto w = state::find_workspace(s, id);
  if (!w)
    return nullptr;
  return {{"workspace", workspace_json(s, *w, viewer)}};
}

json workspace_projects_response(const state::cluster_state& s, int64_t id,
                                 const std::optional<std::string>& name,
                                 std::optional<bool> archived, page p,
                                 bool by_name, bool descending) {
  if (!state::find_workspace(s, id))
    return nullptr;
  json list = json::array();
  auto projects = state::projects_of(s, id);
  if (by_name)
    std::stable_sort(projects.begin(), projects.end(),
                     [](const auto& a, const auto& b) {
                       return name_before(a.name, b.name);
                     });
  if (descending)
    std::reverse(projects.begin(), projects.end());
  for (const auto& pr : projects) {
    if (name && !equal_nocase(pr.name, *name))
      continue;
    if (archived && *archived != pr.archived)
      continue;
    list.push_back(project_json(s, pr));
  }
  return paginate("projects", std::move(list), p);
}

json project_response(const state::cluster_state& s, int64_t id) {
  auto pr = state::find_project(s, id);
  if (!pr)
    return nullptr;
  return {{"project", project_json(s, *pr)}};
}

json templates_response(const state::cluster_state& s,
                        const std::string& name_contains,
                        const std::vector<int64_t>& workspace_ids, page p) {
  json list = json::array();
  for (const auto& [name, t] : s.templates) {
    if (!name_contains.empty() && !contains_nocase(name, name_contains))
      continue;
    if (!workspace_ids.empty()
        && std::find(workspace_ids.begin(), workspace_ids.end(), t.workspace_id)
               == workspace_ids.end())
      continue;
    list.push_back(template_json(t));
  }
  return paginate("templates", std::move(list), p);
}

json template_response(const state::cluster_state& s, const std::string& name) {
  auto i = s.templates.find(name);
  if (i == s.templates.end())
    return nullptr;
  return {{"template", template_json(i->second)}};
}

const state::model_info* model_by_identifier(const state::cluster_state& s,
                                             const std::string& name) {
  if (auto m = state::model_named(s, name))
    return m;
  auto id = positive_id(name);
  if (!id)
    return nullptr;
  auto i = s.models.find(*id);
  return i == s.models.end() ? nullptr : &i->second;
}

json models_response(const state::cluster_state& s, const model_filter& f,
                     page p) {
  std::vector<const state::model_info*> picked;
  for (const auto& entry : s.models) {
    const auto& m = entry.second; // named: a lambda below captures it
    if (f.id && *f.id != m.id)
      continue;
    if (f.name && !contains_nocase(m.name, *f.name))
      continue;
    if (f.archived && *f.archived != m.archived)
      continue;
    if (!f.workspace_ids.empty()
        && std::find(f.workspace_ids.begin(), f.workspace_ids.end(),
                     m.workspace_id)
               == f.workspace_ids.end())
      continue;
    if (!f.workspace_names.empty()) {
      auto w = state::find_workspace(s, m.workspace_id);
      if (!w
          || std::find(f.workspace_names.begin(), f.workspace_names.end(),
                       w->name)
                 == f.workspace_names.end())
        continue;
    }
    if (!f.users.empty()
        && std::find(f.users.begin(), f.users.end(), m.username)
               == f.users.end())
      continue;
    bool labelled = std::all_of(
        f.labels.begin(), f.labels.end(), [&m](const std::string& l) {
          return std::find(m.labels.begin(), m.labels.end(), l)
                 != m.labels.end();
        });
    if (labelled)
      picked.push_back(&m);
  }
  auto key = [&f](const state::model_info* m) -> std::string {
    if (f.sort_by == "SORT_BY_NAME")
      return m->name;
    if (f.sort_by == "SORT_BY_DESCRIPTION")
      return m->description;
    if (f.sort_by == "SORT_BY_CREATION_TIME")
      return rfc3339(m->created_at_us);
    if (f.sort_by == "SORT_BY_LAST_UPDATED_TIME")
      return rfc3339(m->updated_at_us);
    if (f.sort_by == "SORT_BY_NUM_VERSIONS")
      return std::to_string(1000000000 + m->versions.size());
    return {};
  };
  std::stable_sort(picked.begin(), picked.end(),
                   [&key](auto a, auto b) { return key(a) < key(b); });
  if (f.descending)
    std::reverse(picked.begin(), picked.end());
  json list = json::array();
  for (auto m : picked)
    list.push_back(model_json(s, *m));
  return paginate("models", std::move(list), p);
}

json model_response(const state::cluster_state& s, const std::string& name) {
  auto m = model_by_identifier(s, name);
  if (m == nullptr)
    return nullptr;
  return {{"model", model_json(s, *m)}};
}

json model_versions_response(const state::cluster_state& s,
                             const std::string& name, bool descending, page p) {
  auto m = model_by_identifier(s, name);
  if (m == nullptr)
    return nullptr;
  json list = json::array();
  for (const auto& v : m->versions)
    list.push_back(model_version_json(s, *m, v));
  if (descending)
    std::reverse(list.begin(), list.end());
  auto out = paginate("modelVersions", std::move(list), p);
  out["model"] = model_json(s, *m);
  return out;
}

json model_version_response(const state::cluster_state& s,
                            const std::string& name, int64_t version) {
  auto m = model_by_identifier(s, name);
  if (m == nullptr)
    return nullptr;
  auto v = state::find_model_version(*m, version);
  if (v == nullptr)
    return nullptr;
  return {{"modelVersion", model_version_json(s, *m, *v)}};
}

json model_labels_response(const state::cluster_state& s) {
  std::vector<std::string> labels;
  for (const auto& [id, m] : s.models)
    for (const auto& l : m.labels)
      if (std::find(labels.begin(), labels.end(), l) == labels.end())
        labels.push_back(l);
  return {{"labels", labels}};
}

} // namespace det::api
