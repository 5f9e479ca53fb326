// The model registry's record commands (`det model ...`, the SDK's
// register_version): models and their versions, decided on the state
// (core/records.hpp's decide_record hands "model." and "version." ops here).

#include "core/record_models.hpp"

#include "core/record_args.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>
#include <map>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

model_saved to_event(const state::model_info& m) {
  return model_saved{m.id,       m.name,     m.description, m.workspace_id,
                     m.archived, m.metadata, m.labels,      m.notes,
                     {},         0};
}

model_version_saved to_event(int64_t model_id,
                             const state::model_version_info& v) {
  return model_version_saved{model_id,  v.version, v.checkpoint_uuid, v.name,
                             v.comment, v.notes,   v.metadata,        v.labels,
                             {},        0};
}

const state::model_info& model_or_refuse(const cluster_state& s,
                                         const json& a) {
  auto name = text(a, "model", "", name_rules);
  if (auto m = state::model_named(s, name))
    return *m;
  // The SDK names models by id as well ("model 3").
  if (!name.empty()
      && std::all_of(name.begin(), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; })
      && name.size() < 18) {
    auto i = s.models.find(std::stoll(name));
    if (i != s.models.end())
      return i->second;
  }
  refuse(errc::not_found, "model '" + name + "' not found");
}

int64_t model_workspace(const cluster_state& s, const json& a,
                        int64_t fallback) {
  if (has(a, "workspaceName")) {
    auto n = text(a, "workspaceName", "", name_rules);
    auto w = state::workspace_named(s, n);
    if (!w)
      refuse(errc::not_found, "workspace '" + n + "' not found");
    return w->id;
  }
  auto id = id_arg(a, "workspaceId", fallback);
  if (!state::find_workspace(s, id))
    refuse(errc::not_found, "workspace " + std::to_string(id) + " not found");
  return id;
}

void model_fields(const cluster_state& s, const json& a, state::model_info& m) {
  m.name = text(a, "name", m.name, name_rules);
  m.description = text(a, "description", m.description, prose_rules);
  m.metadata = object(a, "metadata", m.metadata);
  m.labels = labels(a, "labels", m.labels);
  m.notes = text(a, "notes", m.notes, notes_rules);
  m.workspace_id = model_workspace(s, a, m.workspace_id);
}

void model_create(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  if (!has(c.args, "name"))
    refuse(errc::invalid_argument, "name: is required");
  state::model_info m;
  model_fields(s, c.args, m);
  if (m.name.empty())
    refuse(errc::invalid_argument, "name: must not be empty");
  if (state::model_named(s, m.name) != nullptr)
    refuse(errc::conflict, "model '" + m.name + "' already exists");
  m.id = s.last_model_id + 1;
  o.events.push_back(stamped(to_event(m), c, now));
  o.reply = {{"id", m.id}};
}

void model_edit(const cluster_state& s, const record_command& c, int64_t now,
                record_outcome& o) {
  auto m = model_or_refuse(s, c.args);
  auto before = m;
  model_fields(s, c.args, m);
  auto other = state::model_named(s, m.name);
  if (other != nullptr && other->id != m.id)
    refuse(errc::conflict, "model '" + m.name + "' already exists");
  o.reply = {{"id", m.id}};
  if (!(m == before))
    o.events.push_back(stamped(to_event(m), c, now));
}

void model_archive(const cluster_state& s, const record_command& c, int64_t now,
                   record_outcome& o) {
  auto m = model_or_refuse(s, c.args);
  auto archived = flag(c.args, "archived");
  if (m.archived == archived)
    return;
  m.archived = archived;
  o.events.push_back(stamped(to_event(m), c, now));
}

void model_delete(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  const auto& m = model_or_refuse(s, c.args);
  o.events.push_back(stamped(model_deleted{m.id, {}, 0}, c, now));
}

void version_fields(const json& a, state::model_version_info& v) {
  v.name = text(a, "name", v.name, name_rules);
  v.comment = text(a, "comment", v.comment, prose_rules);
  v.notes = text(a, "notes", v.notes, notes_rules);
  v.metadata = object(a, "metadata", v.metadata);
  v.labels = labels(a, "labels", v.labels);
}

void version_register(const cluster_state& s, const record_command& c,
                      int64_t now, record_outcome& o) {
  const auto& m = model_or_refuse(s, c.args);
  if (m.archived)
    refuse(errc::invalid_argument, "model '" + m.name + "' is archived");
  auto uuid = text(c.args, "checkpointUuid", "", name_rules);
  if (uuid.empty())
    refuse(errc::invalid_argument, "checkpointUuid: is required");
  if (!state::checkpoint_exists(s, uuid))
    refuse(errc::not_found, "checkpoint '" + uuid + "' not found");
  state::model_version_info v;
  v.version = m.last_version + 1;
  v.checkpoint_uuid = uuid;
  version_fields(c.args, v);
  o.events.push_back(stamped(to_event(m.id, v), c, now));
  o.reply = {{"id", m.id}, {"version", v.version}};
}

const state::model_version_info& version_or_refuse(const state::model_info& m,
                                                   const json& a) {
  auto n = id_arg(a, "version");
  auto v = state::find_model_version(m, n);
  if (v == nullptr)
    refuse(errc::not_found, "version " + std::to_string(n) + " of model '"
                                + m.name + "' not found");
  return *v;
}

void version_edit(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  const auto& m = model_or_refuse(s, c.args);
  auto v = version_or_refuse(m, c.args);
  auto before = v;
  version_fields(c.args, v);
  o.reply = {{"id", m.id}, {"version", v.version}};
  if (!(v == before))
    o.events.push_back(stamped(to_event(m.id, v), c, now));
}

void version_delete(const cluster_state& s, const record_command& c,
                    int64_t now, record_outcome& o) {
  const auto& m = model_or_refuse(s, c.args);
  const auto& v = version_or_refuse(m, c.args);
  o.events.push_back(
      stamped(model_version_deleted{m.id, v.version, {}, 0}, c, now));
}

using model_handler = void (*)(const cluster_state&, const record_command&,
                               int64_t, record_outcome&);

} // namespace

record_outcome decide_models(const cluster_state& s, const record_command& c,
                             int64_t now_us) {
  static const std::map<std::string, model_handler> table{
      {"model.create", model_create},         {"model.edit", model_edit},
      {"model.archive", model_archive},       {"model.delete", model_delete},
      {"version.register", version_register}, {"version.edit", version_edit},
      {"version.delete", version_delete},
  };
  return run_command(table, s, c, now_us);
}

} // namespace det
